package llm

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Batching decorators split a call into requests of at most size texts and
// send up to parallel of them at once. They sit above retry and the pool,
// so each batch is retried on its own and batches spread over endpoints.

// BatchEmbed splits Embed calls into batches of size (default 64).
func BatchEmbed(next Embedder, size, parallel int) Embedder {
	size = defaultInt(size, 64)
	return embedFunc{dim: next.Dim, fn: func(ctx context.Context, texts []string) ([][]float32, error) {
		if len(texts) <= size {
			return next.Embed(ctx, texts)
		}
		return inBatches(ctx, len(texts), size, parallel, "embeddings", func(ctx context.Context, lo, hi int) ([][]float32, error) {
			return next.Embed(ctx, texts[lo:hi])
		})
	}}
}

// BatchRerank splits Rerank calls into batches of size (default 32, TEI's
// default max client batch; a cross-encoder scores each pair on its own, so
// splitting changes no score).
func BatchRerank(next Reranker, size, parallel int) Reranker {
	size = defaultInt(size, 32)
	return rerankFunc(func(ctx context.Context, q string, docs []string) ([]float64, error) {
		if len(docs) <= size {
			return next.Rerank(ctx, q, docs)
		}
		return inBatches(ctx, len(docs), size, parallel, "rerank", func(ctx context.Context, lo, hi int) ([]float64, error) {
			return next.Rerank(ctx, q, docs[lo:hi])
		})
	})
}

// inBatches calls call on [lo, hi) ranges of n inputs and joins the results
// in input order; each call must return one result per input.
func inBatches[T any](ctx context.Context, n, size, parallel int, what string, call func(ctx context.Context, lo, hi int) ([]T, error)) ([]T, error) {
	out := make([]T, n)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(defaultInt(parallel, 1))
	for lo := 0; lo < n; lo += size {
		hi := min(lo+size, n)
		g.Go(func() error {
			part, err := call(ctx, lo, hi)
			if err != nil {
				return err
			}
			if len(part) != hi-lo {
				return malformed("%s: %d results for %d inputs", what, len(part), hi-lo)
			}
			copy(out[lo:hi], part)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

func defaultInt(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
