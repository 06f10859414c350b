package scoring

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestPorterGolden checks every stem of the golden list that NLTK 3.8's
// PorterStemmer() produced (scripts/porter-golden.py): 100% identical.
func TestPorterGolden(t *testing.T) {
	f, err := os.Open("testdata/porter_golden.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, bad := 0, 0
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if strings.HasPrefix(s, "#") {
			continue
		}
		word, want, ok := strings.Cut(s, "\t")
		if !ok {
			t.Fatalf("porter_golden.tsv line %d: no tab", line)
		}
		n++
		if got := Stem(word); got != want {
			bad++
			if bad <= 20 {
				t.Errorf("line %d: Stem(%q) = %q, NLTK %q", line, word, got, want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 20000 {
		t.Fatalf("golden list has %d words, want at least 20,000", n)
	}
	if bad > 0 {
		t.Fatalf("%d of %d stems differ from NLTK", bad, n)
	}
}

func TestStemKnownWords(t *testing.T) {
	// Spot checks from the algorithm's documentation, including the words
	// where NLTK_EXTENSIONS differs from Martin Porter's version.
	for word, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "dies": "die", "flies": "fli",
		"died": "die", "spied": "spi", "agreed": "agre", "feed": "feed",
		"hopping": "hop", "filing": "file", "happy": "happi", "enjoy": "enjoy",
		"are": "are", "used": "use", "they": "they", "dying": "die", "skies": "sky",
		"Skies": "ski", "generalizations": "gener", "geology": "geolog",
		"a": "a", "is": "is", "": "",
		// NLTK quirks kept: a literal "*d" suffix after -ed/-ing, non-ASCII
		// letters as consonants.
		"ba*ded": "bad", "aññing": "añ", "ññed": "ññed",
	} {
		if got := Stem(word); got != want {
			t.Errorf("Stem(%q) = %q, want %q", word, got, want)
		}
	}
}

func BenchmarkStem(b *testing.B) {
	words := strings.Fields("the generalizations about running happily through relational databases were surprisingly controversial")
	for b.Loop() {
		for _, w := range words {
			Stem(w)
		}
	}
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"generalizations", "ies", "ied", "yyy", "İΣ", "x*d", "alli", "logi", "", "sses"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		s := Stem(w)
		if Stem(w) != s {
			t.Fatalf("Stem(%q) not deterministic", w)
		}
	})
}
