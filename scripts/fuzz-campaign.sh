#!/usr/bin/env bash
# The long form of arbor's fuzzing (docs/RELIABILITY.md): every parser's fuzz
# target for FUZZTIME each (default 10m), one after another, one worker each.
# A failure leaves its input under the package's testdata/fuzz/<Target>/,
# where `go test` replays it from then on as a regression test.
# Usage: scripts/fuzz-campaign.sh [FUZZTIME]   (CI runs only the seed corpora)
#        ALL=1 for every target; FUZZMINIMIZETIME (default 1s) bounds input minimisation.
set -uo pipefail
cd "$(dirname "$0")/.."
t=${1:-10m}
targets=(
  "./datasets/longmemeval FuzzLoad"
  "./datasets/locomo FuzzLoad"
  "./datasets/beam FuzzLoad"
  "./datasets/branchmemeval FuzzParse"
  "./pkg/jsonx FuzzExtract"
  "./pkg/arbormem FuzzDecodeReply"
  "./pkg/config FuzzLoad"
  "./pkg/record FuzzReadLog"
)
# Everything else (scoring, runners, tokens, llm, table, ...) with ALL=1.
if [ "${ALL:-0}" = 1 ]; then
  while IFS= read -r line; do targets+=("$line"); done < <(
    grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
      for fn in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do echo "./$(dirname "${f#./}") $fn"; done
    done | sort -u | grep -v -F -f <(printf '%s\n' "${targets[@]}"))
fi
# Targets over memoised analysis (pkg/index, pkg/llm/local, pkg/arbormem)
# see coverage that depends on earlier inputs; at the default minimisation
# time the fuzzer spends up to a minute on each "new" input and stalls.
minimize=${FUZZMINIMIZETIME:-1s}
status=0
for entry in "${targets[@]}"; do
  set -- $entry
  echo "== $1 $2 ($t)"
  if ! go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$t" -fuzzminimizetime "$minimize" -parallel 1; then
    echo "!! $1 $2 found a failure (see $1/testdata/fuzz/$2)"; status=1
  fi
done
exit $status
