package arbormem

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/memory"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n%s", name, got)
	}
}

func renderText(t *testing.T, q memory.Query, b memory.Bundle) string {
	t.Helper()
	s := newTestSystem(t)
	msgs, err := s.Render(q, b)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, m := range msgs {
		sb.WriteString("=== " + m.Role + "\n" + m.Content + "\n")
	}
	return sb.String()
}

func TestRenderRuntimeAssembly(t *testing.T) {
	when := time.Date(2024, 6, 1, 9, 30, 0, 0, time.UTC)
	full := memory.Bundle{Items: []memory.Item{
		{Channel: memory.ChannelLocal, Block: memory.BlockHistory, Text: "[2024-05-30 10:00] User: Budget for Sam's trip is $2,000.\nAssistant: Noted.", Sources: []string{"a"}},
		{Channel: memory.ChannelLocal, Block: memory.BlockHistory, Text: "[2024-05-31 10:00] User: We raised it to $2,400.\nAssistant: Updated.", Sources: []string{"b"}},
		{Channel: memory.ChannelFact, Block: memory.BlockFacts, Text: "- [2024-05-31 10:00] User's budget for Sam's trip is $2,400.", Sources: []string{"b"}},
		{Channel: memory.ChannelFact, Block: memory.BlockUpdate, Text: `- [slot 2.5] old: "budget $2,000" (2024-05-30 10:00) -> new: "budget $2,400" (2024-05-31 10:00)`, Sources: []string{"a", "b"}},
		{Channel: memory.ChannelRecord, Block: memory.BlockState, Text: `- trip_budget: "$2,000" -> "$2,400" [current]`, Sources: []string{"b"}},
	}}
	q := memory.Query{ID: "q", Text: "Going back to Sam's trip, what is the current budget?", Time: when}
	golden(t, "render_facts", renderText(t, q, full))

	history := memory.Bundle{Items: full.Items[:2]}
	golden(t, "render_history_only", renderText(t, memory.Query{ID: "q", Text: "How many days is the trip?", Time: when}, history))

	golden(t, "render_no_memory", renderText(t, memory.Query{ID: "q", Text: "Is it going to rain?", Time: when}, memory.Bundle{}))
}

// TestAnswerFormatLines: only the lines whose condition holds appear.
func TestAnswerFormatLines(t *testing.T) {
	s := newTestSystem(t)
	render := func(q string) string {
		msgs, err := s.Render(memory.Query{Text: q}, memory.Bundle{})
		if err != nil {
			t.Fatal(err)
		}
		return msgs[len(msgs)-1].Content
	}
	for _, tc := range []struct {
		q        string
		has, not []string
	}{
		{"How many times did I go running?", []string{"count or sum question"}, []string{"yes/no question", "position in a list"}},
		{"Did I book the hotel?", []string{"begin with exactly one of: Yes."}, []string{"count or sum"}},
		{"What was the second restaurant you suggested?", []string{"(position 2)"}, []string{"yes/no"}},
		{"What's the budget for Kofi's party?", []string{"'Kofi's party'"}, []string{"position in a list"}},
		{"Is it raining?", []string{"yes/no"}, []string{"### ANSWER FORMAT\n- For a count"}},
		{"Tell me a joke", nil, []string{"### ANSWER FORMAT"}},
	} {
		got := render(tc.q)
		for _, h := range tc.has {
			if !strings.Contains(got, h) {
				t.Errorf("%q: missing %q in\n%s", tc.q, h, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%q: unexpected %q in\n%s", tc.q, n, got)
			}
		}
	}
}
