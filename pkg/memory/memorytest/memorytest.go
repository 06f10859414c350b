// Package memorytest is the conformance suite every memory system (ArborMem,
// each baseline, each bridge) must pass: the contract of memory.System checked
// from the outside on a small synthetic conversation built here, so that any
// system can be run through it without fixtures of its own.
//
// The suite requires systems to be deterministic: two fresh instances fed the
// same interactions must return the same bundles. That is what lets it detect
// shared state between instances, and what the read-budget sweep relies on.
package memorytest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// Option adjusts the suite.
type Option func(*options)

type options struct {
	counter   tokens.Counter
	budgets   []int
	instances int
}

// WithCounter sets the token counter the system under test was built with;
// every item's Text is recounted with it and compared with Item.Tokens and
// the budget. Without it the suite uses tokens.Default(), the counter of the
// default configuration.
func WithCounter(c tokens.Counter) Option { return func(o *options) { o.counter = c } }

// WithBudgets replaces the budgets every question is recalled at. Budget 0
// is always added: a zero budget must yield an empty bundle.
func WithBudgets(b ...int) Option { return func(o *options) { o.budgets = append([]int(nil), b...) } }

// WithInstances sets how many instances replay the conversation concurrently
// (default 4). Run the suite with -race for this check to mean anything.
func WithInstances(n int) Option { return func(o *options) { o.instances = n } }

// DefaultBudgets are the budgets every question is recalled at: zero, budgets
// smaller than one interaction, the paper's small read budgets (§6.3: 256,
// 512, 1K, 2K) and one larger than the whole conversation.
var DefaultBudgets = []int{0, 1, 7, 40, 256, 512, 1024, 2048, 1 << 20}

// unrelatedQuery is recalled between repeated recalls to check that a recall
// leaves no trace on the next one.
const unrelatedQuery = "Which tram line passes the castle, and what did the vet say?"

// Run runs the conformance suite against systems made by factory.
func Run(t *testing.T, factory memory.Factory, opts ...Option) {
	t.Helper()
	o := options{budgets: DefaultBudgets, instances: 4}
	for _, f := range opts {
		f(&o)
	}
	if o.counter == nil {
		o.counter = tokens.Default()
	}
	if !slices.Contains(o.budgets, 0) {
		o.budgets = append([]int{0}, o.budgets...)
	}
	if o.instances < 2 {
		o.instances = 2
	}
	steps := script()
	ctx := t.Context()

	ref, err := replay(ctx, factory, "memorytest-ref", steps, o.budgets)
	if err != nil {
		t.Fatalf("replaying the synthetic conversation: %v", err)
	}

	t.Run("EmptyInstance", func(t *testing.T) {
		sys := mustNew(t, factory, "memorytest-empty")
		b, err := sys.Recall(ctx, memory.Query{ID: "empty", Text: "What hotel did I book?", Budget: 1 << 20})
		if err != nil {
			t.Fatalf("recall on an empty instance: %v", err)
		}
		if len(b.Items) != 0 {
			t.Errorf("an instance with nothing committed returned %d items; first: %q", len(b.Items), b.Items[0].Text)
		}
	})

	t.Run("ZeroBudget", func(t *testing.T) {
		for _, r := range ref.recalls {
			if r.budget == 0 && len(r.first.Items) != 0 {
				t.Errorf("%s at budget 0: %d items, want none", r.qid, len(r.first.Items))
			}
		}
	})

	t.Run("Budget", func(t *testing.T) {
		for _, r := range ref.recalls {
			checkBudget(t, o.counter, r)
		}
	})

	t.Run("Provenance", func(t *testing.T) {
		for _, r := range ref.recalls {
			for i, it := range r.first.Items {
				if len(it.Sources) == 0 {
					t.Errorf("%s at budget %d: item %d cites no source interaction: %q", r.qid, r.budget, i, clip(it.Text))
				}
				for _, id := range it.Sources {
					if !r.committed[id] {
						t.Errorf("%s at budget %d: item %d cites %q, which was never committed before the question", r.qid, r.budget, i, id)
					}
				}
			}
		}
	})

	t.Run("CausalBoundary", func(t *testing.T) {
		for _, r := range ref.recalls {
			for i, it := range r.first.Items {
				for _, p := range r.future {
					if strings.Contains(it.Text, p) {
						t.Errorf("%s at budget %d: item %d contains %q from an interaction committed after the question", r.qid, r.budget, i, p)
					}
				}
			}
		}
	})

	t.Run("RecallIsPure", func(t *testing.T) {
		for _, r := range ref.recalls {
			if d := diff(r.first, r.again); d != "" {
				t.Errorf("%s at budget %d: the same query recalled again (after other recalls) gave a different bundle: %s", r.qid, r.budget, d)
			}
		}
	})

	t.Run("Isolation", func(t *testing.T) { isolation(t, ctx, factory, steps, ref, o.budgets) })

	t.Run("ConcurrentInstances", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make([]error, o.instances)
		got := make([]*transcript, o.instances)
		for i := range o.instances {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = replay(ctx, factory, fmt.Sprintf("memorytest-conc-%d", i), steps, o.budgets)
			}()
		}
		wg.Wait()
		for i := range o.instances {
			if errs[i] != nil {
				t.Errorf("instance %d: %v", i, errs[i])
				continue
			}
			for j, r := range got[i].recalls {
				if d := diff(ref.recalls[j].first, r.first); d != "" {
					t.Errorf("instance %d, %s at budget %d: differs from a lone instance: %s", i, r.qid, r.budget, d)
				}
			}
		}
	})
}

// recall is one recorded Recall with what was known at that point.
type recall struct {
	qid       string
	budget    int
	first     memory.Bundle
	again     memory.Bundle
	committed map[string]bool
	future    []string // unique phrases of interactions not yet committed
}

type transcript struct{ recalls []recall }

func mustNew(t *testing.T, factory memory.Factory, id string) memory.System {
	t.Helper()
	sys, err := factory(t.Context(), id)
	if err != nil {
		t.Fatalf("factory(%q): %v", id, err)
	}
	if sys == nil {
		t.Fatalf("factory(%q) returned a nil system", id)
	}
	return sys
}

// replay commits the script into a fresh instance and recalls every question
// at every budget twice: once in order, and again after every other budget
// and an unrelated query were recalled.
func replay(ctx context.Context, factory memory.Factory, episode string, steps []step, budgets []int) (*transcript, error) {
	sys, err := factory(ctx, episode)
	if err != nil {
		return nil, fmt.Errorf("factory(%q): %w", episode, err)
	}
	if sys == nil {
		return nil, fmt.Errorf("factory(%q) returned a nil system", episode)
	}
	tr := &transcript{}
	committed := map[string]bool{}
	for i, s := range steps {
		if s.in != nil {
			if err := sys.Commit(ctx, *s.in); err != nil {
				return nil, fmt.Errorf("commit %s: %w", s.in.ID, err)
			}
			committed[s.in.ID] = true
			continue
		}
		var future []string
		for _, later := range steps[i+1:] {
			if later.in != nil {
				future = append(future, later.phrase)
			}
		}
		snap := make(map[string]bool, len(committed))
		for k := range committed {
			snap[k] = true
		}
		start := len(tr.recalls)
		for _, b := range budgets {
			q := *s.q
			q.Budget = b
			got, err := sys.Recall(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("recall %s at budget %d: %w", q.ID, b, err)
			}
			tr.recalls = append(tr.recalls, recall{qid: q.ID, budget: b, first: got, committed: snap, future: future})
		}
		if _, err := sys.Recall(ctx, memory.Query{ID: "unrelated", Text: unrelatedQuery, Time: s.q.Time, Budget: 300}); err != nil {
			return nil, fmt.Errorf("recall of an unrelated query: %w", err)
		}
		for j := start; j < len(tr.recalls); j++ {
			q := *s.q
			q.Budget = tr.recalls[j].budget
			got, err := sys.Recall(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("second recall %s at budget %d: %w", q.ID, q.Budget, err)
			}
			tr.recalls[j].again = got
		}
	}
	return tr, nil
}

func checkBudget(t *testing.T, c tokens.Counter, r recall) {
	t.Helper()
	declared, recount := 0, 0
	for i, it := range r.first.Items {
		n := c.Count(it.Text)
		if it.Tokens != n {
			t.Errorf("%s at budget %d: item %d declares %d tokens, the counter gives %d: %q", r.qid, r.budget, i, it.Tokens, n, clip(it.Text))
		}
		declared += it.Tokens
		recount += n
	}
	if declared > r.budget || recount > r.budget {
		t.Errorf("%s at budget %d: bundle holds %d tokens (recounted %d), over the budget", r.qid, r.budget, declared, recount)
	}
}

// isolation interleaves the main conversation into one instance with an
// unrelated one into another: neither may see the other's interactions, and
// the main instance must answer exactly as it does alone.
func isolation(t *testing.T, ctx context.Context, factory memory.Factory, steps []step, ref *transcript, budgets []int) {
	a := mustNew(t, factory, "memorytest-iso-a")
	b := mustNew(t, factory, "memorytest-iso-b")
	other := OtherConversation()
	_, otherPhrases := build("g", otherSessions)
	mainIDs := map[string]bool{}
	var mainPhrases []string
	for _, s := range steps {
		if s.in != nil {
			mainIDs[s.in.ID] = true
			mainPhrases = append(mainPhrases, s.phrase)
		}
	}
	otherIDs := map[string]bool{}
	for _, in := range other {
		otherIDs[in.ID] = true
	}
	leaks := func(who string, bundle memory.Bundle, ids map[string]bool, phrases []string) {
		t.Helper()
		for i, it := range bundle.Items {
			for _, id := range it.Sources {
				if ids[id] {
					t.Errorf("%s: item %d cites %q, committed to another instance", who, i, id)
				}
			}
			for _, p := range phrases {
				if strings.Contains(it.Text, p) {
					t.Errorf("%s: item %d contains %q, committed to another instance", who, i, p)
				}
			}
		}
	}
	next, ri := 0, 0
	for _, s := range steps {
		if s.in != nil {
			if err := a.Commit(ctx, *s.in); err != nil {
				t.Fatalf("commit %s: %v", s.in.ID, err)
			}
			if next < len(other) {
				if err := b.Commit(ctx, other[next]); err != nil {
					t.Fatalf("commit %s: %v", other[next].ID, err)
				}
				next++
			}
			continue
		}
		for _, bud := range budgets {
			q := *s.q
			q.Budget = bud
			got, err := a.Recall(ctx, q)
			if err != nil {
				t.Fatalf("recall %s at budget %d: %v", q.ID, bud, err)
			}
			leaks(fmt.Sprintf("%s at budget %d", q.ID, bud), got, otherIDs, otherPhrases)
			if d := diff(ref.recalls[ri].first, got); d != "" {
				t.Errorf("%s at budget %d: committing to another instance changed this one's bundle: %s", q.ID, bud, d)
			}
			ri++
		}
	}
	for _, q := range []string{"What car do I drive and what did the brakes cost?", "What hotel did I book in Lisbon?"} {
		got, err := b.Recall(ctx, memory.Query{ID: "iso-b", Text: q, Budget: 1 << 20})
		if err != nil {
			t.Fatalf("recall on the second instance: %v", err)
		}
		leaks("second instance", got, mainIDs, mainPhrases)
		if len(got.Items) == 0 && strings.HasPrefix(q, "What car") {
			t.Errorf("second instance: nothing recalled for %q with an unlimited budget after 5 commits", q)
		}
	}
	fresh := mustNew(t, factory, "memorytest-iso-c")
	got, err := fresh.Recall(ctx, memory.Query{ID: "iso-c", Text: "What hotel did I book in Lisbon?", Budget: 1 << 20})
	if err != nil {
		t.Fatalf("recall on a fresh instance: %v", err)
	}
	if len(got.Items) != 0 {
		t.Errorf("a fresh instance made after others committed returned %d items; first: %q", len(got.Items), clip(got.Items[0].Text))
	}
}

// diff describes the first difference between two bundles' items, or "".
func diff(a, b memory.Bundle) string {
	if len(a.Items) != len(b.Items) {
		return fmt.Sprintf("%d items vs %d", len(a.Items), len(b.Items))
	}
	for i := range a.Items {
		x, y := a.Items[i], b.Items[i]
		switch {
		case x.Channel != y.Channel || x.Block != y.Block:
			return fmt.Sprintf("item %d: channel/block %s/%s vs %s/%s", i, x.Channel, x.Block, y.Channel, y.Block)
		case x.Text != y.Text:
			return fmt.Sprintf("item %d: text %q vs %q", i, clip(x.Text), clip(y.Text))
		case !slices.Equal(x.Sources, y.Sources):
			return fmt.Sprintf("item %d: sources %v vs %v", i, x.Sources, y.Sources)
		case !x.Time.Equal(y.Time):
			return fmt.Sprintf("item %d: time %s vs %s", i, dialog.FormatTime(x.Time), dialog.FormatTime(y.Time))
		case x.Tokens != y.Tokens:
			return fmt.Sprintf("item %d: tokens %d vs %d", i, x.Tokens, y.Tokens)
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
