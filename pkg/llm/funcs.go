package llm

import "context"

// Function adapters: every decorator is a closure over the layer below,
// wearing the interface it decorates.

type chatFunc func(context.Context, ChatRequest) (ChatResponse, error)

func (f chatFunc) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	return f(ctx, req)
}

type embedFunc struct {
	dim func() int
	fn  func(context.Context, []string) ([][]float32, error)
}

func (f embedFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f.fn(ctx, texts)
}
func (f embedFunc) Dim() int { return f.dim() }

type rerankFunc func(context.Context, string, []string) ([]float64, error)

func (f rerankFunc) Rerank(ctx context.Context, q string, docs []string) ([]float64, error) {
	return f(ctx, q, docs)
}

type tokenizeFunc func(context.Context, string) (int, error)

func (f tokenizeFunc) Tokenize(ctx context.Context, text string) (int, error) { return f(ctx, text) }

// around runs one call of an interface method inside some behaviour
// (retrying it, metering it); the aroundX functions give that behaviour
// each interface's shape.
type around func(ctx context.Context, call func(context.Context) error) error

func aroundChat(next Client, a around) Client {
	return chatFunc(func(ctx context.Context, req ChatRequest) (resp ChatResponse, err error) {
		err = a(ctx, func(ctx context.Context) error {
			resp, err = next.Chat(ctx, req)
			return err
		})
		return resp, err
	})
}

func aroundEmbed(next Embedder, a around) Embedder {
	return embedFunc{dim: next.Dim, fn: func(ctx context.Context, texts []string) (out [][]float32, err error) {
		err = a(ctx, func(ctx context.Context) error {
			out, err = next.Embed(ctx, texts)
			return err
		})
		return out, err
	}}
}

func aroundRerank(next Reranker, a around) Reranker {
	return rerankFunc(func(ctx context.Context, q string, docs []string) (out []float64, err error) {
		err = a(ctx, func(ctx context.Context) error {
			out, err = next.Rerank(ctx, q, docs)
			return err
		})
		return out, err
	})
}

func aroundTokenizer(next Tokenizer, a around) Tokenizer {
	return tokenizeFunc(func(ctx context.Context, text string) (n int, err error) {
		err = a(ctx, func(ctx context.Context) error {
			n, err = next.Tokenize(ctx, text)
			return err
		})
		return n, err
	})
}
