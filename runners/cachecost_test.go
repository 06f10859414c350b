package runners

import (
	"io"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
)

// TestCostIndependentOfCache: the model calls and tokens a run records are
// a property of the work, not of the response cache. The same model-backed
// run made twice over one cache, the second time answered wholly from it,
// records the same calls and prompt and completion tokens per role, for
// ingestion and for questions; only the cache hits differ.
func TestCostIndependentOfCache(t *testing.T) {
	cfg, srv := speakingCached(t)
	run := func(name string) ([]record.EpisodeStat, []record.Sample) {
		res, err := Run(slowDeadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"arbormem"}, RunID: name,
			Config: cfg, Out: io.Discard, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		return res.Episodes, res.Samples
	}
	e1, s1 := run("first")
	before := srv.Stats().Requests
	e2, s2 := run("cached")
	if n := srv.Stats().Requests - before; n != 0 {
		t.Fatalf("the second run made %d requests; it must be answered from the cache", n)
	}
	sum := func(eps []record.EpisodeStat, ss []record.Sample) map[string]record.Calls {
		out := map[string]record.Calls{}
		add := func(prefix string, m map[string]record.Calls) {
			for role, c := range m {
				o := out[prefix+role]
				o.Count += c.Count
				o.PromptTokens += c.PromptTokens
				o.CompletionTokens += c.CompletionTokens
				o.CacheHits += c.CacheHits
				out[prefix+role] = o
			}
		}
		for _, e := range eps {
			add("ingest/", e.Calls)
		}
		for _, s := range ss {
			add("question/", s.Calls)
		}
		return out
	}
	a, b := sum(e1, s1), sum(e2, s2)
	if len(a) == 0 {
		t.Fatal("no model calls recorded")
	}
	for k, x := range a {
		y := b[k]
		if x.Count != y.Count || x.PromptTokens != y.PromptTokens || x.CompletionTokens != y.CompletionTokens {
			t.Errorf("%s: first run %d calls / %d prompt / %d completion tokens, cached run %d / %d / %d",
				k, x.Count, x.PromptTokens, x.CompletionTokens, y.Count, y.PromptTokens, y.CompletionTokens)
		}
		if y.CacheHits != y.Count {
			t.Errorf("%s: %d of %d calls of the cached run counted as cache hits", k, y.CacheHits, y.Count)
		}
	}
}
