package tokens_test

import (
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

var (
	_ tokens.Counter = (*tokens.Qwen3)(nil)
	_ tokens.Counter = (*tokens.RemoteCounter)(nil)
	// A vLLM /tokenize client is what NewRemote wraps.
	_ tokens.Remote = llm.Tokenizer(nil)
)
