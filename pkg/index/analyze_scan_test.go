package index

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/segment"
)

// checkScan fails unless scanWords either declines line or gathers what
// segmentWords, the segmenter's path it stands in for, gathers.
func checkScan(t *testing.T, line string) (scanned bool) {
	t.Helper()
	got, want := segPool.New().(*segScratch), segPool.New().(*segScratch)
	if !scanWords(line, got) {
		if len(got.words) > 0 {
			t.Fatalf("scanWords(%q) declined after gathering %q", line, got.words)
		}
		return false
	}
	if !segmentWords(line, want) {
		t.Fatalf("scanWords(%q) read a line the segmenter fails on", line)
	}
	if !slices.Equal(got.words, want.words) || !slices.Equal(got.stems, want.stems) || !slices.Equal(got.changed, want.changed) {
		t.Fatalf("scanWords(%q) = %q, stems %q at %v; segmenter %q, stems %q at %v",
			line, got.words, got.stems, got.changed, want.words, want.stems, want.changed)
	}
	return true
}

// scanAlphabet holds every class the scanner tells apart, with letters
// that make stop words ("a", "I", "s" for possessives), and characters it
// must decline (a combining mark, a letter, the curly apostrophe, which
// is MidNumLet, a Format character).
var scanAlphabet = []string{"a", "S", "s", "I", "1", "_", ":", ".", "'", ",", ";", "\"", " ", "-", "\n", "\r", "\v",
	"\t", "—", "…", "“", "\u0301", "é", "’", "\u00ad"}

// scanCore are the characters whose neighbours decide what the scanner
// joins: letters, digits, the connector, the middle characters, and
// characters that join nothing.
var scanCore = []string{"a", "S", "1", "_", ":", ".", "'", ",", " ", "—"}

// TestScanWords compares the scanner with the segmenter on every string of
// up to three characters of scanAlphabet, of up to four of scanCore, and
// on random longer ones.
func TestScanWords(t *testing.T) {
	var walk func(alphabet []string, prefix string, depth int)
	scanned, declined := 0, 0
	walk = func(alphabet []string, prefix string, depth int) {
		if checkScan(t, prefix) {
			scanned++
		} else {
			declined++
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			walk(alphabet, prefix+c, depth-1)
		}
	}
	walk(scanAlphabet, "", 3)
	walk(scanCore, "", 4)
	if scanned == 0 || declined == 0 {
		t.Fatalf("the scanner read %d lines and declined %d; want some of each", scanned, declined)
	}
	r := rand.New(rand.NewPCG(7, 11))
	words := []string{"John's", "it's", "don't", "3.14", "1,000", "e.g.", "U.S.A.", "11:30", "a:b", "x_y", "_", "__init__",
		"THE", "The", "and", "Caroline's", "running", "ponies", "abc123", "12ab", "1.a", "a.1", "v2.0", "'s", "s'", "''", "..."}
	seps := []string{" ", ", ", ". ", " — ", "—", "…", "\t", " (", ") ", "\"", "; ", ": ", "-", "/"}
	for range 3000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		checkScan(t, b.String())
	}
	for _, line := range chatTurns(200, 9) {
		if !checkScan(t, line) {
			t.Fatalf("the scanner declined the chat line %q", line)
		}
	}
}

// TestScanOther: each character scanOther accepts is, to the segmenter,
// a segment of its own that carries no term, whatever is around it.
func TestScanOther(t *testing.T) {
	for r := rune(0x80); r <= 0xffff; r++ {
		if !scanOther(r) {
			continue
		}
		c := string(r)
		for _, ctx := range []string{"a%sb", "1%s2", "_%s_", "%s", "%s%s", "a'%s", "%s's", "a%s\u0301", "\u05d0%s"} {
			s := strings.ReplaceAll(ctx, "%s", c)
			segs, types, _, err := segment.SegmentWordsDirect([]byte(s), nil, nil)
			if err != nil {
				t.Fatalf("segmenting %q: %v", s, err)
			}
			for i, seg := range segs {
				if strings.Contains(string(seg), c) && (string(seg) != c || types[i] != segment.None) {
					t.Errorf("%U in %q: segment %q of type %d, want %q alone of type None", r, s, seg, types[i], c)
				}
			}
		}
	}
}

// FuzzScanWords: on any line, the scanner declines or agrees with the
// segmenter.
func FuzzScanWords(f *testing.F) {
	for _, s := range []string{"John's 3.14 dogs", "e.g. a:b, 1,000; x_y", "Great — the venue…", "naïve", "it’s", "THE end's"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !utf8.ValidString(line) || strings.Contains(line, "\n") {
			return // lineWords reads one line of valid UTF-8
		}
		checkScan(t, line)
	})
}

// BenchmarkLineWords is the analysis of chat lines on first sight (the
// memos are not in it): the scanner's path, and the segmenter's.
func BenchmarkLineWords(b *testing.B) {
	lines := chatTurns(400, 3)
	for _, c := range []struct {
		name string
		f    func(string, *segScratch) bool
	}{{"scan", lineWords}, {"segment", segmentWords}} {
		b.Run(c.name, func(b *testing.B) {
			sc := segPool.New().(*segScratch)
			n := 0
			for _, l := range lines {
				n += len(l)
			}
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, l := range lines {
					c.f(l, sc)
					sc.reset()
				}
			}
		})
	}
}
