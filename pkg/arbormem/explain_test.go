package arbormem

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
)

func TestExplain(t *testing.T) {
	s := newTestSystem(t, func(c *config.ArborMem, _ *Deps) { c.CEScale = 3.2 })
	mustCommit(t, s, memorytest.Conversation()...)
	var buf bytes.Buffer
	q := memory.Query{ID: "q1", Text: "What is the current budget for the Lisbon trip?"}
	if err := Explain(&buf, s, &q); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"forest: 19 nodes", "◆ ", "- m-01 [2023-05-02 09:00]", "← active", "question q1", "localization: step=",
		"candidate", "rerank", "prob", "s_ce", "s_topic", "s_ce=3.2 × probability", "channels (tokens):", "[ConversationHistory]"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	// Children are indented under their parent.
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "- m-10 ") {
			if strings.Index(l, "-") <= strings.Index(lines[i-1], "-") && !strings.Contains(lines[i-1], "◆") {
				t.Errorf("m-10 is not indented below its parent:\n%s\n%s", lines[i-1], l)
			}
		}
	}
	buf.Reset()
	if err := Explain(&buf, s, nil); err != nil || strings.Contains(buf.String(), "question") {
		t.Errorf("without a question only the forest is printed (err %v)", err)
	}
}

func TestParentOf(t *testing.T) {
	s := newTestSystem(t)
	chain(t, s, 3, 10)
	for id, want := range map[string]string{"c00": "", "c01": "c00", "c02": "c01"} {
		got, ok := s.ParentOf(id)
		if !ok || got != want {
			t.Errorf("ParentOf(%s) = %q, %v; want %q", id, got, ok, want)
		}
	}
	if _, ok := s.ParentOf("nope"); ok {
		t.Error("ParentOf of an unknown ID must report false")
	}
}

// TestDecisionNamesItsRules: every decision says which rule made it, and the
// offline routing's changes are named beside the cascade's step: a
// trajectory resumed at its latest node names the node the score chose, so
// that a trace whose parent is not the best-scored candidate explains itself.
func TestDecisionNamesItsRules(t *testing.T) {
	s := newTestSystem(t)
	chain(t, s, 3, 10)
	for _, c := range []struct {
		name string
		d    Decision
		cues routeCues
		want []string
	}{
		{"resume at the latest node", Decision{Parent: 0, Path: "scored", Rules: []string{ruleAboveTau}}, routeCues{newTopicRead: true},
			[]string{ruleAboveTau, ruleResumeLatest + " (c02, not c00)"}},
		{"already the latest node", Decision{Parent: 2, Path: "scored", Rules: []string{ruleAboveTau}}, routeCues{newTopicRead: true},
			[]string{ruleAboveTau}},
		{"announced new topic", Decision{Parent: 2, Path: "scored", Rules: []string{ruleAboveTau}}, routeCues{newTopicRead: true, newTopicSaid: true},
			[]string{ruleAboveTau, ruleNewTopic}},
	} {
		d := c.d
		s.reroute(&d, &c.cues)
		if !slices.Equal(d.Rules, c.want) {
			t.Errorf("%s: rules %q, want %q", c.name, d.Rules, c.want)
		}
	}
	// Every path of the cascade names a rule, and explain prints it.
	for _, text := range []string{"Also, what is next?", "Something entirely unrelated about gardening tomatoes"} {
		d, err := s.localize(context.Background(), text, time.Time{}, "", true, func() ([]float32, error) { return s.embedOne(context.Background(), text) }, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Rules) == 0 {
			t.Errorf("%q: decision %s names no rule", text, d.Path)
		}
	}
	var buf bytes.Buffer
	if err := Explain(&buf, s, &memory.Query{ID: "q", Text: "Also, what is next?"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "decided by: ") {
		t.Errorf("explain does not name the deciding rule:\n%s", buf.String())
	}
}
