package sidecar

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
)

// words counts whitespace-separated words, independent of the real tokenizer.
type words struct{}

func (words) Count(s string) int { return len(strings.Fields(s)) }

const fakeInstall = "start it with `fake sidecar --help`"

// fakePool runs the test binary as a sidecar in mode.
func fakePool(t *testing.T, mode string, timeout time.Duration) *Pool {
	t.Helper()
	p := NewPool(Spec{System: "fakemem", Command: []string{os.Args[0]}, Env: []string{"ARBOR_FAKE_SIDECAR=" + mode},
		Install: fakeInstall, Timeout: timeout, StartTimeout: 10 * time.Second}, words{})
	t.Cleanup(func() { p.Close() })
	return p
}

func interaction(id, text string) dialog.Interaction {
	return dialog.Interaction{ID: id, Session: "s1", Time: time.Date(2023, 5, 30, 10, 0, 0, 0, time.UTC),
		Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: text}}}
}

func TestConformance(t *testing.T) {
	memorytest.Run(t, fakePool(t, "ok", 10*time.Second).Factory(), memorytest.WithCounter(words{}))
}

// TestFailures: a sidecar that crashes, writes garbage or hangs gives an
// error naming the system and how to start it, within the timeout; the next
// episode gets a fresh, working process.
func TestFailures(t *testing.T) {
	cases := []struct {
		mode      string
		want      string
		restarted bool // the broken process is replaced for the next episode
	}{
		{"crash", "exited (exit status 139) during commit: fake sidecar: segmentation fault in fakemem", true},
		{"garbage", "wrote garbage in reply to commit (Traceback (most recent call last): not json)", true},
		{"hang", "did not answer commit within 300ms", true},
		{"refuse", "commit: fakemem: rate limited", false},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			p := fakePool(t, c.mode, 300*time.Millisecond)
			ctx := t.Context()
			sys, err := p.Factory()(ctx, "ep1")
			if err != nil {
				t.Fatal(err)
			}
			if err := sys.Commit(ctx, interaction("a", "the red car")); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			err = sys.Commit(ctx, interaction("b", "the blue car"))
			if err == nil {
				t.Fatal("second commit succeeded")
			}
			if took := time.Since(t0); took > 5*time.Second {
				t.Errorf("the failure took %s to surface", took)
			}
			msg := err.Error()
			for _, w := range []string{"commit b", "fakemem sidecar", c.want} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if c.restarted && !strings.Contains(msg, fakeInstall) {
				t.Errorf("error %q does not say how to start the sidecar", msg)
			}
			// The episode's later calls fail at once, never stall.
			if c.restarted {
				if _, err := sys.Recall(ctx, memory.Query{Text: "car", Budget: 100}); err == nil {
					t.Error("recall on a broken process succeeded")
				}
			}
			sys.(*System).Close()
			if c.restarted && p.Live() != 0 {
				t.Errorf("%d processes left after the broken one was released", p.Live())
			}
			// The next episode works (the fault is on the second commit of a
			// process, so a fresh process gets past one commit).
			next, err := p.Factory()(ctx, "ep2")
			if err != nil {
				t.Fatalf("next episode: %v", err)
			}
			if err := next.Commit(ctx, interaction("c", "a green car")); err != nil {
				t.Fatalf("next episode's commit: %v", err)
			}
			b, err := next.Recall(ctx, memory.Query{Text: "green car", Budget: 100})
			if err != nil {
				t.Fatalf("next episode's recall: %v", err)
			}
			if len(b.Items) != 1 || b.Items[0].Sources[0] != "c" {
				t.Errorf("next episode recalled %+v, want only interaction c", b.Items)
			}
		})
	}
}

func TestStartFailures(t *testing.T) {
	cases := []struct{ mode, want string }{
		{"missing", "fakemem sidecar: exited (exit status 3) during hello: fake sidecar: the library fakemem is not installed; pip install fakemem"},
		{"oldproto", "fakemem sidecar: speaks protocol version 0, arbor speaks 1"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			p := fakePool(t, c.mode, time.Second)
			_, err := p.Factory()(t.Context(), "ep")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if _, err := p.Check(t.Context()); err == nil {
				t.Error("Check passed")
			}
		})
	}
	p := NewPool(Spec{System: "nosuch", Command: []string{"/nonexistent/arbor-sidecar"}, Install: "install nosuch"}, words{})
	if _, err := p.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "nosuch sidecar: cannot start") {
		t.Errorf("missing command: %v", err)
	}
}

func TestCheck(t *testing.T) {
	h, err := fakePool(t, "ok", time.Second).Check(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Library != "fakemem" || h.LibraryVersion != "0.1" || h.Protocol != Version {
		t.Errorf("hello = %+v", h)
	}
}

// TestLostInteraction: a flush whose count disagrees with arbor's commits is
// an error at the next recall, not silently fewer memories.
func TestLostInteraction(t *testing.T) {
	p := fakePool(t, "lose", time.Second)
	sys, err := p.Factory()(t.Context(), "ep")
	if err != nil {
		t.Fatal(err)
	}
	sys.Commit(t.Context(), interaction("a", "car"))
	if _, err := sys.Recall(t.Context(), memory.Query{Text: "car", Budget: 10}); err == nil || !strings.Contains(err.Error(), "holds 0 interactions, arbor committed 1") {
		t.Errorf("recall after a lost interaction: %v", err)
	}
}

// TestBudgetCut: a sidecar returning 30 units where 10 fit is cut to the
// budget by arbor, in the sidecar's order.
func TestBudgetCut(t *testing.T) {
	p := fakePool(t, "thirty", time.Second)
	sys, err := p.Factory()(t.Context(), "ep")
	if err != nil {
		t.Fatal(err)
	}
	sys.Commit(t.Context(), interaction("a", "one two three four five six seven"))
	per := words{}.Count("[2023-05-30 10:00] unit 0: one two three four five six seven")
	b, err := sys.Recall(t.Context(), memory.Query{Text: "anything", Budget: 10 * per})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) != 10 || b.Tokens() > 10*per {
		t.Fatalf("%d items, %d tokens; want 10 items within %d", len(b.Items), b.Tokens(), 10*per)
	}
	for i, it := range b.Items {
		if !strings.Contains(it.Text, "unit "+strconv.Itoa(i)+":") {
			t.Errorf("item %d is %q: the sidecar's order was not kept", i, it.Text)
		}
	}
}

// TestUsage: the sidecar's model calls reach the context's usage by role.
func TestUsage(t *testing.T) {
	p := fakePool(t, "ok", time.Second)
	ctx, u := llm.WithUsage(t.Context())
	sys, err := p.Factory()(ctx, "ep")
	if err != nil {
		t.Fatal(err)
	}
	sys.Commit(ctx, interaction("a", "car"))
	sys.Commit(ctx, interaction("b", "bus"))
	sys.Recall(ctx, memory.Query{Text: "car", Budget: 10})
	got := u.Snapshot()
	if c := got["chat"]; c.Count != 2 || c.PromptTokens != 200 || c.CompletionTokens != 20 {
		t.Errorf("chat usage %+v", c)
	}
	if e := got["embed"]; e.Count != 3 || e.PromptTokens != 45 {
		t.Errorf("embed usage %+v", e)
	}
}

// TestReuse: a closed episode's process serves the next episode, reset.
func TestReuse(t *testing.T) {
	p := fakePool(t, "ok", time.Second)
	ctx := context.Background()
	a, _ := p.Factory()(ctx, "a")
	a.Commit(ctx, interaction("x", "secret car"))
	a.(*System).Close()
	b, err := p.Factory()(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if p.Live() != 1 {
		t.Errorf("%d processes, want the one reused", p.Live())
	}
	got, _ := b.Recall(ctx, memory.Query{Text: "secret car", Budget: 100})
	if len(got.Items) != 0 {
		t.Errorf("the next episode sees the previous one's memory: %+v", got.Items)
	}
	if err := a.Commit(ctx, interaction("y", "z")); err == nil {
		t.Error("commit on a closed system succeeded")
	}
}

// TestHealth: failed model calls the sidecar reports count as the episode's
// model errors.
func TestHealth(t *testing.T) {
	p := fakePool(t, "modelerrors", time.Second)
	sys, err := p.Factory()(t.Context(), "ep")
	if err != nil {
		t.Fatal(err)
	}
	sys.Commit(t.Context(), interaction("a", "car"))
	sys.Commit(t.Context(), interaction("b", "bus"))
	if got := sys.(memory.HealthReporter).Health().ModelErrors; got != 2 {
		t.Errorf("model errors %d, want 2", got)
	}
	sys.(*System).Close()
	if got := sys.(memory.HealthReporter).Health().ModelErrors; got != 2 {
		t.Errorf("after close: model errors %d, want 2", got)
	}
	next, _ := p.Factory()(t.Context(), "ep2")
	if got := next.(memory.HealthReporter).Health().ModelErrors; got != 0 {
		t.Errorf("the next episode starts with %d model errors", got)
	}
}
