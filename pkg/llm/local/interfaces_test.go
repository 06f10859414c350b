package local_test

import (
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/local"
)

// The local provider satisfies the llm interfaces without importing pkg/llm.
var (
	_ llm.Embedder = (*local.Embedder)(nil)
	_ llm.Reranker = (*local.Reranker)(nil)
)
