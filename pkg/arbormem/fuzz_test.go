package arbormem

import (
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
)

// FuzzDecodeReply: no model reply may panic the parsers, and whatever
// parses is sanitised into the prompts' limits.
func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{
		`[{"fact": "User likes tea.", "attribute_tag": "2.7", "entities": ["tea"]}]`,
		"```json\n[{\"artifact_type\": \"list_item\", \"item_text\": \"x\", \"ordinal\": \"2\"},]\n```",
		`{"facts": [{"fact": 1, "attribute_tag": 2.4}]}`,
		`[{"event_type": "bought", "quantity": "1/3", "is_negated": "yes", "entities": "coffee"}]`,
		`{"summary": ["a", "b"], "entities": null}`,
		`[{"pair_id": 0, "verdict": "conflict"}, {"pair_id": "9", "verdict": "x"}]`,
		`[{"key": "Home City", "value": "Porto"`, `Sure! [`, `null`, `"just text"`, `[1, 2, 3]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		var m nodeMetaJSON
		if decodeReply(reply, &m) == nil {
			meta := sanitizeMeta(NodeMeta{Summary: string(m.Summary), Entities: m.Entities})
			if len(strings.Fields(meta.Summary)) > maxSummaryWords {
				t.Fatalf("summary over the limit: %q", meta.Summary)
			}
		}
		var fs []factJSON
		if decodeReply(reply, &fs) == nil {
			var d []FactDraft
			for _, x := range fs {
				d = append(d, FactDraft{Fact: string(x.Fact), Tag: string(x.Tag), Entities: x.Entities})
			}
			for _, x := range sanitizeFacts(d) {
				if x.Tag != "" && !validTag(x.Tag) {
					t.Fatalf("invalid tag kept: %q", x.Tag)
				}
			}
		}
		var as []artifactJSON
		if decodeReply(reply, &as) == nil {
			var d []Artifact
			for _, a := range as {
				d = append(d, Artifact{Type: string(a.Type), Topic: string(a.Topic), Item: string(a.Item), Ordinal: int(a.Ordinal), Evidence: string(a.Evidence)})
			}
			out := sanitizeArtifacts(d)
			if len(out) > maxArtifacts {
				t.Fatalf("%d artifacts kept", len(out))
			}
			for _, a := range out {
				if len([]rune(a.Item)) >= maxArtifactItem || len([]rune(a.Evidence)) >= maxArtifactEvid || !artifactTypes[a.Type] {
					t.Fatalf("artifact over limits: %+v", a)
				}
			}
		}
		var es []eventJSON
		if decodeReply(reply, &es) == nil {
			var d []Event
			for _, e := range es {
				d = append(d, Event{Object: string(e.Object), Value: string(e.Value), Quantity: e.Quantity.v, NormalizedDate: string(e.NormalizedDate), Evidence: string(e.Evidence)})
			}
			for _, e := range sanitizeEvents(d) {
				if len([]rune(e.Evidence)) >= maxEventField || (e.NormalizedDate != "" && normalizeDate(e.NormalizedDate) == "") {
					t.Fatalf("event over limits: %+v", e)
				}
			}
		}
		var ss []stateJSON
		if decodeReply(reply, &ss) == nil {
			var d []State
			for _, s := range ss {
				d = append(d, State{Key: string(s.Key), Value: string(s.Value)})
			}
			if out := sanitizeStates(d); len(out) > maxStates {
				t.Fatalf("%d states kept", len(out))
			}
		}
		var vs []verdictJSON
		if decodeReply(reply, &vs) == nil {
			verdicts([]AuditPair{{ID: "0"}, {ID: "1"}}, vs)
		}
		var tags flexStrings
		_ = decodeReply(reply, &tags)
		_ = cleanPathSummary(reply)
		parseNumber(reply)
	})
}

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
	} {
		f.Add(s)
	}
	now := time.Date(2024, 5, 15, 18, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string) {
		classifyQuery(text)
		detectTemporal(text, now)
		returnCue(text)
		resumeCue(text)
		newTopicCue(text)
		continuationCue(text)
		resolveDate(text, now)
		if len(extractEntities(text, 5)) > 5 {
			t.Fatal("entity limit ignored")
		}
		in := dialog.Interaction{ID: "f", Time: now, Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: text}, {Role: dialog.RoleAssistant, Content: text}}}
		r := ruleOps{}
		m, _ := r.NodeMetadata(ctx0, in)
		if len(strings.Fields(m.Summary)) > maxSummaryWords {
			t.Fatalf("summary %d words", len(strings.Fields(m.Summary)))
		}
		r.PathSummary(ctx0, "Topic: x | Progress: y", m, in)
		r.Facts(ctx0, in)
		named := dialog.Interaction{ID: "n", Time: now, Turns: []dialog.Turn{{Role: dialog.RoleUser, Speaker: "Ana", Content: text}, {Role: dialog.RoleAssistant, Speaker: "Bo", Content: text}}}
		r.Facts(ctx0, named)
		r.NodeMetadata(ctx0, named)
		questionDates(text, &Forest{Nodes: []*Node{{Interaction: in}}, byTime: []int{0}})
		if as, _ := r.Artifacts(ctx0, in); len(as) > maxArtifacts {
			t.Fatal("artifact limit ignored")
		}
		if es, _ := r.Events(ctx0, in); len(es) > maxEvents {
			t.Fatal("event limit ignored")
		}
		if ss, _ := r.States(ctx0, in); len(ss) > maxStates {
			t.Fatal("state limit ignored")
		}
		r.Audit(ctx0, []AuditPair{{Old: text, New: text + " now 5"}})
		words(text)
		sentences(text)
		clipRunes(text, 7)
	})
}
