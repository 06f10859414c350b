package jsonx

import "testing"

// TestReasoningAndTruncatedObjects: JSON inside a reasoning block is not
// the reply, and an object cut after a complete string value is repaired.
func TestReasoningAndTruncatedObjects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<think>maybe {\"a\": 1? no</think>\n{\"a\": 2}", `{"a": 2}`},
		{"reasoning without an opening tag</think>{\"a\": 3}", `{"a": 3}`},
		{"{\"a\": 4}<think>cut off while thinking {", `{"a": 4}`},
		{`{"reason": "same", "label": "WRONG"`, `{"reason": "same", "label": "WRONG"}`},
		{`{"a": "x", "b": "trunc`, `{"a": "x"}`},
	} {
		got, err := Extract(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Extract(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestLastCompleteValueOfTheShape: a stray brace or an example object in
// the prose does not hide the real answer after it.
func TestLastCompleteValueOfTheShape(t *testing.T) {
	type verdict struct {
		Label string `json:"label"`
	}
	for _, tc := range []struct{ in, want string }{
		{`Thinking about it { not json at all. {"label": "WRONG"}`, "WRONG"},
		{`The format is {"label": "CORRECT"} but here: {"label": "WRONG"}`, "WRONG"},
		{`{"label": "WRONG"} {"note": "an object of another shape"}`, "WRONG"},
		{`{"outer": {"label": "inner"}, "label": "OUTER"}`, "OUTER"},
	} {
		var v verdict
		if err := Unmarshal(tc.in, &v); err != nil || v.Label != tc.want {
			t.Errorf("Unmarshal(%q) = %+v, %v; want label %s", tc.in, v, err, tc.want)
		}
	}
	var list []int
	if err := Unmarshal(`first {"a": 1} then [1, 2] and finally [3]`, &list); err != nil || len(list) != 1 || list[0] != 3 {
		t.Errorf("last array: %v, %v", list, err)
	}
}
