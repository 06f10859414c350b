package jsonx

import (
	"encoding/json"
	"testing"
)

func TestExtract(t *testing.T) {
	cases := []struct {
		name, in, want string
		err            bool
	}{
		{"plain object", `{"a": 1}`, `{"a": 1}`, false},
		{"fenced", "```json\n[{\"fact\": \"x\"}]\n```", `[{"fact": "x"}]`, false},
		{"fence without language", "```\n{\"a\":2}\n```", `{"a":2}`, false},
		{"prose around", `Sure! Here it is: {"summary": "s", "entities": []} Hope this helps.`, `{"summary": "s", "entities": []}`, false},
		{"trailing comma array", `[1, 2, 3,]`, `[1, 2, 3]`, false},
		{"trailing comma object", `{"a": 1, "b": [1,],}`, `{"a": 1, "b": [1]}`, false},
		{"python literals", `{"a": True, "b": None, "c": False}`, `{"a": true, "b": null, "c": false}`, false},
		{"truncated in string", `[{"fact": "a"}, {"fact": "b is cut`, `[{"fact": "a"}]`, false},
		{"truncated after key", `{"summary": "s", "entities": ["x", "y"], "extra":`, `{"summary": "s", "entities": ["x", "y"]}`, false},
		{"truncated number", `[1, 2, 3`, `[1, 2]`, false},
		{"truncated nested", `{"a": [{"b": 1}, {"c": 2`, `{"a": [{"b": 1}]}`, false},
		{"escaped quotes", `{"q": "he said \"hi\"", }`, `{"q": "he said \"hi\""}`, false},
		{"no json", `I cannot answer that.`, ``, true},
		{"opening only", `[`, ``, true},
		{"garbage", `{:::}`, ``, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Extract(c.in)
			if c.err {
				if err == nil {
					t.Fatalf("want error, got %q", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("invalid JSON %q", got)
			}
			var g, w any
			_ = json.Unmarshal([]byte(got), &g)
			_ = json.Unmarshal([]byte(c.want), &w)
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Fatalf("got %s, want %s", gb, wb)
			}
		})
	}
}

func TestUnmarshalTyped(t *testing.T) {
	var facts []struct {
		Fact string `json:"fact"`
		Tag  string `json:"attribute_tag"`
	}
	err := Unmarshal("```json\n[{\"fact\": \"User lives in Porto\", \"attribute_tag\": \"1.0\"},\n {\"fact\": \"User has a d", &facts)
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Fact != "User lives in Porto" || facts[0].Tag != "1.0" {
		t.Fatalf("got %+v", facts)
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n[1,2,", `[{"x": "y"},`, `{"a": [True, None,]}`, `"str"`, `}{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Extract(s)
		if err == nil && !json.Valid([]byte(out)) {
			t.Fatalf("Extract(%q) returned invalid JSON %q", s, out)
		}
	})
}

// TestUnmarshalBracketsInProse: brackets in the prose before the JSON (a
// citation, a note) must not hide the JSON after them; a complete value of
// the wrong shape is not searched inside.
func TestUnmarshalBracketsInProse(t *testing.T) {
	type obj struct {
		A int `json:"a"`
	}
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{`Based on turn [3], here: {"a": 1}`, 1, true},
		{`I see [note] then {"a": 2}`, 2, true},
		{"```json\n{\"a\": 3}\n```", 3, true},
		{`[{"a": 4}]`, 0, false}, // an array is not the object asked for
		{`{"a": "x"}`, 0, false},
	} {
		var v obj
		err := Unmarshal(tc.in, &v)
		if (err == nil) != tc.ok || v.A != tc.want {
			t.Errorf("Unmarshal(%q) = %+v, %v; want a=%d ok=%v", tc.in, v, err, tc.want, tc.ok)
		}
	}
}

// TestStripReasoningInvalidUTF8: offsets found in the lower-cased reply must
// be offsets in the reply (found by FuzzJudgeReplies: strings.ToLower grows
// an invalid byte into three).
func TestStripReasoningInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{"000\xff</think>": "", "\xffA</THINK> yes": " yes", "ok \xff<Think> maybe": "ok \xff"} {
		if got := StripReasoning(in); got != want {
			t.Errorf("StripReasoning(%q) = %q, want %q", in, got, want)
		}
	}
}
