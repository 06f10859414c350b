// Package llm holds the model clients arbor talks to (chat, embeddings,
// rerank, tokenize) and the decorators composed around them: endpoint pool,
// retries, response cache and metrics.
package llm

import (
	"context"
	"time"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is a provider-neutral chat request. Every sampling parameter is
// sent explicitly so that servers never fall back to a model's defaults.
type ChatRequest struct {
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	TopP        *float64  `json:"top_p,omitempty"`
	TopK        *int      `json:"top_k,omitempty"`
	Seed        *int      `json:"seed,omitempty"`
	Stop        []string  `json:"stop,omitempty"`
	// ResponseFormat is "", "json_object" or "json_schema" (with JSONSchema).
	ResponseFormat     string         `json:"response_format,omitempty"`
	JSONSchema         []byte         `json:"json_schema,omitempty"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
	// Purpose labels the call for metrics and records ("answer", "judge",
	// "node_metadata", ...). It is not sent and not part of the cache key.
	Purpose string `json:"-"`
	// ForceCache caches the reply even when Temperature > 0.
	ForceCache bool `json:"-"`
	// OnDelta, when set, receives the reply's content as it streams in,
	// piece by piece (arbor serve relays it). It is not sent and not part of
	// the cache key; a cached reply is not replayed through it, and a call
	// retried after a failure may deliver the pieces of a second attempt.
	OnDelta func(content string) `json:"-"`
}

// ChatResponse is the result of one (streamed) chat call.
type ChatResponse struct {
	Content          string        `json:"content"`
	Reasoning        string        `json:"reasoning,omitempty"`
	FinishReason     string        `json:"finish_reason,omitempty"`
	Model            string        `json:"model,omitempty"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	TTFT             time.Duration `json:"ttft"`
	Latency          time.Duration `json:"latency"`
	Cached           bool          `json:"cached"`
	Endpoint         string        `json:"-"`
}

// Client is a chat model.
type Client interface {
	Chat(ctx context.Context, req ChatRequest) (ChatResponse, error)
}

// Embedder turns texts into vectors (L2-normalised for cosine = dot).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim is the vector dimension.
	Dim() int
}

// Reranker scores documents against a query; scores are returned in input
// order (higher is more relevant).
type Reranker interface {
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// Tokenizer counts tokens through a server (vLLM /tokenize).
type Tokenizer interface {
	Tokenize(ctx context.Context, text string) (int, error)
}
