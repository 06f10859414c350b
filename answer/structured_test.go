package answer

import (
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/memory"
)

func TestStructuredEvidence(t *testing.T) {
	artifacts := memory.Item{Block: memory.BlockArtifact, Channel: memory.ChannelRecord, Text: `- topic="Oslo restaurants" ordinal=2 item_text="Tasca Lumiar" type=list_item
- topic="party themes" ordinal=2 item_text="Garden Tea Party" type=list_item exact_match=true
- topic="party themes" ordinal=1 item_text="Roaring Twenties" type=list_item`}
	update := memory.Item{Block: memory.BlockUpdate, Channel: memory.ChannelRecord, Text: `- [slot 2.5] old: "The departure time for the Lisbon trip is 7:00 am." (2025-09-26 14:40) -> new: "The departure time for the Lisbon trip is 6:30 pm." (2025-09-27 09:10)
- [slot 2.7] old: "The caterer is Olive Branch." (2025-09-20 10:00) -> new: "The caterer is Sal & Co." (2025-09-21 10:00)`}
	history := memory.Item{Channel: memory.ChannelLocal, Text: "user: What should we pack for Lisbon?\nassistant: Layers, and comfortable shoes."}
	cases := []struct {
		name, question string
		items          []memory.Item
		want, notWant  string
	}{
		{"exact artifact answers an ordinal question", "What was the second theme on that list?", []memory.Item{history, artifacts}, "Garden Tea Party", "Tasca Lumiar"},
		{"current value: the new side", "What's the departure time for the Lisbon trip now?", []memory.Item{history, update}, "6:30 pm", "7:00 am"},
		{"no wording: the latest value holds", "Remind me of the departure time for the Lisbon trip?", []memory.Item{update}, "6:30 pm", "7:00 am"},
		{"previous value: the old side", "What was the original departure time for the Lisbon trip?", []memory.Item{update}, "7:00 am", "6:30 pm"},
		{"the matching slot", "Which caterer did we end up with?", []memory.Item{update}, "Sal & Co", "Olive Branch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.ToLower(Extract(c.question, c.items))
			if !strings.Contains(got, strings.ToLower(c.want)) || strings.Contains(got, strings.ToLower(c.notWant)) {
				t.Fatalf("Extract(%q) = %q, want %q and not %q", c.question, got, c.want, c.notWant)
			}
		})
	}
	// exact_match only answers ordinal questions.
	if got := Extract("What themes did you suggest?", []memory.Item{artifacts}); got == "Garden Tea Party" {
		t.Fatalf("exact_match used for a question with no ordinal: %q", got)
	}
}
