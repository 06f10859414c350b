package index

import (
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
