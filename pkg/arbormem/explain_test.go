package arbormem

import (
	"bytes"
	"strings"
	"testing"

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
