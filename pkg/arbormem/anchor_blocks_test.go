package arbormem

import (
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// [TopicSlotEvidence] fills from the trajectory a question's anchor names;
// arbormem.anchor_trigger decides which anchors count and
// arbormem.anchor_fact_min_sim floors its facts (docs/FIDELITY.md).
func TestAnchorBlocksTriggerAndFloor(t *testing.T) {
	topicSlotOf := func(trigger string, floor float64, question, speaker string) int {
		s := newTestSystem(t, func(c *config.ArborMem, d *Deps) {
			c.AnchorTrigger, c.AnchorFactMinSim = trigger, floor
		})
		ins := []dialog.Interaction{
			inter("b1", "Let's plan Sam's trip to Kyoto. Sam's trip hotel is the Ryokan Sakura.", "Great, the Ryokan Sakura is booked for Sam's trip."),
			inter("b2", "Now about Alex's wedding. Alex's wedding venue is the Old Mill.", "Noted, the Old Mill for Alex's wedding."),
		}
		for i := range ins {
			ins[i].Turns[0].Speaker = speaker
		}
		mustCommit(t, s, ins...)
		b := mustRecall(t, s, memory.Query{ID: "q", Text: question, Time: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Budget: 4000})
		n := 0
		for _, it := range b.Items {
			if it.Block == memory.BlockTopicSlot {
				n++
			}
		}
		return n
	}
	topicSlot := func(trigger string, floor float64, question string) int {
		return topicSlotOf(trigger, floor, question, "")
	}
	const possessive = "What is the hotel for Sam's trip?"
	if n := topicSlot(AnchorAny, 0, possessive); n == 0 {
		t.Fatal("no topic-slot fact for a possessive anchor under anchor_trigger anchor")
	}
	if n := topicSlot(AnchorTopic, 0, possessive); n == 0 {
		t.Error("no topic-slot fact under anchor_trigger topic for a possessive naming someone talked about")
	}
	// When Sam is a speaker of the conversation, "Sam's trip" is how a
	// third-person question names a participant: topic does not fire.
	if n := topicSlotOf(AnchorTopic, 0, possessive, "Sam"); n != 0 {
		t.Errorf("%d topic-slot facts under anchor_trigger topic for a speaker's possessive", n)
	}
	if n := topicSlotOf(AnchorAny, 0, possessive, "Sam"); n == 0 {
		t.Error("anchor_trigger anchor should still fire on a speaker's possessive")
	}
	if n := topicSlot(AnchorExplicit, 0, possessive); n != 0 {
		t.Errorf("%d topic-slot facts for a possessive anchor under anchor_trigger explicit", n)
	}
	if n := topicSlot("off", 0, possessive); n != 0 {
		t.Errorf("%d topic-slot facts with anchor_trigger off", n)
	}
	if n := topicSlot(AnchorAny, 0.999, possessive); n != 0 {
		t.Errorf("%d topic-slot facts above a 0.999 similarity floor", n)
	}
}
