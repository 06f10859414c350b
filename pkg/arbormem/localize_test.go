package arbormem

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// TestChannelNames compares the channel names localize gives a candidate
// with the letters noted one channel at a time, in the order localize
// consults the channels (semantic, keyword, entity, topic), as Scored.From
// was spelt before the channels became bits.
func TestChannelNames(t *testing.T) {
	chans := []struct {
		bit    uint8
		letter string
	}{{chanSemantic, "s"}, {chanKeyword, "k"}, {chanEntity, "e"}, {chanTopic, "t"}}
	for set := range 16 {
		var from string
		for _, c := range chans {
			if uint8(set)&c.bit != 0 && !strings.Contains(from, c.letter) {
				from += c.letter
			}
		}
		if got := channelNames[set]; got != from {
			t.Errorf("channels %04b: got %q, want %q", set, got, from)
		}
	}
}

// lazyCueForest is a small committed forest for FuzzLocalizeLazyCues: two
// trajectories in two sessions, with names, topics and a pause.
func lazyCueForest(t testing.TB, routing string) *System {
	s := newTestSystem(t, func(_ *config.ArborMem, d *Deps) { d.Routing = routing })
	day := time.Date(2024, 5, 6, 9, 0, 0, 0, time.UTC)
	in := func(id string, at time.Duration, session, user, asst string) dialog.Interaction {
		return dialog.Interaction{ID: id, Session: session, Time: day.Add(at), Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Content: user}, {Role: dialog.RoleAssistant, Content: asst}}}
	}
	mustCommit(t, s,
		in("a1", 0, "s1", "I'm planning a trip to Lisbon with Marta in June. Can you help me plan it?", "Sure: flights, a hotel in Alfama, and a day in Sintra."),
		in("a2", 10*time.Minute, "s1", "Also, what budget should we set for the hotel?", "About 120 euros a night in Alfama."),
		in("b1", 3*time.Hour, "s2", "New project: my sister asked me to help redo her kitchen. The \"kitchen remodel\" starts in May.", "Start with the layout and a budget."),
		in("b2", 3*time.Hour+5*time.Minute, "s2", "Sam's contractor quoted 9,000 for the cabinets.", "That is within a typical range."),
		in("a3", 26*time.Hour, "s3", "Back to the Lisbon trip: Marta wants to add Porto.", "Porto is three hours by train."),
	)
	return s
}

// FuzzLocalizeLazyCues compares localize, which reads the return and
// new-topic cues only where they can change its decision, with its
// reference that reads them for every input (eagerRoutingCues), on fuzzed
// inputs, times and sessions, with heuristic and paper routing.
func FuzzLocalizeLazyCues(f *testing.F) {
	for _, seed := range []string{
		"And what about the Porto hotel?",
		"New project: I'm planning a garden for the spring.",
		"Okay. I'm moving to Berlin next month. Can you help me plan it?",
		"Back to the kitchen remodel: what did Sam's contractor quote?",
		"When we discussed the Lisbon trip yesterday, what budget did you suggest?",
		"Separately, my brother is getting married. Where do I even begin?",
		"Regarding the hotel in Alfama, is 120 a night still right?",
		"I'm planning a budget for a hotel with Marta. Can you help me plan it?",
		"Big news: a budget of 120 euros a night for a hotel in June.",
		"Back to the hotel budget for Marta: and the cabinets quote of 9,000 from the contractor?",
		"Back to the hotel: is 120 euros a night in Alfama with Marta still fine?",
		"",
	} {
		f.Add(seed, int64(30), true, false, false)
		f.Add(seed, int64(3000), false, false, true)
		f.Add(seed, int64(5), true, true, false)
	}
	systems := map[string]*System{}
	for _, r := range []string{RoutingHeuristic, RoutingPaper} {
		systems[r] = lazyCueForest(f, r)
	}
	f.Fuzz(func(t *testing.T, text string, gapMinutes int64, sameSession, query, paper bool) {
		s := systems[RoutingHeuristic]
		if paper {
			s = systems[RoutingPaper]
		}
		active := s.forest.Nodes[s.forest.Active]
		at := active.Time().Add(time.Duration(gapMinutes%(60*24*30)) * time.Minute)
		session := "s9"
		if sameSession {
			session = active.Interaction.Session
		}
		decide := func(eager bool) *Decision {
			t.Helper()
			textmemo.ResetAll()
			eagerRoutingCues = eager
			defer func() { eagerRoutingCues = false }()
			qvec := func() ([]float32, error) { return s.embedOne(context.Background(), text) }
			d, err := s.localize(context.Background(), text, at, session, query, qvec, s.cfg.KeywordRouting)
			if err != nil {
				t.Fatalf("localize %q: %v", text, err)
			}
			return d
		}
		want, got := decide(true), decide(false)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("localize %q (gap %dm, same session %v, query %v, paper %v):\ngot  %+v\nwant %+v", text, gapMinutes, sameSession, query, paper, got, want)
		}
	})
}
