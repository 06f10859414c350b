#!/usr/bin/env bash
# Regenerates the README figures that a command prints, so they cannot go
# stale silently: each figure sits between
#   <!-- readme-figures:NAME -->  and  <!-- /readme-figures:NAME -->
# in README.md and is replaced by the output of the command this script runs
# for NAME. Covered:
#   fake-compare   the equivalence table of "The model path without a GPU":
#                  arbor fake-endpoint compare (noise 0; --noise 0.2
#                  --noise-seed 7; --model-defaults) over the whole shipped
#                  BranchMemEval set, about 30 s of CPU each
#
#   scripts/readme-figures.sh          rewrite README.md in place
#   scripts/readme-figures.sh --check  fail (exit 1) when README.md is stale
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bin="$(mktemp -d)/arbor"
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" .

figure() { # NAME: the figure's lines, from the commands that print it
	case "$1" in
	fake-compare)
		echo '| run | same placement | same bundle | evidence recall (offline / model) | memory-op calls | repaired | bad replies = fallbacks (fake: unrepairable) |'
		echo '|---|---|---|---|---|---|---|'
		"$bin" fake-endpoint compare --row 'noise 0'
		"$bin" fake-endpoint compare --noise 0.2 --noise-seed 7 --row 'noise 0.2, `--noise-seed 7`'
		"$bin" fake-endpoint compare --model-defaults --row 'noise 0, `--model-defaults`'
		;;
	*) echo "readme-figures: unknown figure $1" >&2; exit 2 ;;
	esac
}

out="$(mktemp)"
trap 'rm -rf "$(dirname "$bin")" "$out"' EXIT
cp README.md "$out"
for name in fake-compare; do
	grep -q "<!-- readme-figures:$name -->" README.md || { echo "readme-figures: README.md has no $name marker" >&2; exit 2; }
	body="$(figure "$name")"
	BODY="$body" NAME="$name" python3 - "$out" <<'PY'
import os, re, sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
name, body = os.environ["NAME"], os.environ["BODY"]
pat = re.compile(r"(<!-- readme-figures:%s -->\n).*?(\n<!-- /readme-figures:%s -->)" % (re.escape(name), re.escape(name)), re.S)
s, n = pat.subn(lambda m: m.group(1) + body + m.group(2), s)
if n != 1:
    sys.exit("readme-figures: %s markers found %d times" % (name, n))
open(p, "w", encoding="utf-8").write(s)
PY
done
if [ "${1:-}" = "--check" ]; then
	if ! diff -u README.md "$out"; then
		echo "readme-figures: README.md is stale; run scripts/readme-figures.sh" >&2
		exit 1
	fi
	exit 0
fi
cp "$out" README.md
