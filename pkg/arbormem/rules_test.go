package arbormem

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// The paper's numbers (Table "Reference implementation settings") pinned as
// behaviour, not as config values.

func TestDefaultsArePaperValues(t *testing.T) {
	c := config.DefaultArborMem()
	got := []float64{float64(c.SemanticCandidates), float64(c.TopicCandidates), c.Tau, c.KeywordFirst, c.KeywordNext, c.KeywordMaxDF,
		c.RecencyMax, c.TopicWeight, c.TopicMatchMin, c.TopicPenalty, float64(c.RawTail), float64(c.BranchBudget), float64(c.MaxFacts), c.FactMinSim,
		float64(c.SupplementalBudget)}
	want := []float64{20, 12, 8.0, 1.0, 0.5, 0.4, 1.0, 8.0, 0.5, -6.0, 4, 16384, 10, 0.4, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("setting %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// TestTauIsStrict: the best candidate becomes the parent only if its score
// strictly exceeds τ = 8.0 (eq. 2).
func TestTauIsStrict(t *testing.T) {
	for _, tc := range []struct {
		p      float64
		parent bool
	}{{0.8, false}, {0.79, false}, {0.8001, true}, {0.95, true}} {
		t.Run(fmt.Sprint(tc.p), func(t *testing.T) {
			s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
				c.RecencyMax = 0
				c.KeywordRouting = false
				d.Rerank = funcReranker(func(q, doc string) float64 { return tc.p })
			})
			mustCommit(t, s, inter("a", "Planning the garden beds for spring.", "Raised beds work well."))
			b := mustRecall(t, s, memory.Query{ID: "q", Text: "What should I plant?", Budget: 1000})
			if len(b.Trace.Candidates) != 1 {
				t.Fatalf("candidates: %+v", b.Trace.Candidates)
			}
			if tc.p == 0.8 && b.Trace.Candidates[0].Score != 8.0 {
				t.Fatalf("precondition: score %v, want exactly 8.0", b.Trace.Candidates[0].Score)
			}
			if got := b.Trace.Parent == "a"; got != tc.parent {
				t.Errorf("p=%v score=%v: parent %q, want parent=%v", tc.p, b.Trace.Candidates[0].Score, b.Trace.Parent, tc.parent)
			}
		})
	}
}

// TestCandidateBounds: semantic recall proposes at most 20 nodes, topic
// anchors at most 12 per anchor.
func TestCandidateBounds(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { c.Localization = false; c.KeywordRouting = false })
	var ins []dialog.Interaction
	for i := range 30 {
		ins = append(ins, inter(fmt.Sprintf("n%02d", i), fmt.Sprintf("Sam's trip detail number %d: the hostel costs %d euros.", i, 20+i), "Noted."))
	}
	mustCommit(t, s, ins...)
	s.cfg.Localization = true // localize the query against the flat forest
	d, err := s.localize(context.Background(), "Back to Sam's trip: what about the hostel?", ins[0].Time, "", true, func() ([]float32, error) {
		return s.embedOne(context.Background(), "Back to Sam's trip: what about the hostel?")
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	sem, top := 0, 0
	for _, c := range d.Candidates {
		if strings.Contains(c.From, "s") {
			sem++
		}
		if strings.Contains(c.From, "t") {
			top++
		}
	}
	if sem != 20 {
		t.Errorf("semantic candidates: %d, want 20", sem)
	}
	if len(d.Anchors) != 1 {
		t.Fatalf("anchors: %+v, want one (Sam's trip)", d.Anchors)
	}
	if top != 12 {
		t.Errorf("topic-anchor candidates: %d, want 12", top)
	}
}

// TestKeywordRule: s_key counts overlaps with the node's stored entities
// and routing keywords: 1.0 for the first informative overlap, 0.5 for each
// further one; terms in more than 40% of nodes are ignored; words that
// appear only in the node's raw text add nothing (appendix A; §4.1).
func TestKeywordRule(t *testing.T) {
	meta := map[string][]string{}
	var ins []dialog.Interaction
	for i := range 10 {
		id := fmt.Sprintf("k%d", i)
		var ents []string
		if i < 5 {
			ents = append(ents, "zebra")
		}
		if i < 4 {
			ents = append(ents, "yak")
		}
		if i == 0 {
			ents = append(ents, "walrus", "vole")
		}
		meta[id] = ents
		// The raw text is long and names many words the metadata does not.
		ins = append(ins, inter(id, fmt.Sprintf("Entry %d: a long aside about okapi, ibex, tapir, lemur and gibbon habitats.", i),
			"Okapi and ibex and tapir, noted."))
	}
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
		c.Localization = false
		d.Extractor = metaExtractor{meta: meta}
	})
	mustCommit(t, s, ins...)
	got := s.informativeTerms(rules.Terms("zebra yak walrus vole"))
	want := []string{"yak", "walru", "vole"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("informative terms %v, want %v (zebra is in 50%% of nodes, yak in exactly 40%%)", got, want)
	}
	n0 := s.forest.Nodes[0]
	for _, tc := range []struct {
		q    string
		want float64
	}{
		{"nothing here", 0}, {"zebra", 0}, {"yak", 1.0}, {"yak walrus", 1.5}, {"yak walrus vole", 2.0},
		// In every node's raw text but in no node's entities or keywords.
		{"okapi ibex tapir lemur gibbon habitats aside", 0},
		// The summary's content words are the node's routing keywords
		// ("note k0"); "note" is in every node's summary, so only k0 counts.
		{"note k0", 1.0},
	} {
		if got := s.keywordScore(s.vocab.known(s.informativeTerms(rules.Terms(tc.q))), n0); got != tc.want {
			t.Errorf("s_key(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestRecencyBounded(t *testing.T) {
	s := newTestSystem(t)
	if got := s.recencyScore(0); got != 1.0 {
		t.Errorf("s_rec of the active node: %v, want the 1.0 cap", got)
	}
	prev := math.Inf(1)
	for d := -3; d < 200; d++ {
		r := s.recencyScore(d)
		if r > 1.0 || r < 0 || r > prev && d > 0 {
			t.Fatalf("s_rec(%d) = %v: must be in [0, 1] and non-increasing", d, r)
		}
		prev = r
	}
}

func TestTopicRule(t *testing.T) {
	s := newTestSystem(t)
	a := rules.DetectAnchors("Going back to Sam's trip, what was the budget?")
	if len(a) != 1 || a[0].Text != "Sam's trip" {
		t.Fatalf("anchors %+v", a)
	}
	node := func(topic string) *Node { return &Node{topic: newVocab().list(rules.Terms(topic))} }
	for _, tc := range []struct {
		topic string
		want  float64
	}{
		{"Sam trip Lisbon", 8.0},    // full match
		{"Sam Lisbon", 8.0 * 2 / 3}, // the name (weight 2) without "trip"
		{"Alex trip Rome", -6.0},    // 1/3: a twin thread
		{"kitchen remodel", -6.0},   // no match
		{"trip Sam", 8.0},           // order does not matter
	} {
		if got := s.topicScore(a, node(tc.topic)); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("s_topic vs %q = %v, want %v", tc.topic, got, tc.want)
		}
	}
	// A match of exactly 0.5 is not above 0.5.
	half := []rules.Anchor{{Text: "x y", Terms: []string{"x", "y"}, Weights: []float64{1, 1}}}
	if got := s.topicScore(half, node("x")); got != -6.0 {
		t.Errorf("match 0.5: s_topic %v, want -6", got)
	}
	if got := s.topicScore(nil, node("x")); got != 0 {
		t.Errorf("no anchor: s_topic %v, want 0", got)
	}
}

// chain commits n interactions that all continue the previous one (explicit
// continuation cue), each about words long.
func chain(t *testing.T, s *System, n, words int) {
	t.Helper()
	filler := strings.Repeat("lorem ipsum dolor sit amet ", words/5)
	for i := range n {
		mustCommit(t, s, inter(fmt.Sprintf("c%02d", i), fmt.Sprintf("Also, step %d of the plan: %s", i, filler), "Right. "+filler))
	}
}

// TestBranchContext: the whole path raw when it fits the 16,384-token branch
// budget; otherwise the 4 most recent nodes raw and the rest as summaries.
func TestBranchContext(t *testing.T) {
	t.Run("fits", func(t *testing.T) {
		s := newTestSystem(t)
		chain(t, s, 10, 100)
		b := mustRecall(t, s, memory.Query{ID: "q", Text: "Also, what is next?", Budget: 30968})
		local := itemsOf(b, memory.ChannelLocal)
		if b.Trace.Path != "continuation" || len(local) != 10 {
			t.Fatalf("path %s, %d local items, want continuation and 10", b.Trace.Path, len(local))
		}
		for i, it := range local {
			if strings.Contains(it.Text, "(summary)") {
				t.Errorf("item %d is a summary though the path fits", i)
			}
		}
	})
	t.Run("long", func(t *testing.T) {
		s := newTestSystem(t)
		chain(t, s, 40, 300)
		b := mustRecall(t, s, memory.Query{ID: "q", Text: "Also, what is next?", Budget: 1 << 20})
		local := itemsOf(b, memory.ChannelLocal)
		if len(local) != 40 {
			t.Fatalf("%d local items, want 40", len(local))
		}
		tok := 0
		for i, it := range local {
			tok += it.Tokens
			summary := strings.Contains(it.Text, "(summary)")
			if summary != (i < 36) {
				t.Errorf("item %d (%s): summary=%v, want raw only for the last 4", i, it.Sources[0], summary)
			}
		}
		if tok > 16384 {
			t.Errorf("branch-local context %d tokens, over the 16,384 branch budget", tok)
		}
		if b.Trace.Channels[memory.ChannelLocal] != tok {
			t.Errorf("trace says %d local tokens, items hold %d", b.Trace.Channels[memory.ChannelLocal], tok)
		}
	})
	t.Run("tight", func(t *testing.T) {
		s := newTestSystem(t)
		chain(t, s, 12, 300)
		b := mustRecall(t, s, memory.Query{ID: "q", Text: "Also, what is next?", Budget: 700})
		if b.Tokens() > 700 {
			t.Fatalf("bundle %d tokens over budget 700", b.Tokens())
		}
		local := itemsOf(b, memory.ChannelLocal)
		if len(local) == 0 || local[len(local)-1].Sources[0] != "c11" {
			t.Errorf("the parent must stay in the context; got %d items", len(local))
		}
	})
}

func itemsOf(b memory.Bundle, ch memory.Channel) []memory.Item {
	var out []memory.Item
	for _, it := range b.Items {
		if it.Channel == ch {
			out = append(out, it)
		}
	}
	return out
}

// axisEmbedder maps texts containing a marker to fixed directions, so that
// similarities are exact: "KEEP" → e0 (similarity 1 with the query), "WEAK"
// → 0.39·e0 + …, anything else → e2.
type axisEmbedder struct{}

func (axisEmbedder) Dim() int { return 4 }
func (axisEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		switch {
		case strings.Contains(t, "QUERY"), strings.Contains(t, "KEEP"):
			out[i] = []float32{1, 0, 0, 0}
		case strings.Contains(t, "EDGE"):
			out[i] = []float32{0.4, float32(math.Sqrt(1 - 0.16)), 0, 0}
		case strings.Contains(t, "WEAK"):
			out[i] = []float32{0.39, float32(math.Sqrt(1 - 0.39*0.39)), 0, 0}
		default:
			out[i] = []float32{0, 0, 1, 0}
		}
	}
	return out, nil
}

// TestFactRetrieval: up to 10 facts, each with similarity at least 0.4.
func TestFactRetrieval(t *testing.T) {
	var n int
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
		d.Embed = axisEmbedder{}
		d.Extractor = stubExtractor{facts: func(in dialog.Interaction) []FactDraft {
			n++
			return []FactDraft{{Fact: in.User(), Tag: "2.5"}}
		}}
	})
	var ins []dialog.Interaction
	for i := range 15 {
		ins = append(ins, inter(fmt.Sprintf("k%02d", i), fmt.Sprintf("KEEP fact %d", i), "ok"))
	}
	ins = append(ins, inter("edge", "EDGE fact", "ok"), inter("weak", "WEAK fact", "ok"))
	mustCommit(t, s, ins...)
	b := mustRecall(t, s, memory.Query{ID: "q", Text: "QUERY", Budget: 30968})
	facts := itemsOf(b, memory.ChannelFact)
	if len(facts) != 10 {
		t.Errorf("%d facts, want 10", len(facts))
	}
	for _, f := range facts {
		if strings.Contains(f.Text, "WEAK") || strings.Contains(f.Text, "EDGE") {
			t.Errorf("fact %q outranked a similarity-1 fact", f.Text)
		}
	}
	// With only the edge cases left, similarity 0.4 qualifies and 0.39 does not.
	s2 := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
		d.Embed = axisEmbedder{}
		d.Extractor = stubExtractor{facts: func(in dialog.Interaction) []FactDraft { return []FactDraft{{Fact: in.User(), Tag: "2.5"}} }}
	})
	mustCommit(t, s2, inter("edge", "EDGE fact", "ok"), inter("weak", "WEAK fact", "ok"))
	b = mustRecall(t, s2, memory.Query{ID: "q", Text: "QUERY", Budget: 30968})
	facts = itemsOf(b, memory.ChannelFact)
	if len(facts) != 1 || !strings.Contains(facts[0].Text, "EDGE") {
		t.Errorf("facts %+v, want only the similarity-0.4 one", facts)
	}
}
