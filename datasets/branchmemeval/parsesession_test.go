package branchmemeval

import (
	"reflect"
	"testing"
)

// TestParseSessionFastSame: the one-pass decode of a session gives what
// the turn-by-turn decode gives, and declines (so that the turn-by-turn
// decode names the fault) wherever that one fails; parseSession's result
// is always the turn-by-turn decode's (a superseded "turns" with an unknown
// field: the fast decode declines, the turn-by-turn one accepts).
func TestParseSessionFastSame(t *testing.T) {
	const turn = `{"id":"s-t1","time":"2025-05-20T17:42:00Z","user":"Hi.","assistant":"Hello."}`
	const q = `{"id":"s-t2","time":"2025-05-20T17:43:00Z","user":"Which?","assistant":"That.","question":{"id":"s-q1","gold":"That","confounder":"This"}}`
	tests := []struct {
		raw    string
		wantOK bool
	}{
		{`{"id":"s","turns":[` + turn + `,` + q + `]}`, true},
		{`{"id":"s","turns":[]}`, true},
		{`{"id":"s"}`, true},
		{`{"id":"s","turns":null}`, true},
		{`{"id":"s","turns":[{"id":"x","time":"2025-05-20T17:42:00Z","user":"u","assistant":"a","question":{"id":"q","gold":"g"},"extra":1}],"turns":[` + turn + `]}`, false},
		{`{"id":"s","turns":[` + q + `],"turns":[` + turn + `]}`, true}, // the last "turns" counts, decoded from zero
		{`{"id":"s","turns":[` + turn + `],"more":1}`, false},
		{`{"id":"s","turns":[{"id":"s-t1","time":"2025-05-20T17:42:00Z","user":"Hi.","assistant":"Hello.","x":1}]}`, false},
		{`{"id":"","turns":[` + turn + `]}`, false},
		{`{"id":"s","turns":[{"id":"s-t1","user":"Hi.","assistant":"Hello."}]}`, false},
		{`{"id":"s","turns":[{"id":"s-t1","time":"2025-05-20T17:42:00Z","user":" ","assistant":"Hello."}]}`, false},
		{`{"id":"s","turns":[{"id":"s-t1","time":"2025-05-20T17:42:00Z","user":"Hi.","assistant":"Hello.","question":{"id":"q","gold":""}}]}`, false},
		{`{"id":"s","turns":[` + turn + `]} x`, false},
		{`{"id":"s","turns":{}}`, false},
		{`[]`, false},
	}
	for _, tt := range tests {
		var fast, slow Session
		ok := parseSessionFast([]byte(tt.raw), &fast)
		err := parseSessionByTurn([]byte(tt.raw), 0, "f.json", &slow)
		if ok != tt.wantOK || (ok && err != nil) {
			t.Errorf("%s: fast ok %v, by turn error %v, want ok %v", tt.raw, ok, err, tt.wantOK)
			continue
		}
		if ok && !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: fast %+v, by turn %+v", tt.raw, fast, slow)
		}
		var got Session
		gerr := parseSession([]byte(tt.raw), 0, "f.json", &got)
		if (gerr == nil) != (err == nil) || (err == nil && !reflect.DeepEqual(got, slow)) || (err != nil && gerr.Error() != err.Error()) {
			t.Errorf("%s: parseSession %+v, %v; want %+v, %v", tt.raw, got, gerr, slow, err)
		}
	}
}
