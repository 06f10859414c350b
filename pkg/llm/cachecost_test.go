package llm

import (
	"context"
	"testing"
)

// TestCachedCallsKeepTheirCost: embedding and rerank calls served from the
// cache count the prompt tokens the original call cost, so cost tables do
// not change with the cache.
func TestCachedCallsKeepTheirCost(t *testing.T) {
	c := openCache(t)
	emb := CacheEmbed(embedFunc{dim: func() int { return 2 }, fn: func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		n := 0
		for i, s := range texts {
			out[i] = []float32{1, 0}
			n += len(s)
		}
		noteTokens(ctx, n, 0) // one token per byte
		return out, nil
	}}, c, "embed", "m")
	rr := CacheRerank(rerankFunc(func(ctx context.Context, q string, docs []string) ([]float64, error) {
		noteTokens(ctx, 7*len(docs), 0)
		return make([]float64, len(docs)), nil
	}), c, "rerank", "m")
	tokens := func(call func(ctx context.Context)) (int, bool) {
		n := &callNote{}
		call(context.WithValue(context.Background(), noteKey{}, n))
		return int(n.prompt.Load()), n.cached.Load()
	}
	texts := []string{"abc", "defgh", "ij"}
	first, _ := tokens(func(ctx context.Context) { emb.Embed(ctx, texts) })
	again, cached := tokens(func(ctx context.Context) { emb.Embed(ctx, texts) })
	if first != 10 || again != first || !cached {
		t.Errorf("embed tokens: first %d, cached %d (hit %v); want 10 both times", first, again, cached)
	}
	mixed, _ := tokens(func(ctx context.Context) { emb.Embed(ctx, []string{"abc", "klmn"}) })
	if mixed < 4 || mixed > 8 {
		t.Errorf("half-cached embed counted %d tokens, want the new text's 4 plus the cached text's share", mixed)
	}
	r1, _ := tokens(func(ctx context.Context) { rr.Rerank(ctx, "q", []string{"a", "b"}) })
	r2, hit := tokens(func(ctx context.Context) { rr.Rerank(ctx, "q", []string{"a", "b"}) })
	if r1 != 14 || r2 != 14 || !hit {
		t.Errorf("rerank tokens: %d then %d (hit %v); want 14 both times", r1, r2, hit)
	}
}

func TestApportionSumsExactly(t *testing.T) {
	for _, total := range []int{0, 1, 7, 100} {
		s := apportion(total, []string{"a", "bbbb", "cc"})
		sum := 0
		for _, x := range s {
			sum += x
		}
		if sum != total {
			t.Errorf("apportion(%d) = %v sums to %d", total, s, sum)
		}
	}
}
