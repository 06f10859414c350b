package rxscan

import (
	"regexp/syntax"
	"testing"
)

// TestStarts checks the start positions read off a few regexps:
// start bytes anywhere, start bytes only at word starts, position 0 only.
func TestStarts(t *testing.T) {
	for _, tc := range []struct {
		expr, any, word string
		zero, selective bool
	}{
		{`\bfoo|bar`, "b", "f", false, true},
		{`(?i)\bk`, "\xe2", "Kk", false, true}, // the Kelvin sign folds to k
		{`(?i)s`, "Ss\xc5", "", false, true},   // the long s folds to s
		{`^ab|cd`, "c", "", true, true},
		{`(?i)^\s*ab`, "", "", true, false}, // the engine anchors as well
		{`a?^b|c`, "ac", "", true, true},
		{`\b\$`, "$", "", false, true}, // \b before a non-word byte: left to the regexp
		{`é|[\x{100}-\x{7FF}]`, "\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf", "", false, true},
		{`\s*x`, "\t\n\f\r x", "", false, false},      // a space starts matches
		{`x*`, "x", "", false, false},                 // matches empty
		{`[a-m]x`, "abcdefghijklm", "", false, false}, // most letters anywhere
		{`\b[a-m]x`, "", "abcdefghijklm", false, true},
	} {
		tr, err := syntax.Parse(tc.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		st := startsOf(tr.Simplify())
		var anyB, wordB []byte
		for b, k := range st.at {
			switch k {
			case startAny:
				anyB = append(anyB, byte(b))
			case startWord:
				wordB = append(wordB, byte(b))
			}
		}
		if string(anyB) != tc.any || string(wordB) != tc.word || st.zero != tc.zero || st.selective() != tc.selective {
			t.Errorf("%s: any %q word %q zero %v selective %v, want %q %q %v %v", tc.expr, anyB, wordB, st.zero, st.selective(), tc.any, tc.word, tc.zero, tc.selective)
		}
	}
}

// indexDigitRef is IndexDigit one byte at a time.
func indexDigitRef(text string, from int) int {
	return IndexIn(text, from, BytesOf("0123456789"))
}

// checkIndexDigit fails t unless IndexDigit is indexDigitRef from every
// position of text.
func checkIndexDigit(t *testing.T, text string) {
	t.Helper()
	for from := 0; from <= len(text)+1; from++ {
		if got, want := IndexDigit(text, from), indexDigitRef(text, from); got != want {
			t.Fatalf("indexDigit(%q, %d) = %d, want %d", text, from, got, want)
		}
	}
}

var indexDigitCases = []string{
	"", "7", "abcdefg", "abcdefgh", "abcdefgh9", "abcdefghi", "0123456789", "/:/:/:/:/:/:/:/:", "\xb0\xb9\xff\x00\x3a\x2f\x30\x39",
	"pppppppp:ppppppp/", "\x80\x80\x80\x80\x80\x80\x80\x80\x39", "\x39\xb9\xb9\xb9\xb9\xb9\xb9\xb9", "ab 12 cd 3456 ef 7 gh 8 ij 9",
}

// TestIndexDigit: on the edge cases (every byte value around the digits,
// words of eight bytes with and without one, at every offset) and the
// corpus texts, IndexDigit finds the reference's digits.
func TestIndexDigit(t *testing.T) {
	for _, text := range indexDigitCases {
		checkIndexDigit(t, text)
	}
	for b := range 256 {
		for k := range 9 {
			text := []byte("xxxxxxxxxxxxxxxxx")
			text[k] = byte(b)
			checkIndexDigit(t, string(text))
		}
	}
}

// FuzzIndexDigit: the same on arbitrary text.
func FuzzIndexDigit(f *testing.F) {
	for _, s := range indexDigitCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkIndexDigit(t, text)
	})
}
