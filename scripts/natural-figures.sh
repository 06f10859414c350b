#!/usr/bin/env bash
# Offline routing on natural conversation (issue 34): the BranchMemEval
# diagnostics (commit placement, question parent, gold in bundle, accuracy)
# of ArborMem and BM25 on the hand-written natural set
# (datasets/branchmemeval/testdata/natural: dev and held-out parts) and on
# the shipped BranchMemEval, with the embedded offline configuration.
#
#   scripts/natural-figures.sh                  this checkout
#   scripts/natural-figures.sh --config X.yaml  extra flags go to every `arbor eval`
#
# Runs land in results/natural-<part>-<commit>/ (ARBOR_RUN_RESULTS moves
# results/) and resume when re-run; well under a minute on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rev="$(git rev-parse --short HEAD 2>/dev/null || echo dev)"
if ! git diff --quiet HEAD 2>/dev/null; then rev="$rev-dirty-$(date +%s)"; fi
results="${ARBOR_RUN_RESULTS:-results}"
go build -o "$results/.arbor-natural" .
bin="$results/.arbor-natural"
nat=datasets/branchmemeval/testdata/natural
for part in dev heldout shipped; do
	data=()
	[ "$part" != shipped ] && data=(--data "$nat/$part.json")
	"$bin" --no-progress --results "$results" eval branchmemeval "${data[@]}" --systems bm25,arbormem \
		--run "natural-$part-$rev" --tables all "$@" >/dev/null
	echo "## $part ($results/natural-$part-$rev)"
	# System, Overall accuracy, Gold in bundle, Question parent, Commit placement.
	awk -F'|' '/^\| (BM25|ArborMem) /{gsub(/[ *_]/, ""); printf "| %s | %s | %s | %s | %s |\n", $2, $3, $13, $15, $16}
		BEGIN{print "| system | accuracy | gold in bundle | question parent | commit placement |"; print "|---|---:|---:|---:|---:|"}' \
		"$results/natural-$part-$rev/tables/bme.md"
done
rm -f "$bin"
