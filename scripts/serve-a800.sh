#!/usr/bin/env bash
# Start the vLLM servers of the paper's main setup (configs/a800.yaml): seven
# Qwen3-30B-A3B-Instruct-2507 servers on GPUs 0-6 (ports 8001-8007), BGE-M3
# embeddings (8008) and bge-reranker-v2-m3 (8009) sharing GPU 7.
# Not run by CI. Needs the model weights in the HF cache.
#
# Written for vLLM 0.11.2 (flags as documented at docs.vllm.ai/en/v0.11.2):
# pooling models take --runner pooling (and --convert embed for BGE-M3, whose
# XLMRobertaModel architecture is converted to an embedder), which replaced
# --task embed/score; --disable-log-requests is gone (request logging is off
# by default; --enable-log-requests turns it on). Older vLLM (< 0.10) needs
# --task embed / --task score instead of --runner/--convert.
#
# Flags:
#   --max-model-len 40960        paper appendix C.1 "Maximum model context"
#   --served-model-name          the short names configs/a800.yaml asks for
#   --generation-config vllm     ignore the checkpoint's generation_config.json so
#                                that only what arbor sends applies (arbor sends
#                                temperature 0 explicitly anyway)
# The -Instruct-2507 checkpoints have no thinking mode, so no
# enable_thinking switch is needed; for hybrid Qwen3 checkpoints set
# answer.enable_thinking: false in the config (sent as chat_template_kwargs).
set -euo pipefail
if command -v vllm >/dev/null && ver=$(python3 -c 'import vllm; print(vllm.__version__)' 2>/dev/null); then
  echo "vLLM $ver (this script was written for 0.11.2)"
fi
LOG_DIR=${LOG_DIR:-logs}
CHAT_MODEL=${CHAT_MODEL:-Qwen/Qwen3-30B-A3B-Instruct-2507}
# The name clients ask for; keep it equal to the model: field of the config
# (configs/a800.yaml asks for Qwen3-30B-A3B-Instruct-2507).
SERVED_NAME=${SERVED_NAME:-${CHAT_MODEL##*/}}
mkdir -p "$LOG_DIR"
for gpu in 0 1 2 3 4 5 6; do
  port=$((8001 + gpu))
  CUDA_VISIBLE_DEVICES=$gpu nohup vllm serve "$CHAT_MODEL" \
    --served-model-name "$SERVED_NAME" \
    --port "$port" --max-model-len 40960 --gpu-memory-utilization 0.90 \
    --generation-config vllm \
    >"$LOG_DIR/chat-$port.log" 2>&1 &
done
CUDA_VISIBLE_DEVICES=7 nohup vllm serve BAAI/bge-m3 --runner pooling --convert embed \
  --port 8008 --gpu-memory-utilization 0.35 >"$LOG_DIR/embed-8008.log" 2>&1 &
CUDA_VISIBLE_DEVICES=7 nohup vllm serve BAAI/bge-reranker-v2-m3 --runner pooling \
  --port 8009 --gpu-memory-utilization 0.35 >"$LOG_DIR/rerank-8009.log" 2>&1 &
echo "started; wait for /health on ports 8001-8009, then: arbor endpoints check --config configs/a800.yaml"
