package local

import (
	"context"
	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// sameBits reports whether a and b are equal bit for bit.
func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// checkTail compares the shared-tail path with building the text whole.
func checkTail(t testing.TB, dim int, head, tail string) {
	t.Helper()
	e := NewEmbedder(dim)
	text := head + "\n" + tail
	want := refVector(index.ContentWords(text), dim)
	got := e.vectorWithTail(head, newTailState(tail, dim))
	if !sameBits(got, want) {
		t.Fatalf("dim %d, head %q, tail %q: shared-tail vector differs from the whole text's", dim, head, tail)
	}
	if got := e.vector(text); !sameBits(got, want) {
		t.Fatalf("dim %d, text %q: vector differs from the reference", dim, text)
	}
	if !sameBits(e.directVector(text), want) {
		t.Fatalf("dim %d, text %q: direct build differs from the reference", dim, text)
	}
}

// directVector is the embedding of text built from its words directly,
// whatever its length: as the head of an empty tail, with no state.
func (e *Embedder) directVector(text string) []float32 {
	sc := e.scratch()
	defer sc.put()
	return e.countCombine(sc, index.ContentWords(text), index.Analyze(text))
}

func TestSharedTailBitIdentical(t *testing.T) {
	src := "user: I adopted a rescue greyhound named Biscuit in May 2023, and we walk 5 km every morning.\n" +
		"assistant: Congratulations on adopting Biscuit! Greyhounds love short sprints; 5 km of walking is plenty."
	cases := []struct{ name, head, tail string }{
		{"fact from the tail", "The user adopted a greyhound named Biscuit.", src},
		{"head repeats tail words", "Biscuit Biscuit walk walk walking greyhound", src},
		{"head of stop words only", "and the of it", src},
		{"empty head", "", src},
		{"tail of stop words only", "Biscuit runs", "and the of it\nit is"},
		{"empty tail", "Biscuit runs", ""},
		{"both empty", "", ""},
		{"blank lines", "a fact", "\n\nuser: x\n\n"},
		{"carriage returns", "fact one\r", "\r\nuser: walks\r\nassistant: runs"},
		{"non-ASCII", "Zoë's café in Zürich", "user: Ich wohne in Zürich, café au lait, 東京 and naïve résumé"},
		{"numbers and punctuation", "paid $1,200.50 on 2024-03-15", "user: the 3rd payment of $1,200.50, at 10:30am; 15% off"},
	}
	for _, c := range cases {
		for _, dim := range []int{7, 64, DefaultDim, 1024} { // 7 makes most features collide
			t.Run(c.name, func(t *testing.T) { checkTail(t, dim, c.head, c.tail) })
		}
	}
}

func TestEmbedSharesTails(t *testing.T) {
	e := NewEmbedder(DefaultDim)
	tail := strings.Repeat("user: we planned the garden beds and the tomato seedlings.\n", 25)
	// Invalid UTF-8 next to the newline is built whole: the segmenter
	// reads "a\xcb\nb" as one word.
	heads := []string{"The user plans garden beds.", "Tomatoes need sun.", "", "a\xcb", "\xe2\x80"}
	var texts []string
	for _, h := range heads {
		texts = append(texts, h+"\n"+tail)
	}
	texts = append(texts, "unshared\n"+tail+"x", "no newline")
	if got := len(e.sharedTails(texts)); got != 1 {
		t.Fatalf("%d shared tails, want 1", got)
	}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if !sameBits(vs[i], refVector(index.ContentWords(text), DefaultDim)) {
			t.Fatalf("text %d: Embed's vector differs from the whole text's", i)
		}
	}
}

func FuzzSharedTail(f *testing.F) {
	f.Add("The user adopted a greyhound.", "user: I adopted a greyhound named Biscuit.\nassistant: Lovely!", uint8(7))
	f.Add("", "a b c", uint8(1))
	f.Add("x\r", "\ny", uint8(3))
	f.Add("naïve café", "Zürich 東京\u2028line", uint8(200))
	f.Fuzz(func(t *testing.T, head, tail string, d uint8) {
		if strings.Contains(head, "\n") || !utf8.ValidString(head) || !utf8.ValidString(tail) {
			return // the head is the text's first line; vector splits only valid UTF-8
		}
		checkTail(t, int(d)+1, head, tail)
	})
}

func BenchmarkEmbedSharedTail(b *testing.B) {
	tail := strings.Repeat("user: we planned the garden beds, the tomato seedlings and 12 rows of beans in May.\n", 40)
	facts := []string{"The user plans garden beds.", "The user grows tomato seedlings.", "The user plants 12 rows of beans in May."}
	var texts []string
	for _, f := range facts {
		texts = append(texts, f+"\n"+tail)
	}
	e := NewEmbedder(DefaultDim)
	// Each run sees the texts for the first time, as a commit does (the
	// memos would otherwise hand both sides their earlier results).
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			textmemo.ResetAll()
			for _, t := range texts {
				e.directVector(t)
			}
		}
	})
	b.Run("shared", func(b *testing.B) {
		for b.Loop() {
			textmemo.ResetAll()
			if _, err := e.Embed(context.Background(), texts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A commit embeds its interaction for the node ("user: …") and then as the
// facts' shared tail ("User: …"): the node is counted directly and the
// facts share one state of the tail, and every vector stays the
// reference's.
func TestNodeThenSharedTail(t *testing.T) {
	e := NewEmbedder(DefaultDim)
	body := strings.Repeat("We planned the garden beds, 12 rows of beans and the tomato seedlings. ", 18)
	node := "user: " + body + "\nassistant: Sounds good."
	lines := "User: " + strings.TrimSpace(body) + "\nAssistant: Sounds good."
	if got, want := e.vector(node), refVector(index.ContentWords(node), DefaultDim); !sameBits(got, want) {
		t.Fatal("node vector differs from the reference")
	}
	facts := []string{"The user plants 12 rows of beans.", "Tomatoes."}
	texts := []string{facts[0] + "\n" + lines, facts[1] + "\n" + lines}
	if n := len(e.sharedTails(texts)); n != 1 {
		t.Fatalf("%d shared tails, want 1", n)
	}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if want := refVector(index.ContentWords(text), DefaultDim); !sameBits(vs[i], want) {
			t.Fatalf("fact %d: vector differs from the reference", i)
		}
	}
}
