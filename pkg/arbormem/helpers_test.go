package arbormem

import (
	"context"
	"hash/fnv"
	"math"
	"testing"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// hashEmbedder is a deterministic bag-of-terms embedder for tests.
type hashEmbedder struct{ dim int }

func (h hashEmbedder) Dim() int { return h.dim }

func (h hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, h.dim)
		for _, term := range index.Analyze(t) {
			f := fnv.New32a()
			f.Write([]byte(term))
			v[f.Sum32()%uint32(h.dim)]++
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

// overlapReranker scores the share of the query's terms found in each doc
// (the instruction wrapper's own words are ignored).
type overlapReranker struct{}

func (overlapReranker) Rerank(_ context.Context, query string, docs []string) ([]float64, error) {
	ignore := rules.NewTermSet(rules.Terms("Decide whether passage B holds the answer to query A; the prediction is either 'Yes' or 'No'."))
	var q []string
	for _, t := range rules.Terms(query) {
		if !ignore.Has(t) {
			q = append(q, t)
		}
	}
	out := make([]float64, len(docs))
	for i, d := range docs {
		ds := rules.NewTermSet(rules.Terms(d))
		k := 0
		for _, t := range q {
			if ds.Has(t) {
				k++
			}
		}
		if len(q) > 0 {
			out[i] = float64(k) / float64(len(q))
		}
	}
	return out, nil
}

func testDeps() Deps {
	return Deps{Embed: hashEmbedder{dim: 256}, Rerank: overlapReranker{}, Tokens: tokens.Default()}
}

func newTestSystem(t testing.TB, mut ...func(*config.ArborMem, *Deps)) *System {
	t.Helper()
	cfg := config.DefaultArborMem()
	d := testDeps()
	d.Routing = RoutingPaper // rule tests pin the paper's cascade; heuristic routing has its own tests
	for _, m := range mut {
		m(&cfg, &d)
	}
	s, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func inter(id, user, asst string) dialog.Interaction {
	return dialog.Interaction{ID: id, Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: user}, {Role: dialog.RoleAssistant, Content: asst}}}
}

func mustCommit(t testing.TB, s *System, ins ...dialog.Interaction) {
	t.Helper()
	for _, in := range ins {
		if err := s.Commit(context.Background(), in); err != nil {
			t.Fatalf("commit %s: %v", in.ID, err)
		}
	}
}

func mustRecall(t testing.TB, s *System, q memory.Query) memory.Bundle {
	t.Helper()
	b, err := s.Recall(context.Background(), q)
	if err != nil {
		t.Fatalf("recall %q: %v", q.Text, err)
	}
	return b
}

// funcReranker scores documents with a function.
type funcReranker func(query, doc string) float64

func (f funcReranker) Rerank(_ context.Context, query string, docs []string) ([]float64, error) {
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = f(query, d)
	}
	return out, nil
}

// stubExtractor returns scripted facts (and rule-based everything else).
type stubExtractor struct {
	rules.Ops
	facts func(in dialog.Interaction) []FactDraft
}

func (s stubExtractor) Name() string    { return "stub" }
func (s stubExtractor) Heuristic() bool { return true }
func (s stubExtractor) Facts(_ context.Context, in dialog.Interaction) ([]FactDraft, error) {
	return s.facts(in), nil
}

// metaExtractor returns scripted node metadata (and rule-based everything
// else): the summary is "note <id>" and the entities are meta[id].
type metaExtractor struct {
	rules.Ops
	meta map[string][]string
}

func (m metaExtractor) Name() string    { return "meta-stub" }
func (m metaExtractor) Heuristic() bool { return true }
func (m metaExtractor) NodeMetadata(_ context.Context, in dialog.Interaction) (NodeMeta, error) {
	return NodeMeta{Summary: "note " + in.ID, Entities: m.meta[in.ID]}, nil
}

var ctx0 = context.Background()
