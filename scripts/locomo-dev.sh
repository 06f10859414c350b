#!/usr/bin/env bash
# The LoCoMo development-half table of the offline default (issue 15): source
# evidence recall and answer-in-bundle recall of ArborMem and BM25 on the five
# development conversations (conv-26, -30, -41, -42, -43; categories 1-4) at
# 256, 512, 1K and 4K tokens, with the embedded offline configuration.
#
#   scripts/locomo-dev.sh path/to/locomo10.json  LoCoMo's data/locomo10.json (github.com/snap-research/locomo,
#                                              CC BY-NC 4.0) or the development half alone; either way only
#                                              the five development conversations are run (--episodes)
#   scripts/locomo-dev.sh                     the project workspace's copy, ../shared/data/locomo-dev/ beside
#                                              the repository (or its main checkout); a plain clone has none:
#                                              pass the file
#   scripts/locomo-dev.sh FILE --config my.yaml   extra flags go to `arbor sweep budgets`
#
# Nothing is downloaded. The file is never copied into the repository. The run
# lands in results/locomo-dev-<commit>/ (ARBOR_RUN_RESULTS moves results/) and resumes when re-run;
# about 1-2 minutes on 2 cores. Tune only on this half: the other five
# conversations measure whether a rule generalises.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rel=shared/data/locomo-dev/locomo10-conv26-43.json
data="${1:-}"
[ $# -gt 0 ] && shift
if [ -z "$data" ]; then
	# Beside the repository; a git worktree looks beside its main checkout too.
	data="$root/../$rel"
	common="$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)"
	if [ ! -f "$data" ] && [ -n "$common" ] && [ -f "$(dirname "$common")/../$rel" ]; then
		data="$(dirname "$common")/../$rel"
	fi
fi
if [ ! -f "$data" ]; then
	echo "locomo-dev: no LoCoMo file at $data: download data/locomo10.json from https://github.com/snap-research/locomo and pass it as the first argument" >&2
	exit 2
fi
cd "$root"
rev="$(git rev-parse --short HEAD 2>/dev/null || echo dev)"
if ! git diff --quiet HEAD 2>/dev/null; then rev="$rev-dirty-$(date +%s)"; fi
results="${ARBOR_RUN_RESULTS:-results}"
run="locomo-dev-$rev"
go run . --results "$results" sweep budgets --benchmark locomo --data "$data" --subset 0 \
	--episodes conv-26,conv-30,conv-41,conv-42,conv-43 --systems arbormem,bm25 --budgets 256,512,1k,4k --run "$run" "$@"
# The sweep prints accuracy and answer-in-bundle recall; source (evidence)
# recall, the issue's target figure, is in the run's tables.
echo
cat "$results/$run/tables/budget-source-recall.md"
