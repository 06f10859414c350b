#!/usr/bin/env bash
# Reproduce the ArborMem paper's tables on its a800 setup (appendix C.5: eight
# A800-80GB; seven chat servers on GPUs 0-6, BGE-M3 and bge-reranker-v2-m3 on
# GPU 7; see configs/a800.yaml and scripts/serve-a800.sh).
#
#   scripts/reproduce-paper.sh                 list the steps and their expected runtimes
#   scripts/reproduce-paper.sh all-30b         every step that needs the Qwen3-30B-A3B servers
#   scripts/reproduce-paper.sh all-4b          every step that needs Qwen3-4B (after swapping servers)
#   scripts/reproduce-paper.sh <step>...       single steps, e.g. main-locomo sweep
#   scripts/reproduce-paper.sh plan            dry runs of every step: exact call counts, no endpoint called
#
# Data (nothing is downloaded): LME=longmemeval_s_cleaned.json (LongMemEval-S),
# LOCOMO=locomo10.json, BEAM=<BEAM repository root or chats/100K>; BranchMemEval
# is embedded. Every step writes results/<run>/ and resumes when re-run.
#
# Expected runtimes, and the assumption behind them
# -------------------------------------------------
# The paper gives one measured rate: ArborMem ingests 1.363 s per interaction
# and answers in 0.451 s per question (2K evidence) on ONE Qwen3-4B vLLM service
# run sequentially (Table "efficiency", §6.4). Assumptions:
#   A1 Qwen3-30B-A3B (3.3B active parameters) costs about the same per call as
#      Qwen3-4B, so 1.363 s per interaction holds for it when run alone.
#   A2 On the a800 setup arbor keeps 56 episodes in flight (7 servers × 8); a
#      server batching 8 streams runs each about 2× slower than alone, i.e. 4×
#      the throughput: the whole setup ingests ~28× faster than the paper's
#      sequential rate when at least 56 episodes are available, and at
#      2 × 1.363 = 2.7 s per interaction per episode when fewer are.
#   A3 An answer at the 32K budget takes ~2 s alone (prefill of ~31K tokens),
#      a judge call ~0.3 s; the baselines ingest without model calls except the
#      session summaries (one call per session), which are negligible.
#   Interactions: LongMemEval-S ~248 per question (the paper's subset: 12,394
#   for 50), LoCoMo ~300 per conversation, BEAM 100K ~250 per chat (assumed;
#   `arbor datasets inspect` gives the exact counts), BranchMemEval ~47 per session.
# Table 1 and the read-budget sweep run all nine systems: the five native ones
# (full, recent, bm25, summary, arbormem) and the four bridged ones (graphiti,
# amem, mem0, licomemory), which run through their own libraries in sidecar
# processes and must be installed first (README "Bridged systems"; `arbor
# endpoints check` starts each and reports its library version). The estimates
# below are for the native systems; the bridged ones add their own ingestion
# (Mem0: one extraction call per interaction; A-MEM about two; Graphiti and
# LiCoMemory several per update); the plan step counts them when the sidecars
# are installed (it runs them against its in-process fake model).
# Estimates:
#   main-longmemeval  ~1h 45m  500 × 248 interactions × 1.363 s / 28 + 2,500 answers and judgements
#   main-locomo       ~30m     10 conversations (< 56): longest ~350 interactions × 2.7 s + ~200 questions × 4 s
#   main-beam         ~15m     20 chats: ~250 × 2.7 s + 20 questions with rubric judgements
#   main-bme          ~3m      33 sessions: ~47 × 2.7 s, in-dialogue questions
#   table1            seconds  the four main runs combined (arbor report … --out)
#   sweep             ~15m     50 episodes: 248 × 2.7 s ingested once, then 8 budgets × 5 systems answers
#   ablation-30b      ~35m     3 ingestions (reference + 2 commit-changing variants) × 50 × 248 × 1.363 s / 28, 300 answers
#   ablation-4b       ~35m     the same with Qwen3-4B (A1)
#   efficiency        ~4h 50m  sequential by design: the paper's own total for ArborMem, 287.0 min
# Better figures for your servers: the plan step counts every call exactly, and
#   arbor plan <step's command> --probe      (or --throughput chat=<calls/s>)
# turns the counts into a time estimate.
set -euo pipefail

ARBOR=${ARBOR:-./arbor}
LME=${LME:-data/longmemeval_s_cleaned.json}
LOCOMO=${LOCOMO:-data/locomo10.json}
BEAM=${BEAM:-data/BEAM}
A800=configs/a800.yaml
A800_4B=${A800_4B:-configs/a800-4b.yaml}
EFFICIENCY=configs/efficiency.yaml
# The supplementary analyses' fixed subset: 50 LongMemEval questions, seed 42
# (appendix C.4). arbor samples it with its own generator: the same 50 every
# time, but not necessarily the paper's 50.
SUBSET=(--subset 50 --seed 42)
# The paper's nine systems in Table 1's column order, and the efficiency
# table's three (§6.4: ArborMem, Mem0, A-MEM).
ALL9=full,recent,bm25,summary,graphiti,amem,mem0,licomemory,arbormem
EFFICIENCY_SYSTEMS=arbormem,mem0,amem
M30=Qwen3-30B-A3B-Instruct-2507
M4=Qwen3-4B-Instruct-2507
PLAN=()   # set to (plan) by the plan step: every command below becomes a dry run

# PLAN_FLAGS are added to dry runs, e.g. PLAN_FLAGS="--throughput chat=60,judge=120".
read -r -a PLAN_FLAGS <<<"${PLAN_FLAGS:-}"

run() {
  local extra=()
  [ ${#PLAN[@]} -eq 0 ] || extra=("${PLAN_FLAGS[@]}")
  echo "+ $ARBOR ${PLAN[*]} $* ${extra[*]}" >&2
  "$ARBOR" "${PLAN[@]}" "$@" "${extra[@]}"
}

# Qwen3-4B on the same seven servers: the a800 config with the model renamed.
# Serve it under that name (vllm serve Qwen/Qwen3-4B-Instruct-2507
# --served-model-name Qwen3-4B-Instruct-2507 on ports 8001-8007).
config_4b() {
  [ -f "$A800_4B" ] && return 0 # configs/a800-4b.yaml ships with the repository
  mkdir -p "$(dirname "$A800_4B")"
  sed "s/$M30/$M4/g" "$A800" >"$A800_4B"
}

check_30b() { [ ${#PLAN[@]} -gt 0 ] || "$ARBOR" endpoints check --config "$A800"; }
check_4b() { config_4b; [ ${#PLAN[@]} -gt 0 ] || "$ARBOR" endpoints check --config "$A800_4B"; }

# Table "main-results" (§6.2): one run per benchmark; each prints its row of
# the table (and the per-category table).
main_longmemeval() { run eval longmemeval --data "$LME" --systems "$ALL9" --config "$A800" --run paper-main-longmemeval; }
main_locomo() { run eval locomo --data "$LOCOMO" --systems "$ALL9" --config "$A800" --run paper-main-locomo; }
main_beam() { run eval beam --data "$BEAM" --systems "$ALL9" --config "$A800" --run paper-main-beam; }
main_bme() { run eval branchmemeval --systems "$ALL9" --config "$A800" --run paper-main-branchmemeval; }
# Table "main-results" itself: the four runs above combined, one row each.
table1() {
  [ ${#PLAN[@]} -eq 0 ] || return 0 # nothing to combine in a dry run
  "$ARBOR" report results/paper-main-longmemeval results/paper-main-locomo results/paper-main-beam \
    results/paper-main-branchmemeval --out results/paper-table1
}

# Table "read-budget" (§6.3) and its evidence-recall twin, plus SVG plots.
sweep() {
  run sweep budgets --benchmark longmemeval --data "$LME" "${SUBSET[@]}" --systems "$ALL9" \
    --budgets 256,512,1k,2k,4k,8k,16k,32k --config "$A800" --run paper-read-budget
}

# Table "ablation" (§6.5): one column per model. The chat servers serve one
# model at a time, so the 30B column is made first; after the swap the same
# command with both models resumes the 30B run (no calls) and adds the 4B one.
ablation_30b() {
  run ablate --benchmark longmemeval --data "$LME" "${SUBSET[@]}" \
    --models "$M30=$A800" --run paper-ablation
}
ablation_4b() {
  config_4b
  run ablate --benchmark longmemeval --data "$LME" "${SUBSET[@]}" \
    --models "$M30=$A800,$M4=$A800_4B" --run paper-ablation
}

# Table "efficiency" (§6.4): one Qwen3-4B service on port 8001 (a single
# tensor-parallel vLLM service), embeddings and reranker on 8008/8009,
# sequential execution, 4K memory-operation and 2K answer budgets; ArborMem,
# Mem0 and A-MEM, each phase (ingest per turn, query preparation, TTFT, full
# query) measured by the same runner for all three.
efficiency() {
  run latency --benchmark longmemeval --data "$LME" "${SUBSET[@]}" \
    --config "$EFFICIENCY" --systems "$EFFICIENCY_SYSTEMS" --run paper-efficiency
}

steps_30b=(main-longmemeval main-locomo main-beam main-bme table1 sweep ablation-30b)
steps_4b=(ablation-4b efficiency)

do_step() {
  case "$1" in
    check-30b) check_30b ;;
    check-4b) check_4b ;;
    main-longmemeval) main_longmemeval ;;
    main-locomo) main_locomo ;;
    main-beam) main_beam ;;
    main-bme) main_bme ;;
    table1) table1 ;;
    sweep) sweep ;;
    ablation-30b) ablation_30b ;;
    ablation-4b) ablation_4b ;;
    efficiency) efficiency ;;
    all-30b) check_30b; for s in "${steps_30b[@]}"; do time do_step "$s"; done ;;
    all-4b) check_4b; for s in "${steps_4b[@]}"; do time do_step "$s"; done ;;
    plan) PLAN=(plan); config_4b; for s in "${steps_30b[@]}" "${steps_4b[@]}"; do do_step "$s"; done; PLAN=() ;;
    *) echo "unknown step $1" >&2; return 2 ;;
  esac
}

if [ $# -eq 0 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  echo "steps (30B servers): ${steps_30b[*]}"
  echo "steps (4B servers):  ${steps_4b[*]}"
  exit 0
fi
for s in "$@"; do do_step "$s"; done
