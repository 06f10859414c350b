package benchinput

import (
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/dialog"
)

func TestBeamSized(t *testing.T) {
	ins, err := BeamSized(12, 150, 600)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 12 {
		t.Fatalf("got %d interactions, want 12", len(ins))
	}
	seen := map[string]bool{}
	for i, in := range ins {
		if seen[in.ID] {
			t.Errorf("interaction %d: ID %q repeated", i, in.ID)
		}
		seen[in.ID] = true
		if len(in.Turns) != 2 || in.Turns[0].Role != dialog.RoleUser || in.Turns[1].Role != dialog.RoleAssistant {
			t.Fatalf("interaction %d: want a user turn then an assistant turn, got %+v", i, in.Turns)
		}
		// Whole turns are joined until the count is reached, so a text is at
		// least that long and only one (short) turn longer.
		for j, want := range []int{150, 600} {
			if n := len(strings.Fields(in.Turns[j].Content)); n < want || n > 3*want {
				t.Errorf("interaction %d turn %d: %d words, want %d to %d", i, j, n, want, 3*want)
			}
		}
		if i > 0 && !in.Time.After(ins[i-1].Time) {
			t.Errorf("interaction %d: time %v not after %v", i, in.Time, ins[i-1].Time)
		}
	}
	if ins[9].Session == ins[10].Session {
		t.Errorf("interactions 9 and 10 share session %q; sessions hold ten", ins[9].Session)
	}
	if ProcessCPU() <= 0 {
		t.Errorf("ProcessCPU() = %v after building inputs", ProcessCPU())
	}
}
