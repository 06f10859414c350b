package arbormem

import (
	"context"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

func at(in dialog.Interaction, t time.Time) dialog.Interaction { in.Time = t; return in }

// TestHeuristicRouting replays a small interleaved conversation through the
// offline routing rules and checks every placement.
func TestHeuristicRouting(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { d.Routing = RoutingHeuristic })
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	steps := []struct {
		in     dialog.Interaction
		parent string // "" new root
	}{
		{inter("g1", "I'm planning the garden beds for spring. Can you help me plan it?", "Sure, raised beds are a good start."), ""},
		{inter("g2", "The tomatoes will go in the south bed.", "Good, they need sun."), "g1"},       // implicit continuation
		{inter("g3", "Another thing: the soil delivery is on April 3.", "Noted."), "g2"},            // explicit cue
		{inter("k1", "New project: I'm renovating the kitchen this summer.", "Exciting!"), ""},      // announced new agenda
		{inter("k2", "The contractor is Hollis & Sons.", "Noted."), "k1"},                           // implicit continuation
		{inter("g4", "Okay, back to the garden beds. What about slugs?", "Use copper tape."), "g3"}, // return, resumed at the latest node
		{inter("g5", "Copper tape it is.", "Great."), "g4"},
	}
	for i, st := range steps {
		in := at(st.in, t0.Add(time.Duration(i)*5*time.Minute))
		mustCommit(t, s, in)
		got, ok := s.ParentOf(in.ID)
		if !ok || got != st.parent {
			t.Errorf("%s: parent %q, want %q", in.ID, got, st.parent)
		}
	}
	// After a long pause an unrelated input does not continue implicitly.
	late := at(inter("x1", "What's a good name for a sourdough starter?", "Bubbles."), t0.Add(6*time.Hour))
	mustCommit(t, s, late)
	if p, _ := s.ParentOf("x1"); p != "" {
		t.Errorf("x1 after a six-hour pause: parent %q, want a new root", p)
	}
}

// TestPaperRoutingHasNoImplicitContinuation: the paper's cascade attaches
// an input without cues only when a candidate clears τ.
func TestPaperRoutingHasNoImplicitContinuation(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { d.Routing = RoutingPaper })
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	mustCommit(t, s, at(inter("a", "I'm planning the garden beds for spring.", "Sure."), t0),
		at(inter("b", "Quantum chromodynamics homework is due Friday.", "Good luck."), t0.Add(time.Minute)))
	if p, _ := s.ParentOf("b"); p != "" {
		t.Errorf("an unrelated input without a cue: parent %q, want a new root", p)
	}
}

// TestCommitReusesRecallLocalization: BranchMemEval's protocol recalls for a
// question and then commits the question's canonical interaction; the
// commit must reuse the recall's placement instead of localizing again.
func TestCommitReusesRecallLocalization(t *testing.T) {
	calls := 0
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
		d.Rerank = funcReranker(func(q, doc string) float64 { calls++; return overlapScore(q, doc) })
	})
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	mustCommit(t, s, at(inter("a", "The garden beds get tomatoes and basil this spring.", "Nice."), t0),
		at(inter("b", "My kitchen renovation starts in June.", "Exciting."), t0.Add(time.Minute)))
	q := memory.Query{ID: "q", Text: "Which herbs go into the garden beds with the tomatoes?", Time: t0.Add(2 * time.Minute), Budget: 2000}
	b := mustRecall(t, s, q)
	before := calls
	mustCommit(t, s, at(inter("q", q.Text, "Basil."), q.Time))
	if calls != before {
		t.Errorf("commit reranked again (%d calls after recall's %d)", calls, before)
	}
	if m := s.Metrics(); m.ReusedLocalizations != 1 {
		t.Errorf("reused localizations %d, want 1", m.ReusedLocalizations)
	}
	if p, _ := s.ParentOf("q"); p != b.Trace.Parent {
		t.Errorf("committed under %q, recall chose %q", p, b.Trace.Parent)
	}
	// A stale decision (the forest changed since) is not reused.
	mustRecall(t, s, memory.Query{ID: "q2", Text: "And the kitchen?", Time: q.Time, Budget: 100})
	mustCommit(t, s, at(inter("z", "Unrelated filler about nothing.", "ok"), q.Time))
	mustCommit(t, s, at(inter("q2", "And the kitchen?", "June."), q.Time))
	if m := s.Metrics(); m.ReusedLocalizations != 1 {
		t.Errorf("a decision made before another commit was reused (%d)", m.ReusedLocalizations)
	}
}

func overlapScore(q, doc string) float64 {
	v, _ := overlapReranker{}.Rerank(context.Background(), q, []string{doc})
	return v[0]
}

func TestRoutingValidation(t *testing.T) {
	d := testDeps()
	d.Routing = "psychic"
	if _, err := New(config.DefaultArborMem(), d); err == nil {
		t.Error("an unknown routing mode must be rejected")
	}
	if s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { d.Routing = "" }); !s.offline().routing {
		t.Error("auto routing with rule-based operations must be heuristic")
	}
}

// TestQueriesContinueOnlyWhenLive: an in-dialogue question shortly after the
// last turn continues the active state; a question dated at (not after) the
// last turn, or undated, as benchmarks that ask after the conversation do,
// goes through the scored path.
func TestQueriesContinueOnlyWhenLive(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { d.Routing = RoutingHeuristic })
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	mustCommit(t, s, at(inter("a", "I'm planning the garden beds for spring. Can you help me plan it?", "Sure."), t0),
		at(inter("b", "The tomatoes go in the south bed.", "Good."), t0.Add(time.Minute)))
	for _, tc := range []struct {
		when time.Time
		path string
	}{{t0.Add(3 * time.Minute), "implicit"}, {t0.Add(time.Minute), "scored"}, {time.Time{}, "scored"}, {t0.Add(48 * time.Hour), "scored"}} {
		b := mustRecall(t, s, memory.Query{ID: "q", Text: "Remind me, what was the date again?", Time: tc.when, Budget: 500})
		if b.Trace.Path != tc.path {
			t.Errorf("question at %v: path %s, want %s", tc.when, b.Trace.Path, tc.path)
		}
	}
}
