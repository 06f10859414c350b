package index

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// checkLineWise fails unless Analyze and ContentWords, which analyse line by
// line through the memo, equal bleve's analyzers run over the whole text
// (as both were before), on a first sight of text and from the memo.
func checkLineWise(t *testing.T, text string) {
	t.Helper()
	a := mustAnalyzers()
	stems, words := terms(a.stemmed, text), terms(a.content, text)
	for _, pass := range []string{"first", "remembered"} {
		if got := Analyze(text); !slices.Equal(got, stems) {
			t.Fatalf("%s Analyze(%q) = %q, whole-text analysis %q", pass, text, got, stems)
		}
		if got := ContentWords(text); !slices.Equal(got, words) {
			t.Fatalf("%s ContentWords(%q) = %q, whole-text analysis %q", pass, text, got, words)
		}
		// Appended after what the buffers hold.
		w, st := AppendAnalysis([]string{"x"}, []string{"y", "z"}, text)
		if !slices.Equal(w[1:], words) || !slices.Equal(st[2:], stems) || w[0] != "x" || st[0] != "y" || st[1] != "z" {
			t.Fatalf("%s AppendAnalysis(%q) = %q, %q, whole-text analysis %q, %q", pass, text, w[1:], st[2:], words, stems)
		}
		if got := appendTerms([]string{"y"}, text, true); !slices.Equal(got[1:], stems) || got[0] != "y" {
			t.Fatalf("%s appendTerms(%q, stemmed) = %q, whole-text analysis %q", pass, text, got[1:], stems)
		}
		if got := appendTerms([]string{"x"}, text, false); !slices.Equal(got[1:], words) || got[0] != "x" {
			t.Fatalf("%s appendTerms(%q) = %q, whole-text analysis %q", pass, text, got[1:], words)
		}
	}
}

// lineBreaks are the characters UAX #29 puts in the CR, LF and Newline
// classes (and CR LF), every one of which bleve's tokenizer breaks around.
// Analyze splits only at "\n"; the others are checked to be left intact.
var lineBreaks = []string{"\n", "\r\n", "\r", "\n\r", "\v", "\f", "\u0085", "\u2028", "\u2029", "\n\n", " \n "}

// TestLineWise joins fragments that end or start where a token could
// straddle the break (possessives, apostrophes, decimal points,
// combining marks, Katakana, Hebrew quotes, regional-indicator pairs,
// stop words, invalid UTF-8) with every line break, and checks the
// line-wise analysis against bleve's over the whole text.
func TestLineWise(t *testing.T) {
	frags := []string{"", "John", "'s dogs", "John'", "s", "1,", "5 apples", "3.", "14", "a.", "b",
		"\u0301b", "ca\u0301", "カタ", "カナ", "\u05d0\"", "\u05d1", "🇺", "🇸", "👩\u200d", "💻", "The", "the",
		"ÉCOLE naïve Straße", "running_", "_fast", "日本", "語", "\xff", "ok \xfe", "\r", "\n", "Caroline’",
		"s LGBTQ group on 8 May, 2023", "don", "'t", "it's 3.14, don't", "\u200b", "\ufeffword"}
	for _, a := range frags {
		for _, b := range frags {
			for _, br := range lineBreaks {
				checkLineWise(t, a+br+b)
			}
		}
	}
	long := strings.Repeat("Melanie painted a sunrise over the lake; ", maxMemoLine/30) // one line past the memo's bound
	for _, s := range []string{
		long, long + "\n" + long, "fact one\n" + long + "\nfact two",
		strings.Join(chatTurns(50, 5), "\n"), strings.Join(chatTurns(50, 6), "\r\n"),
		"\n\n\n", "trailing\n", "\nleading", strings.Repeat("a\n", 3000),
	} {
		checkLineWise(t, s)
	}
}

// FuzzLineWise: for any two texts, the line-wise analysis of the first and
// of the two joined by a line break equals bleve's over the whole text.
func FuzzLineWise(f *testing.F) {
	for i, s := range [][2]string{{"John", "'s dogs"}, {"1,", "5"}, {"a", "\u0301b"}, {"カタ", "カナ"}, {"ok", "\xff"}, {"The dog.", "the cat"}} {
		f.Add(s[0], s[1], uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b string, br uint8) {
		if len(a)+len(b) > 4096 {
			return // TestLineWise covers long lines
		}
		// A first sight of the texts every time, so that coverage does not
		// depend on what earlier inputs left in the memos (the fuzzer
		// would otherwise spend its time minimising coverage that does
		// not come back).
		textmemo.ResetAll()
		checkLineWise(t, a)
		checkLineWise(t, a+lineBreaks[int(br)%len(lineBreaks)]+b)
	})
}

// TestStemMemo: a remembered stem is the stemmer's, for words short enough
// to be remembered and longer ones.
func TestStemMemo(t *testing.T) {
	for _, w := range []string{"running", "ponies", "caresses", "happy", "a", "", "relational", strings.Repeat("generalization", 4), "naïveté", "\xff\xfeing"} {
		for range 2 {
			if got, want := Stem(w), porterStem(w); got != want {
				t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
			}
		}
	}
}

// labelSeps join a label to its text: ": " splits when the text starts
// with printable ASCII; the others never split.
var labelSeps = []string{": ", ":", ":  ", ": \u0301", " : ", ":\t", ": \n"}

// TestLabelSplit: labelled lines ("user: …", "Path: …") whose text could
// join the label's tokens or its own first token to the space (possessive
// and other apostrophes, decimal points, combining marks, connectors,
// quotes) analyse as bleve does over the whole line, on a first sight,
// after the bare text was analysed, and after the labelled line was.
func TestLabelSplit(t *testing.T) {
	labels := []string{"user", "Path", "Node", "Topic", "Entities", "a", "S", "Caroline", "http", "don", "O", strings.Repeat("x", maxLabel), strings.Repeat("x", maxLabel+1)}
	texts := []string{"hello there", "'s dogs", "'t", "1.5 apples", ".5", "-x", "_x", "x_", "\"quoted\"", "(aside)", "$18,500",
		"A; B; C", "\u0301b", "'", "s", "The the THE", "running home: again", "user: nested", "Path: x\nsecond line", "~", "!", "e.g. this", "’s"}
	for _, x := range texts {
		// The first label's lines are a first sight of every part, the
		// others' of the whole line, after the bare text was analysed too.
		textmemo.ResetAll()
		for _, l := range labels {
			for _, sep := range labelSeps {
				line := l + sep + x
				checkLineWise(t, line)
				checkLineWise(t, x)
				checkLineWise(t, "before\n"+line+"\nafter")
			}
		}
	}
	for _, c := range []struct {
		line, label, rest string
		ok                bool
	}{
		{"user: hi", "user:", "hi", true},
		{"Path: 'x", "Path:", "'x", true},
		{"user:  hi", "", "", false},
		{"user: ", "", "", false},
		{": hi", "", "", false},
		{"us er: hi", "", "", false},
		{"user: \u00e9", "", "", false},
		{strings.Repeat("x", maxLabel) + ": hi", strings.Repeat("x", maxLabel) + ":", "hi", true},
		{strings.Repeat("x", maxLabel+1) + ": hi", "", "", false},
	} {
		label, rest, ok := labelSplit(c.line)
		if label != c.label || rest != c.rest || ok != c.ok {
			t.Errorf("labelSplit(%q) = %q, %q, %v; want %q, %q, %v", c.line, label, rest, ok, c.label, c.rest, c.ok)
		}
	}
}

// FuzzLabelSplit: a labelled line analyses as bleve does over the whole
// line, on a first sight and after its bare text was analysed.
func FuzzLabelSplit(f *testing.F) {
	for i, s := range [][2]string{{"user", "hello"}, {"Path", "'s x"}, {"Node", "\u0301x"}, {"A", "1.5"}, {"Topic", "-x"}, {"Entities", "A; B"}, {"x", "_y"}} {
		f.Add(s[0], s[1], uint8(i))
	}
	f.Fuzz(func(t *testing.T, label, text string, sep uint8) {
		if len(label)+len(text) > 4096 {
			return
		}
		line := label + labelSeps[int(sep)%len(labelSeps)] + text
		textmemo.ResetAll()
		checkLineWise(t, line)
		textmemo.ResetAll()
		checkLineWise(t, text)
		checkLineWise(t, line)
	})
}

// memoHeap returns the live heap after filling the short-line memo with
// lines (all of them analysed, more than it has slots).
func memoHeap(lines []string) uint64 {
	textmemo.ResetAll()
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	before := m.HeapAlloc
	for _, l := range lines {
		analyzeLineMemo(l)
	}
	runtime.GC()
	runtime.ReadMemStats(&m)
	textmemo.ResetAll()
	return m.HeapAlloc - min(before, m.HeapAlloc)
}

// TestShortLineMemoBound: the short-line memo full of chat lines, and of
// the worst lines we could make for it (maxShortLine bytes of one- or
// three-letter words, the three-letter ones all stemming differently),
// holds what its comment says. Under the race detector the worst lines
// measure about 20.5 MiB instead of 18.7, still within the bound, so CI
// (which runs -race) checks it too.
func TestShortLineMemoBound(t *testing.T) {
	var chat, ones, threes []string
	for _, s := range chatTurns(3*shortLineMemoSlots, 31) {
		if len(s) > maxShortLine {
			s = s[:maxShortLine]
		}
		chat = append(chat, s)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	letter := func() byte { return byte('b' + rng.IntN(24)) }
	for range 2 * shortLineMemoSlots {
		var a, b strings.Builder
		for a.Len()+2 <= maxShortLine {
			a.WriteByte(letter())
			a.WriteByte(' ')
		}
		for b.Len()+5 <= maxShortLine {
			b.Write([]byte{letter(), letter(), letter(), 's', ' '})
		}
		ones, threes = append(ones, a.String()), append(threes, b.String())
	}
	for _, c := range []struct {
		name  string
		lines []string
		max   uint64
	}{{"chat", chat, 10 << 20}, {"one-letter words", ones, 24 << 20}, {"three-letter words", threes, 24 << 20}} {
		got := memoHeap(c.lines)
		t.Logf("%s: %.1f MiB", c.name, float64(got)/(1<<20))
		if got > c.max {
			t.Errorf("%s: the full short-line memo holds %.1f MiB, more than %.0f MiB", c.name, float64(got)/(1<<20), float64(c.max)/(1<<20))
		}
	}
}
