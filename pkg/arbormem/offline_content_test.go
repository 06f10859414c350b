package arbormem

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// naturalThreads is a small interleaved conversation written as people
// talk: a work thread, a baking thread opened by an explicit shift
// marker, a car thread opened by a soft one.
var naturalThreads = []struct {
	in     dialog.Interaction
	parent string // "" a new root
}{
	{inter("w1", "ugh, my manager pulled the billing migration forward. we have to be off MySQL by March 14 now.", "That's six weeks earlier. List what must move before the cutover."), ""},
	{inter("w2", "the team is me, Priya and a contractor, Tomasz, who only has 20 hours a week", "Give Tomasz the self-contained validation scripts."), "w1"},
	{inter("b1", "completely different subject, but my sourdough loaves keep coming out flat. the starter is three weeks old", "A young starter is often sluggish; keep it warm."), ""},
	{inter("b2", "the kitchen is cold, maybe 18 degrees, and I feed the starter rye flour once a day", "At 18 degrees it will be slow; find a warmer spot."), "b1"},
	{inter("c1", "oh, and my car broke down on the way home. the mechanic says the transmission is gone, so I need a new one", "Sorry to hear it. What budget do you have in mind?"), ""},
	{inter("c2", "budget is about 15,000 euros, ideally a small hybrid", "That gets you a decent used hybrid."), "c1"},
}

// replayNatural commits naturalThreads five minutes apart and returns the
// time after the last one.
func replayNatural(t *testing.T, s *System) time.Time {
	t.Helper()
	t0 := time.Date(2025, 2, 3, 18, 0, 0, 0, time.UTC)
	for i, st := range naturalThreads {
		mustCommit(t, s, at(st.in, t0.Add(time.Duration(i)*5*time.Minute)))
	}
	return t0.Add(time.Duration(len(naturalThreads)) * 5 * time.Minute)
}

func heuristicRouting(c *config.ArborMem, d *Deps) { d.Routing = RoutingHeuristic }

// TestShiftMarkers: an explicit shift marker ("completely different
// subject") and a soft one before words the active thread does not share
// ("oh, and my car broke down") start new roots; with
// arbormem.shift_markers off both continue the thread before them.
func TestShiftMarkers(t *testing.T) {
	s := newTestSystem(t, heuristicRouting)
	replayNatural(t, s)
	for _, st := range naturalThreads {
		if got, _ := s.ParentOf(st.in.ID); got != st.parent {
			t.Errorf("%s: parent %q, want %q", st.in.ID, got, st.parent)
		}
	}
	off := newTestSystem(t, heuristicRouting, func(c *config.ArborMem, _ *Deps) { c.ShiftMarkers = "off" })
	replayNatural(t, off)
	for id, want := range map[string]string{"b1": "w2", "c1": "b2"} {
		if got, _ := off.ParentOf(id); got != want {
			t.Errorf("shift_markers off: %s under %q, want %q (the thread before it)", id, got, want)
		}
	}
}

// TestShiftMarkerTakesBetterBranch: an explicit marker before words of an
// earlier thread goes to that thread's latest node, not to a new root.
func TestShiftMarkerTakesBetterBranch(t *testing.T) {
	s := newTestSystem(t, heuristicRouting)
	at0 := replayNatural(t, s)
	in := at(inter("b3", "Switching gears: the sourdough starter in the warm oven finally doubled, and the loaves rose.", "Great, keep the starter warm."), at0)
	mustCommit(t, s, in)
	if got, _ := s.ParentOf("b3"); got != "b2" {
		t.Errorf("shift marker before the baking thread's words: parent %q, want b2", got)
	}
}

// TestSoftMarkerInsideThread: a soft marker before words the active thread
// has said continues it ("By the way, the hybrid budget …").
func TestSoftMarkerInsideThread(t *testing.T) {
	s := newTestSystem(t, heuristicRouting)
	at0 := replayNatural(t, s)
	mustCommit(t, s, at(inter("c3", "By the way, the hybrid should fit the 15,000 euros budget with insurance included", "It should."), at0))
	if got, _ := s.ParentOf("c3"); got != "c2" {
		t.Errorf("soft marker before the car thread's words: parent %q, want c2", got)
	}
}

// TestReturnByContent: an underspecified return opening with the
// continuation cue "So" goes to the thread whose words it shares (MySQL),
// at its latest node, not to the active car thread; a statement that
// returns without any marker does too.
func TestReturnByContent(t *testing.T) {
	s := newTestSystem(t, heuristicRouting)
	at0 := replayNatural(t, s)
	b := mustRecall(t, s, memory.Query{ID: "q1", Text: "So what's the deadline for getting off MySQL now?", Time: at0, Budget: 4096})
	if b.Trace == nil || b.Trace.Parent != "w2" {
		t.Fatalf("return by content: parent %v, want w2", b.Trace)
	}
	if !slices.ContainsFunc(b.Trace.Rules, func(r string) bool { return r == ruleContentReturn }) {
		t.Errorf("rules %q do not name the content return", b.Trace.Rules)
	}
	mustCommit(t, s, at(inter("b3", "update on the sourdough: this morning's loaves rose, the warm spot for the starter worked", "Great."), at0.Add(time.Minute)))
	if got, _ := s.ParentOf("b3"); got != "b2" {
		t.Errorf("unmarked return by content: parent %q, want b2", got)
	}
	off := newTestSystem(t, heuristicRouting, func(c *config.ArborMem, _ *Deps) { c.ContentReturns = "off" })
	at0 = replayNatural(t, off)
	if b := mustRecall(t, off, memory.Query{ID: "q1", Text: "So what's the deadline for getting off MySQL now?", Time: at0, Budget: 4096}); b.Trace == nil || b.Trace.Parent != "c2" {
		t.Errorf("content_returns off: parent %v, want c2 (the continuation cue)", b.Trace)
	}
}

// TestUnderspecifiedFollowUp: "and the budget?" continues the active
// thread; "and what was the starter's temperature?" names a word of another
// thread only and goes there.
func TestUnderspecifiedFollowUp(t *testing.T) {
	s := newTestSystem(t, heuristicRouting)
	at0 := replayNatural(t, s)
	for _, tc := range []struct{ q, want string }{
		{"and the budget?", "c2"},
		{"and what about the hybrid?", "c2"},
		{"and how cold was the kitchen?", "b2"},
	} {
		b := mustRecall(t, s, memory.Query{ID: "q", Text: tc.q, Time: at0, Budget: 4096})
		if b.Trace == nil || b.Trace.Parent != tc.want {
			t.Errorf("%q: parent %v, want %s", tc.q, b.Trace, tc.want)
		}
	}
}

// TestContentRoutingOffOnModelPath: with the paper's cascade the content
// rules are off whatever their keys say, so the forest is the same with
// them on and off.
func TestContentRoutingOffOnModelPath(t *testing.T) {
	forest := func(v string) string {
		s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
			d.Routing = RoutingPaper
			c.ShiftMarkers, c.ContentReturns, c.LabelReturns, c.NovelShift = v, v, v, v
		})
		if p := s.offline(); p.shiftMarkers || p.contentReturns || p.labelReturns || p.novelShift || p.contentRouting() {
			t.Fatalf("%s: paper routing with content rules on: %+v", v, p)
		}
		replayNatural(t, s)
		var b strings.Builder
		for _, st := range naturalThreads {
			p, _ := s.ParentOf(st.in.ID)
			b.WriteString(st.in.ID + "<" + p + " ")
		}
		return b.String()
	}
	if on, off := forest("on"), forest("off"); on != off {
		t.Errorf("paper routing: forest with content rules on %s, off %s", on, off)
	}
}

// TestContentReturnStaysInSession: a thread last spoken of in an earlier
// session is not returned to by content alone; the continuation cue keeps
// the active state.
func TestContentReturnStaysInSession(t *testing.T) {
	s := newTestSystem(t, heuristicRouting)
	t0 := time.Date(2025, 2, 3, 18, 0, 0, 0, time.UTC)
	for i, st := range naturalThreads {
		in := st.in
		in.Session = "s1"
		if strings.HasPrefix(in.ID, "c") {
			in.Session = "s2" // the car thread is another day's
		}
		mustCommit(t, s, at(in, t0.Add(time.Duration(i)*5*time.Minute)))
	}
	d, err := s.localize(t.Context(), "So what's the deadline for getting off MySQL now?", t0.Add(time.Hour/2), "s2", false, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.forest.Nodes[d.Parent].ID(); got != "c2" {
		t.Errorf("content return across sessions: parent %s (%v), want c2", got, d.Rules)
	}
}

// errandThreads is a second small interleaved conversation, written for
// the routing rules of issue 34: a visa thread and a piano thread opened
// by an explicit marker.
var errandThreads = []dialog.Interaction{
	inter("v1", "my visa renewal is due. the consulate appointment is on 4 May and they want six months of bank statements", "Order the statements from your bank now; some take a week."),
	inter("v2", "we met the consular officer at the embassy reception and she said the employer letter must be signed", "Then ask HR for a signed letter with your salary."),
	inter("p1", "completely different subject, but my piano recital is next Friday and I keep rushing the Chopin nocturne", "Slow practice helps; try half tempo."),
	inter("p2", "my teacher Ilse says to practise with the metronome at 60", "Good advice: start at 60 and add 4 a day."),
}

// replayErrands commits errandThreads five minutes apart (the piano thread
// is active after it) and returns the time after the last one.
func replayErrands(t *testing.T, s *System) time.Time {
	t.Helper()
	t0 := time.Date(2025, 4, 1, 9, 0, 0, 0, time.UTC)
	for i, in := range errandThreads {
		mustCommit(t, s, at(in, t0.Add(time.Duration(i)*5*time.Minute)))
	}
	return t0.Add(time.Duration(len(errandThreads)) * 5 * time.Minute)
}

// placeErrand commits text after errandThreads and returns its parent
// and the rules that placed it.
func placeErrand(t *testing.T, s *System, text string) (string, []string) {
	t.Helper()
	at0 := replayErrands(t, s)
	d, err := s.localize(t.Context(), text, at0, "", false, func() ([]float32, error) { return s.embedOne(t.Context(), text) }, true)
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, at(inter("x", text, "Noted."), at0))
	p, _ := s.ParentOf("x")
	return p, d.Rules
}

// TestRoutingRulesOfIssue34: each rule added for natural conversation
// chooses the branch it is meant to, and with its key off the input goes
// where the rules before it put it.
func TestRoutingRulesOfIssue34(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want, rule string
		// off turns the rule's key off; wantOff is the parent then.
		off     func(*config.ArborMem)
		wantOff string
	}{
		{
			// A fronted label of the visa thread, though the input shares
			// a word ("teacher") with the active piano thread.
			name: "label return", text: "ok, visa again. do I have to name my teacher as a reference?",
			want: "v2", rule: ruleLabelReturn,
			off: func(c *config.ArborMem) { c.LabelReturns = "off" }, wantOff: "p2",
		},
		{
			// A bare "also" before many words the piano thread has not said.
			name: "add-on shift", text: "also my landlord wants to sell the flat, so we must move out by August and hunt for somewhere cheaper",
			want: "", rule: ruleShiftRoot,
			off: func(c *config.ArborMem) { c.ShiftMarkers = "off" }, wantOff: "p2",
		},
		{
			// A soft marker before nine words of which the piano thread has
			// said one ("practise").
			name: "soft shift, one word shared", text: "I also need to practise a wedding toast for my brother: he marries Joana in June at a vineyard near Porto",
			want: "", rule: ruleShiftRoot,
			off: func(c *config.ArborMem) { c.ShiftMarkers = "off" }, wantOff: "p2",
		},
		{
			// No marker at all, fourteen words none of which any thread said.
			name: "novel shift", text: "we're relaunching the company newsletter in autumn: twelve printed pages on recycled stock, mailed to four thousand subscribers across Bavaria",
			want: "", rule: ruleNovelRoot,
			off: func(c *config.ArborMem) { c.NovelShift = "off" }, wantOff: "p2",
		},
		{
			// An underspecified follow-up in another tense: "meet" is said
			// only as "met" in the visa thread.
			name: "follow-up in another tense", text: "and where did we meet her again?",
			want: "v2", rule: ruleContentReturn,
			off: func(c *config.ArborMem) { c.ContentReturns = "off" }, wantOff: "p2",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rs := placeErrand(t, newTestSystem(t, heuristicRouting), tc.text)
			if got != tc.want {
				t.Errorf("parent %q (%q), want %q", got, rs, tc.want)
			}
			if !slices.Contains(rs, tc.rule) {
				t.Errorf("rules %q do not name %q", rs, tc.rule)
			}
			off, _ := placeErrand(t, newTestSystem(t, heuristicRouting, func(c *config.ArborMem, _ *Deps) { tc.off(c) }), tc.text)
			if off != tc.wantOff {
				t.Errorf("with the key off: parent %q, want %q", off, tc.wantOff)
			}
		})
	}
}

// TestAddOnShortContinues: a short addition opened by "also" continues the
// active thread; so does a long one that shares a word with it.
func TestAddOnShortContinues(t *testing.T) {
	for _, text := range []string{
		"also, should the metronome click on every beat?",
		"also I want to record the nocturne at home tonight and send it to the recital organisers with the programme notes",
	} {
		if got, rs := placeErrand(t, newTestSystem(t, heuristicRouting), text); got != "p2" {
			t.Errorf("%q: parent %q (%q), want p2", text, got, rs)
		}
	}
}
