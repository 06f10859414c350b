package openaifake

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMem0Reply(t *testing.T) {
	additive := Request{Messages: []Message{
		{Role: "system", Content: "# ROLE\n\nYou are a Memory Extractor — a precise, evidence-bound processor"},
		{Role: "user", Content: "## Summary\n\n## Last k Messages\nuser: old\n\n## Existing Memories\n[]\n\n## New Messages\nuser: I booked the Hotel Avenida.\nIt is in Lisbon.\nassistant: Nice choice.\n\n## Observation Date\n2026-11-23\n\n# Output:"},
	}}
	facts := Request{Messages: []Message{
		{Role: "system", Content: "You are a Personal Information Organizer, specialized in ..."},
		{Role: "user", Content: "Input:\nuser: My car is a blue Corolla\nassistant: Noted."},
	}}
	update := Request{Messages: []Message{{Role: "user", Content: "You are a smart memory manager which controls the memory of a system. Compare newly retrieved facts with the existing memory.\n" +
		"Below is the current content of my memory:\n```\n[{'id': '0', 'text': 'My car is a red Corolla'}, {'id': '1', 'text': 'Likes tea'}]\n```\n" +
		"The new retrieved facts are mentioned in the triple backticks.\n```\n[\"My car is a blue Corolla\", \"Lives in Porto\"]\n```"}}}
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"additive", additive, `{"memory":[{"id":"0","text":"User said: I booked the Hotel Avenida. It is in Lisbon.","attributed_to":"user"},{"id":"1","text":"Assistant said: Nice choice.","attributed_to":"assistant"}]}`},
		{"facts", facts, `{"facts":["My car is a blue Corolla"]}`},
		{"update", update, `{"memory":[{"id":"0","text":"My car is a blue Corolla","event":"UPDATE","old_memory":"My car is a red Corolla"},{"id":"1","text":"Likes tea","event":"NONE"},{"id":"2","text":"Lives in Porto","event":"ADD"}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Mem0Reply(c.req)
			if !ok || got != c.want {
				t.Errorf("Mem0Reply = %v %s\nwant %s", ok, got, c.want)
			}
		})
	}
	if _, ok := Mem0Reply(Request{Messages: []Message{{Role: "user", Content: "What hotel did I book?"}}}); ok {
		t.Error("an ordinary prompt was taken for Mem0's")
	}
	// The server uses it before its echo.
	srv := New(Options{})
	defer srv.Close()
	if got := srv.reply(facts); !strings.HasPrefix(got, `{"facts":`) {
		t.Errorf("server reply %q", got)
	}
}

// FuzzMem0Reply: any prompt that looks like Mem0's gets well-formed JSON,
// and none crashes the fake.
func FuzzMem0Reply(f *testing.F) {
	f.Add("Memory Extractor", "## New Messages\nuser: hi\nassistant: yo\n## Observation Date")
	f.Add("Personal Information Organizer", "Input:\nuser: a\nuser:\nb")
	f.Add("", "smart memory manager Compare newly retrieved facts ```[{'id': '0', 'text': 'x'}]``` ```['y', \"z\\\"\"]```")
	f.Add("", "smart memory manager Compare newly retrieved facts ``` ``` ```")
	f.Fuzz(func(t *testing.T, system, user string) {
		got, ok := Mem0Reply(Request{Messages: []Message{{Role: "system", Content: system}, {Role: "user", Content: user}}})
		if ok && !json.Valid([]byte(got)) {
			t.Fatalf("invalid JSON %q", got)
		}
	})
}
