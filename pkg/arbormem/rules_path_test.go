package arbormem

import (
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// TestEventComputation: counts, sums, latest and date differences come from
// the event records, deterministically.
func TestEventComputation(t *testing.T) {
	s := newTestSystem(t)
	day := func(d int) time.Time { return time.Date(2024, 3, d, 10, 0, 0, 0, time.UTC) }
	mustCommit(t, s,
		at(inter("v1", "I visited the Rijksmuseum today with my sister.", "Lovely."), day(1)),
		at(inter("v2", "I visited the Van Gogh museum this morning.", "Great."), day(5)),
		at(inter("v3", "I didn't visit the science museum after all.", "Next time."), day(9)),
		at(inter("c1", "I bought 2 cups of coffee at Bocca.", "Nice."), day(10)),
		at(inter("c2", "I bought 3 cups of coffee for the team.", "Generous."), day(12)),
	)
	for _, tc := range []struct {
		q, op, answer string
	}{
		{"How many times did I visit a museum?", "count", `computed_answer="2"`},
		{"How many cups of coffee did I buy in total?", "sum", `computed_answer="5 cups"`},
		{"When did I most recently visit a museum?", "latest", "2024-03-05"},
		{"How many days between my museum visits?", "date_difference", `computed_answer="4 days"`},
	} {
		b := mustRecall(t, s, memory.Query{ID: "q", Text: tc.q, Time: day(20), Budget: 30968})
		var comp string
		for _, it := range b.Items {
			if it.Block == memory.BlockComputation {
				comp = it.Text
			}
		}
		if !strings.Contains(comp, "operation="+tc.op) || !strings.Contains(comp, tc.answer) {
			t.Errorf("%q: computation %q, want %s with %s", tc.q, comp, tc.op, tc.answer)
		}
	}
}

func TestStructuredExtractionSwitch(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, d *Deps) { c.StructuredExtraction = false; c.AtomicFacts = false })
	mustCommit(t, s, inter("x", "I bought 2 cups of coffee. I live in Porto.", "Here:\n1. One\n2. Two"))
	if n := len(s.store.Events) + len(s.store.States) + len(s.store.Artifacts) + len(s.store.Facts); n != 0 {
		t.Errorf("%d records/facts extracted with extraction switched off", n)
	}
}
