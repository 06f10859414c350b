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
