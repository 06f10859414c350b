package arbormem

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
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
			meta := ops.SanitizeMeta(NodeMeta{Summary: string(m.Summary), Entities: m.Entities}, ops.Limits{Entities: 3})
			if len(strings.Fields(meta.Summary)) > ops.MaxSummaryWords {
				t.Fatalf("summary over the limit: %q", meta.Summary)
			}
			if len(meta.Entities) > 3 {
				t.Fatalf("%d entities over the configured cap of 3", len(meta.Entities))
			}
		}
		var fs []factJSON
		if decodeReply(reply, &fs) == nil {
			var d []FactDraft
			for _, x := range fs {
				d = append(d, FactDraft{Fact: string(x.Fact), Tag: string(x.Tag), Entities: x.Entities})
			}
			if n := len(ops.SanitizeFacts(d, ops.Limits{FactsPerTurn: 2})); n > 2 {
				t.Fatalf("%d facts over the configured cap of 2", n)
			}
			for _, x := range ops.SanitizeFacts(d, ops.Limits{}) {
				if x.Tag != "" && !ops.ValidTag(x.Tag) {
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
			out := ops.SanitizeArtifacts(d)
			if len(out) > ops.MaxArtifacts {
				t.Fatalf("%d artifacts kept", len(out))
			}
			for _, a := range out {
				if len([]rune(a.Item)) >= ops.MaxArtifactItem || len([]rune(a.Evidence)) >= ops.MaxArtifactEvid || !ops.IsArtifactType(a.Type) {
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
			for _, e := range ops.SanitizeEvents(d) {
				if len([]rune(e.Evidence)) >= ops.MaxEventField || (e.NormalizedDate != "" && ops.NormalizeDate(e.NormalizedDate) == "") {
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
			if out := ops.SanitizeStates(d); len(out) > ops.MaxStates {
				t.Fatalf("%d states kept", len(out))
			}
		}
		var vs []verdictJSON
		if decodeReply(reply, &vs) == nil {
			verdicts([]AuditPair{{ID: "0"}, {ID: "1"}}, vs)
		}
		var tags flexStrings
		_ = decodeReply(reply, &tags)
		if s := (ops.Limits{PathSummary: 40}).ClipPathSummary(cleanPathSummary(reply)); utf8.RuneCountInString(s) > 40 {
			t.Fatalf("path summary over the configured 40 characters: %q", s)
		}
		ops.ParseNumber(reply)
	})
}

// FuzzQuestionDates: the offline profile's date reading of a question
// never panics on any text.
func FuzzQuestionDates(f *testing.F) {
	for _, s := range []string{"what did I do on 25 May, 2022?", "in mid-May 2023 or on May 40", ""} {
		f.Add(s)
	}
	now := time.Date(2024, 5, 15, 18, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string) {
		in := dialog.Interaction{ID: "f", Time: now, Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: text}}}
		questionDates(text, &Forest{Nodes: []*Node{{Interaction: in}}, byTime: []int{0}})
	})
}
