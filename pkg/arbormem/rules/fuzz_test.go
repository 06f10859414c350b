package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/dialog"
)

// FuzzRules: the rule-based readers never panic on any text and keep their
// output limits.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		"Also, back to Sam's trip: the budget is $2,400 as of May 3rd.",
		"1. First\n2) Second\n- third\n(4) fourth https://x.y/z",
		"I didn't visit the museum yesterday. My favorite drink is 'oolong' tea. I moved to New York.",
		"Last week when we discussed the garden, what did you suggest? 'book club picks'",
		"", "’s 's ' \" — 3:30 pm 2024-13-45",
		"Okay, about the move — what did I do on 25 May, 2022? I love your cat! and shared a photo of a cat", "in mid-May 2023 or on May 40",
		"ok, tax again. whats the rent on the balcony one", "update on the bread: they met at 9", "also — plus: additionally",
	} {
		f.Add(s)
	}
	now := time.Date(2024, 5, 15, 18, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string) {
		ClassifyQuery(text)
		DetectTemporal(text, now)
		returnCue(text)
		ResumeCue(text)
		NewTopicCue(text)
		ContinuationCue(text)
		if label, ok := FrontedLabel(text); ok != (label != "") || !strings.Contains(text, label) {
			t.Fatalf("FrontedLabel(%q) = %q, %v: not a phrase of the text", text, label, ok)
		}
		AddOn(text)
		for _, w := range ContentTerms(text) {
			if w == "" {
				t.Fatal("empty content term")
			}
		}
		resolveDate(text, now)
		if len(Entities(text, 5)) > 5 {
			t.Fatal("entity limit ignored")
		}
		in := dialog.Interaction{ID: "f", Time: now, Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: text}, {Role: dialog.RoleAssistant, Content: text}}}
		r := Ops{}
		m, _ := r.NodeMetadata(ctx0, in)
		if len(strings.Fields(m.Summary)) > ops.MaxSummaryWords {
			t.Fatalf("summary %d words", len(strings.Fields(m.Summary)))
		}
		r.PathSummary(ctx0, "Topic: x | Progress: y", m, in)
		r.Facts(ctx0, in)
		named := dialog.Interaction{ID: "n", Time: now, Turns: []dialog.Turn{{Role: dialog.RoleUser, Speaker: "Ana", Content: text}, {Role: dialog.RoleAssistant, Speaker: "Bo", Content: text}}}
		r.Facts(ctx0, named)
		r.NodeMetadata(ctx0, named)
		if as, _ := r.Artifacts(ctx0, in); len(as) > ops.MaxArtifacts {
			t.Fatal("artifact limit ignored")
		}
		if es, _ := r.Events(ctx0, in); len(es) > ops.MaxEvents {
			t.Fatal("event limit ignored")
		}
		if ss, _ := r.States(ctx0, in); len(ss) > ops.MaxStates {
			t.Fatal("state limit ignored")
		}
		r.Audit(ctx0, []ops.AuditPair{{Old: text, New: text + " now 5"}})
		words(text)
		Sentences(text)
	})
}
