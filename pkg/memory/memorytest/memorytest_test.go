package memorytest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// words counts whitespace-separated words; a counter of our own keeps these
// tests independent of the real tokenizer.
type words struct{}

func (words) Count(s string) int { return len(strings.Fields(s)) }

// history is a minimal correct system: every committed interaction, newest
// kept under the budget. mode switches in one defect at a time so that the
// suite can be shown to catch it.
type history struct {
	c     tokens.Counter
	mode  string
	items []memory.Item
}

// shared is the process-global store of the "global" defect.
var shared struct {
	sync.Mutex
	items []memory.Item
}

func (h *history) Commit(_ context.Context, in dialog.Interaction) error {
	it := memory.NewItem(h.c, memory.ChannelLocal, in.Text(), in.Time, in.ID)
	if h.mode == "global" {
		shared.Lock()
		shared.items = append(shared.items, it)
		shared.Unlock()
		return nil
	}
	h.items = append(h.items, it)
	return nil
}

func (h *history) Recall(_ context.Context, q memory.Query) (memory.Bundle, error) {
	items := h.items
	if h.mode == "global" {
		shared.Lock()
		items = append([]memory.Item(nil), shared.items...)
		shared.Unlock()
	}
	switch h.mode {
	case "overbudget":
		return memory.Bundle{Items: append([]memory.Item(nil), items...)}, nil
	case "miscount":
		out := memory.PackNewest(items, q.Budget)
		for i := range out {
			out[i].Tokens = 1
		}
		return memory.Bundle{Items: out}, nil
	case "unsourced":
		out := memory.PackNewest(items, q.Budget)
		for i := range out {
			out[i].Sources = nil
		}
		return memory.Bundle{Items: out}, nil
	case "impure":
		// Recall consumes the oldest item, as a system that mutated its
		// state while recalling would.
		out := memory.PackNewest(items, q.Budget)
		if len(h.items) > 0 {
			h.items = h.items[1:]
		}
		return memory.Bundle{Items: out}, nil
	}
	return memory.Bundle{Items: memory.PackNewest(items, q.Budget)}, nil
}

func factory(mode string) memory.Factory {
	return func(_ context.Context, _ string) (memory.System, error) {
		h := &history{c: words{}, mode: mode}
		if mode == "preloaded" {
			// A system that indexed the whole episode up front sees the future.
			for _, in := range Conversation() {
				_ = h.Commit(context.Background(), in)
			}
		}
		return h, nil
	}
}

func TestReferenceSystemPasses(t *testing.T) {
	Run(t, factory(""), WithCounter(words{}))
}

func TestReferenceSystemPassesWithDefaultCounter(t *testing.T) {
	f := func(_ context.Context, _ string) (memory.System, error) {
		return &history{c: tokens.Default()}, nil
	}
	Run(t, f)
}

func TestPhrasesAreUnique(t *testing.T) {
	for _, set := range []struct {
		prefix   string
		sessions []session
	}{{"m", mainSessions}, {"g", otherSessions}} {
		ins, phrases := build(set.prefix, set.sessions)
		for i, p := range phrases {
			n := 0
			for _, in := range ins {
				if strings.Contains(in.Text(), p) {
					n++
				}
			}
			if n != 1 || !strings.Contains(ins[i].Text(), p) {
				t.Errorf("phrase %q of %s occurs in %d interactions, want only its own", p, ins[i].ID, n)
			}
		}
	}
	main, _ := build("m", mainSessions)
	other, _ := build("g", otherSessions)
	for _, p := range phrasesOf(otherSessions) {
		for _, in := range main {
			if strings.Contains(in.Text(), p) {
				t.Errorf("isolation phrase %q occurs in the main conversation (%s)", p, in.ID)
			}
		}
	}
	for _, p := range phrasesOf(mainSessions) {
		for _, in := range other {
			if strings.Contains(in.Text(), p) {
				t.Errorf("main phrase %q occurs in the other conversation (%s)", p, in.ID)
			}
		}
	}
}

func phrasesOf(ss []session) []string {
	_, p := build("x", ss)
	return p
}

func TestScriptOrder(t *testing.T) {
	steps := script()
	seen, qs := 0, 0
	var last dialog.Interaction
	for _, s := range steps {
		if s.in != nil {
			if !last.Time.IsZero() && !s.in.Time.After(last.Time) {
				t.Errorf("%s is not after %s", s.in.ID, last.ID)
			}
			last = *s.in
			seen++
			continue
		}
		qs++
		if !s.q.Time.After(last.Time) {
			t.Errorf("question %s is not after the interaction before it", s.q.ID)
		}
	}
	if seen != 19 || qs != len(mainQuestions) {
		t.Errorf("script has %d interactions and %d questions, want 19 and %d", seen, qs, len(mainQuestions))
	}
}

// TestSuiteCatchesDefects runs the suite on deliberately broken systems in a
// child process (a failing Run would fail this test too) and checks that the
// right check fails.
func TestSuiteCatchesDefects(t *testing.T) {
	cases := []struct{ mode, failing string }{
		{"overbudget", "Run/Budget"},
		{"overbudget", "Run/ZeroBudget"},
		{"miscount", "Run/Budget"},
		{"unsourced", "Run/Provenance"},
		{"impure", "Run/RecallIsPure"},
		{"preloaded", "Run/CausalBoundary"},
		{"preloaded", "Run/EmptyInstance"},
		{"global", "Run/Isolation"},
		{"global", "Run/ConcurrentInstances"},
	}
	for _, c := range cases {
		t.Run(c.mode+"/"+c.failing, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenSystem$", "-test.v")
			cmd.Env = append(os.Environ(), "MEMORYTEST_BROKEN="+c.mode)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a %q system:\n%s", c.mode, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestBrokenSystem/"+c.failing+" ") {
				t.Errorf("expected %s to fail for a %q system; output:\n%s", c.failing, c.mode, out)
			}
		})
	}
}

// TestBrokenSystem is the child side of TestSuiteCatchesDefects.
func TestBrokenSystem(t *testing.T) {
	mode := os.Getenv("MEMORYTEST_BROKEN")
	if mode == "" {
		t.Skip("only run as a child of TestSuiteCatchesDefects")
	}
	t.Run("Run", func(t *testing.T) { Run(t, factory(mode), WithCounter(words{})) })
}
