package answer

import (
	"reflect"
	"testing"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// TestSpanCacheSameAsFresh: an analysis built from span analyses cached
// under another rendering of the same turns (a baseline's "user:" where an
// ArborMem node says "User:") equals the analysis made from nothing.
func TestSpanCacheSameAsFresh(t *testing.T) {
	tests := []struct{ seen, text string }{
		{"[2025-01-01 10:00] user: We moved to Oslo.\nassistant: Great, Oslo is new. The budget is now $400.",
			"[2025-01-01 10:00] User: We moved to Oslo.\nAssistant: Great, Oslo is new. The budget is now $400."},
		{"user: Rank them.\nassistant: 1) Harbor Point — lively.\n2) Elm Heights — quiet.\n- a bullet",
			"[2025-06-16 20:43] User: Rank them.\nAssistant: 1) Harbor Point — lively.\n2) Elm Heights — quiet.\n- a bullet\nAnd one more line on 3 May."},
		{"", "Nothing seen before: who switched the venue?"},
		{"same text twice. same text twice.", "same text twice. same text twice."},
	}
	for _, tt := range tests {
		textmemo.ResetAll()
		analyse(tt.seen)
		got := analyse(tt.text)
		textmemo.ResetAll()
		want := analyse(tt.text)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("analyse(%q) after analyse(%q) = %+v, fresh %+v", tt.text, tt.seen, got, want)
		}
		if len(got.spans) == 0 {
			t.Errorf("analyse(%q): no spans", tt.text)
		}
	}
}
