package arbormem

import (
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/text"
)

// checkEmbedClip compares embedClip's shortcut with text.ClipRunes (or no clip
// at all when embed_max_chars is 0).
func checkEmbedClip(t *testing.T, txt string, n int) {
	t.Helper()
	s := &System{cfg: config.ArborMem{EmbedMaxChars: n}}
	want := txt
	if n > 0 {
		want = text.ClipRunes(txt, n)
	}
	if got := s.embedClip(txt); got != want {
		t.Fatalf("embedClip(%q) with embed_max_chars %d = %q, want %q", txt, n, got, want)
	}
}

func TestEmbedClip(t *testing.T) {
	for _, c := range []struct {
		text string
		n    int
	}{
		{"  a fact  \n", 0},
		{"  a fact  \n", 12},
		{"  a fact  \n", 11}, // as many bytes as the limit
		{"  a fact  \n", 5},
		{"Zoë's café in Zürich", 20}, // more bytes than runes
		{"Zoë's café in Zürich", 23},
		{strings.Repeat("word ", 3000), 12000},
		{"", 3},
	} {
		checkEmbedClip(t, c.text, c.n)
	}
}

func FuzzEmbedClip(f *testing.F) {
	f.Add(" a fact\nUser: hi ", 9)
	f.Add("Zoë's café", 10)
	f.Fuzz(func(t *testing.T, text string, n int) {
		checkEmbedClip(t, text, n%64)
	})
}
