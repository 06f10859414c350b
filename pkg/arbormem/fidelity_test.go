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

// TestCEScore: s_ce is the reranker's logit by default for a model
// reranker (a probability is inverted, raw scores used as they are) and
// ce_scale × probability in scaled mode; auto picks scaled for the offline
// lexical reranker.
func TestCEScore(t *testing.T) {
	for _, tc := range []struct {
		name           string
		mode           string
		model, logits  bool
		raw            float64
		wantProb, want float64
	}{
		{"probability as logit", CELogit, true, false, 0.9, 0.9, math.Log(9)},
		{"probability scaled", CEScaled, true, false, 0.9, 0.9, 9},
		{"raw logit as logit", CELogit, true, true, 3, 1 / (1 + math.Exp(-3)), 3},
		{"raw logit scaled", CEScaled, true, true, 3, 1 / (1 + math.Exp(-3)), 10 / (1 + math.Exp(-3))},
		{"probability 0 stays finite", CELogit, true, false, 0, 0, -maxLogit},
		{"probability 1 stays finite", CELogit, true, false, 1, 1, maxLogit},
		{"NaN is no evidence", CELogit, true, false, math.NaN(), 0, -maxLogit},
		{"auto, model reranker: logit", "auto", true, false, 0.5, 0.5, 0},
		{"auto, offline reranker: scaled", "auto", false, false, 0.5, 0.5, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
				c.CEScore, c.CEScale = tc.mode, 10
				d.ModelReranker, d.RerankLogits = tc.model, tc.logits
			})
			_, prob, ce := s.ceScore(tc.raw)
			if math.Abs(prob-tc.wantProb) > 1e-6 || math.Abs(ce-tc.want) > 1e-3 {
				t.Errorf("ceScore(%v) = prob %v, s_ce %v; want %v, %v", tc.raw, prob, ce, tc.wantProb, tc.want)
			}
		})
	}
}

// TestAllocationTrajectoryFirst: the trajectory is packed first, within
// min(branch_budget, budget), and facts fill what remains (appendix A);
// with evidence_reserve 0.5 the evidence keeps up to half the budget first.
func TestAllocationTrajectoryFirst(t *testing.T) {
	s := newTestSystem(t)
	chain(t, s, 8, 30) // one branch (continuation cues), each node about 70 tokens raw
	path := s.forest.Path(s.forest.Active)
	rawTotal := 0
	for _, seq := range path {
		rawTotal += s.forest.Nodes[seq].rawTokens
	}
	if rawTotal <= 256 || rawTotal > 2048-150 {
		t.Fatalf("fixture: trajectory of %d tokens must exceed 256 and leave room for the facts at 2K", rawTotal)
	}
	facts := make([]memory.Item, 3)
	for i := range facts {
		facts[i] = memory.Item{Channel: memory.ChannelFact, Block: memory.BlockFacts, Text: fmt.Sprintf("fact %d", i), Tokens: 50, Sources: []string{"x"}}
	}
	for _, tc := range []struct {
		budget  int
		reserve float64
		// wantLocalCap is the token cap the trajectory is packed under.
		wantLocalCap int
	}{
		{256, 0, 256},
		{2048, 0, 2048},
		{30968, 0, 16384},
		{256, 0.5, 256 - 128},
		{2048, 0.5, 2048 - 150},
	} {
		t.Run(fmt.Sprintf("budget %d reserve %v", tc.budget, tc.reserve), func(t *testing.T) {
			s.cfg.EvidenceReserve = tc.reserve
			rc := &recallCtx{s: s, q: memory.Query{Budget: tc.budget}, dec: &Decision{Parent: s.forest.Active}}
			b := rc.allocate(append([]memory.Item(nil), facts...), nil, nil)
			wantLocal := rc.fitPath(path, tc.wantLocalCap)
			var local, got []memory.Item
			for _, it := range b.Items {
				if it.Channel == memory.ChannelLocal {
					local = append(local, it)
				} else {
					got = append(got, it)
				}
			}
			if len(local) != len(wantLocal) || memory.TotalTokens(local) != memory.TotalTokens(wantLocal) {
				t.Fatalf("trajectory: %d items / %d tokens, want %d / %d", len(local), memory.TotalTokens(local), len(wantLocal), memory.TotalTokens(wantLocal))
			}
			wantFacts := min(3, (tc.budget-memory.TotalTokens(wantLocal))/50)
			if len(got) != wantFacts {
				t.Errorf("facts: %d, want %d in the remaining %d tokens", len(got), wantFacts, tc.budget-memory.TotalTokens(wantLocal))
			}
			if b.Tokens() > tc.budget {
				t.Errorf("bundle of %d tokens exceeds the budget %d", b.Tokens(), tc.budget)
			}
		})
	}
	s.cfg.EvidenceReserve = 0
	rc := &recallCtx{s: s, q: memory.Query{Budget: 30968}, dec: &Decision{Parent: s.forest.Active}}
	b := rc.allocate(append([]memory.Item(nil), facts...), nil, nil)
	if n := len(b.Items); n != len(path)+3 {
		t.Errorf("at 30,968 the whole trajectory (%d nodes) and all 3 facts fit: got %d items", len(path), n)
	}
}

// markerEmbedder maps a text to a fixed unit vector chosen by the first
// marker it contains, so tests set cosines exactly.
type markerEmbedder struct {
	dim     int
	vectors map[string][]float32 // marker → vector
	order   []string
}

func (a markerEmbedder) Dim() int { return a.dim }

func (a markerEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, a.dim)
		v[a.dim-1] = 1 // unrelated to every marker
		for _, m := range a.order {
			if strings.Contains(t, m) {
				v = a.vectors[m]
				break
			}
		}
		out[i] = v
	}
	return out, nil
}

func unit(x, y float64, dim int) []float32 {
	v := make([]float32, dim)
	v[0], v[1] = float32(x), float32(y)
	return v
}

// TestFactFloorNeverBypassed: a fact at cosine 0.3 that shares an entity
// with the question stays out; one at 0.5 with no shared entity is in
// (appendix A: "Up to 10 facts with a minimum semantic similarity of 0.4";
// entity matching only reorders).
func TestFactFloorNeverBypassed(t *testing.T) {
	const dim = 8
	emb := markerEmbedder{dim: dim, order: []string{"QUESTION", "Marisol moved", "kayak"}, vectors: map[string][]float32{
		"QUESTION":      unit(1, 0, dim),
		"Marisol moved": unit(0.3, math.Sqrt(1-0.09), dim),
		"kayak":         unit(0.5, math.Sqrt(1-0.25), dim),
	}}
	facts := map[string][]FactDraft{
		"f1": {{Fact: "Marisol moved to Valparaíso.", Tag: "4.0", Entities: []string{"Marisol", "Valparaíso"}}},
		"f2": {{Fact: "User bought a red kayak.", Tag: "5.0", Entities: []string{"kayak"}}},
	}
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
		d.Embed = emb
		d.Extractor = stubExtractor{facts: func(in dialog.Interaction) []FactDraft { return facts[in.ID] }}
	})
	mustCommit(t, s, inter("f1", "Marisol moved to Valparaíso last spring.", "Noted."),
		inter("f2", "I bought a red kayak.", "Nice."))
	b := mustRecall(t, s, memory.Query{ID: "q", Text: "QUESTION: where does Marisol live?", Budget: 4000})
	var got []string
	for _, it := range b.Items {
		if it.Block == memory.BlockFacts {
			got = append(got, it.Text)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "kayak") {
		t.Errorf("facts %q: want only the kayak fact (cosine 0.5); the Marisol fact (0.3, shared entity) is below the 0.4 floor", got)
	}
}

// artifactOnly extracts one artifact from the assistant side of i1.
type artifactOnly struct{ rules.Ops }

func (artifactOnly) Name() string    { return "artifact-stub" }
func (artifactOnly) Heuristic() bool { return true }
func (artifactOnly) Artifacts(_ context.Context, in dialog.Interaction) ([]Artifact, error) {
	if in.ID != "i1" {
		return nil, nil
	}
	return []Artifact{{Type: "recommendation", Topic: "tea", Item: "Blue Lotus tea house on Rua Augusta", Entities: []string{"Blue Lotus"}}}, nil
}

// TestArtifactForNonOrdinalQuestion: records are retrieved by similarity
// and entity matching for any question; the question's form only orders
// the blocks (§4.3).
func TestArtifactForNonOrdinalQuestion(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { d.Extractor = artifactOnly{} })
	mustCommit(t, s, inter("i1", "Where could I get good tea downtown?", "The Blue Lotus tea house on Rua Augusta is lovely."),
		inter("i2", "My sister arrives on Friday.", "Great, enjoy the visit."))
	q := "What was that Blue Lotus place called again, the tea house?"
	if qt := rules.ClassifyQuery(q); qt.Ordinal != 0 || qt.Preference {
		t.Fatalf("fixture: the question must be neither ordinal nor a preference question: %+v", qt)
	}
	b := mustRecall(t, s, memory.Query{ID: "q", Text: q, Budget: 4000})
	found := false
	for _, it := range b.Items {
		if it.Block == memory.BlockArtifact && strings.Contains(it.Text, "Blue Lotus tea house") {
			found = true
		}
	}
	if !found {
		t.Errorf("no [ArtifactEvidence] with the tea house in %+v", b.Items)
	}
}

// slotAuditor judges home_city pairs CONFLICT and every other pair
// INDEPENDENT.
type slotAuditor struct{}

func (slotAuditor) Name() string    { return "slot-stub" }
func (slotAuditor) Heuristic() bool { return true }
func (slotAuditor) Audit(_ context.Context, pairs []AuditPair) ([]bool, error) {
	out := make([]bool, len(pairs))
	for i, p := range pairs {
		out[i] = strings.HasPrefix(p.Old, "home_city:")
	}
	return out, nil
}

// stateScript extracts one state per interaction: "key=value" in the user text.
type stateScript struct{ rules.Ops }

func (stateScript) Name() string    { return "state-stub" }
func (stateScript) Heuristic() bool { return true }
func (stateScript) States(_ context.Context, in dialog.Interaction) ([]State, error) {
	k, v, ok := strings.Cut(in.User(), "=")
	if !ok {
		return nil, nil
	}
	return []State{{Key: k, Value: v}}, nil
}

// TestStateRevisionCheck: a new value of an existing key goes through the
// revision check; CONFLICT supersedes the old value, INDEPENDENT lets both
// stay current (appendix A, "Memory Commit").
func TestStateRevisionCheck(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
		d.Extractor = stateScript{}
		d.Auditor = slotAuditor{}
	})
	mustCommit(t, s, inter("s1", "hobby=painting", "ok"), inter("s2", "hobby=cycling", "ok"),
		inter("s3", "home_city=Porto", "ok"), inter("s4", "home_city=Lisbon", "ok"), inter("s5", "hobby=cycling", "ok"))
	values := func(key string) []string {
		var out []string
		for _, i := range s.store.stateByKey[key] {
			out = append(out, s.store.States[i].Value)
		}
		return out
	}
	if got := values("hobby"); strings.Join(got, ",") != "painting,cycling" {
		t.Errorf("hobby current values %v: INDEPENDENT pairs coexist (and a restated value adds nothing)", got)
	}
	if got := values("home_city"); strings.Join(got, ",") != "Lisbon" {
		t.Errorf("home_city current values %v: a CONFLICT supersedes", got)
	}
	if len(s.store.States) != 4 {
		t.Errorf("%d states stored, want 4 (s5 restates a current value)", len(s.store.States))
	}
	lisbon := s.store.States[s.store.stateByKey["home_city"][0]]
	if lisbon.Prev < 0 || s.store.States[lisbon.Prev].Value != "Porto" {
		t.Errorf("Lisbon must revise Porto: %+v", lisbon)
	}
}

// TestContinuationCueOnThePaperPath: an explicit continuation cue attaches
// to the active state (§4.2) even when the input names an entity of
// another trajectory; only the offline routing guards against that.
func TestContinuationCueOnThePaperPath(t *testing.T) {
	meta := map[string][]string{"a1": {"Sam", "paper revision"}, "b1": {"Lisbon", "conference trip"}}
	for _, tc := range []struct {
		routing string
		cue     bool // whether the cue's fast path decides
	}{{RoutingPaper, true}, {RoutingHeuristic, false}} {
		t.Run(tc.routing, func(t *testing.T) {
			s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
				d.Routing = tc.routing
				d.Extractor = metaExtractor{meta: meta}
				d.Rerank = funcReranker(func(q, doc string) float64 { return 0 })
			})
			mustCommit(t, s, inter("a1", "Let's go over Sam's paper revision.", "Sure."),
				inter("b1", "Separately, I need to book the Lisbon conference trip.", "Okay."))
			if s.forest.Nodes[1].Parent != -1 {
				t.Fatalf("fixture: b1 must start its own root")
			}
			d, err := s.localize(context.Background(), "Also, Sam wants one more figure.", s.forest.Nodes[1].Time(), "", false,
				func() ([]float32, error) { return s.embedOne(context.Background(), "x") }, true)
			if err != nil {
				t.Fatal(err)
			}
			if (d.Path == "continuation") != tc.cue {
				t.Errorf("routing %s: decided by %q; the continuation fast path decides: %v", tc.routing, d.Path, tc.cue)
			}
			if tc.routing == RoutingPaper && d.Parent != 1 {
				t.Errorf("the continuation cue must attach to the active state b1, got parent %d", d.Parent)
			}
		})
	}
}

// TestAnswerPromptsReferOnlyToEmittedFields: the answer prompts name only
// evidence fields ArborMem writes.
func TestAnswerPromptsReferOnlyToEmittedFields(t *testing.T) {
	s := newTestSystem(t)
	for _, name := range []string{"answer_format", "chain_of_note", "chain_of_note_no_facts", "system_anchor", "history_hints"} {
		text, err := s.deps.Prompts.Text(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, never := range []string{"candidate_summary", "answer_family", "suggested_answer", "EXACT MATCH", "ordinal_alignment"} {
			if strings.Contains(text, never) {
				t.Errorf("prompt %s refers to %q, which no evidence block carries", name, never)
			}
		}
	}
	// The fields the prompts do name are written by the block renderers.
	a := artifactLine(&Artifact{Item: "x", Type: "list_item", Ordinal: 2}, true)
	if !strings.Contains(a, "exact_match=true") || !strings.Contains(a, "ordinal=2") {
		t.Errorf("artifact line %q lacks exact_match / ordinal", a)
	}
}
