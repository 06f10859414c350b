package spans

import (
	"regexp"
	"strings"

	"github.com/arbor-eval/arbor/pkg/rxscan"
	"github.com/arbor-eval/arbor/pkg/text"
)

// The typed-value patterns as byte scans. numberRe and dateRe are long
// alternations with no literal prefix, so the regexp engine's unanchored
// search tries its automaton at every byte of every sentence; it was most
// of the CPU of an offline BranchMemEval run (Summary's heuristic summary
// and the extractive answerer call Typed on every sentence they read).
// Typed only needs whether a pattern matches somewhere, and every keyword
// alternative is a whole word between RE2's ASCII \b boundaries, so one
// pass over the ASCII words of the text decides: a keyword matches where
// a maximal run of [0-9A-Za-z_] equals it (case-folded), since \b before
// its first letter and after its last letter leave no other choice. The
// digit alternatives of dateRe are checked by hand at each digit that
// starts a word.
//
// The regexps stay the definition (TestTypedScanSameAsRegexp and
// FuzzTypedScan compare both on every input). Case folding is the one
// place the ASCII reading differs from the engine's: (?i) lets "s" match
// ſ (U+017F) and "k" the Kelvin sign (U+212A), the only runes outside
// ASCII that fold to ASCII letters; a text holding either goes to the
// regexps.

// numberWords are numberRe's (?i) keywords.
var numberWords = text.WordSet("one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand million dozen half")

// dateWords are dateRe's (?i) keywords, every spelling its optional
// suffixes allow ("june?" is jun and june).
var dateWords = text.WordSet("jan january feb february mar march apr april jun june jul july aug august sep sept september oct october nov november dec december " +
	"monday tuesday wednesday thursday friday saturday sunday yesterday today tomorrow tonight weekend morning evening afternoon noon midnight")

// foldsOutsideASCII reports whether s holds ſ or the Kelvin sign.
func foldsOutsideASCII(s string) bool {
	return strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")
}

// nextWord returns the bounds of the first maximal run of [0-9A-Za-z_]
// at or after i, (len(s), len(s)) when there is none: the words between
// which RE2's ASCII \b falls.
func nextWord(s string, i int) (start, end int) {
	for i < len(s) && !rxscan.IsWordByte(s[i]) {
		i++
	}
	j := i
	for j < len(s) && rxscan.IsWordByte(s[j]) {
		j++
	}
	return i, j
}

// lowerWord returns w in ASCII lower case, into buf when it has to change.
func lowerWord(w string, buf []byte) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'A' && c <= 'Z' {
			buf = append(buf[:0], w...)
			for j := i; j < len(buf); j++ {
				if c := buf[j]; c >= 'A' && c <= 'Z' {
					buf[j] = c + 'a' - 'A'
				}
			}
			return string(buf)
		}
	}
	return w
}

// typedScan is numberRe.MatchString(s) and dateRe.MatchString(s).
func typedScan(s string) (number, date bool) {
	if foldsOutsideASCII(s) {
		return numberRe.MatchString(s), dateRe.MatchString(s)
	}
	var buf [16]byte
	prevLast := false // the previous word was "last" or "next" (ci), followed by one space
	prevEnd := -1
	for i, j := nextWord(s, 0); i < len(s); i, j = nextWord(s, j) {
		w := s[i:j]
		if rxscan.IsDigitByte(w[0]) {
			number = true
			if !date && dateDigitsAt(s, i) {
				date = true
			}
		} else {
			var lw string
			if len(w) <= len(buf) {
				lw = lowerWord(w, buf[:0])
			}
			if numberWords[lw] {
				number = true
			}
			if w == "May" || dateWords[lw] {
				date = true
			}
			if prevLast && prevEnd == i-1 && (lw == "week" || lw == "month" || lw == "year") {
				date = true
			}
			prevLast = (lw == "last" || lw == "next") && j < len(s) && s[j] == ' '
			prevEnd = j
		}
		if !number {
			// \d matches anywhere, not only at a word start.
			for k := i; k < j; k++ {
				if rxscan.IsDigitByte(s[k]) {
					number = true
					break
				}
			}
		}
		if number && date {
			return true, true
		}
	}
	return number, date
}

// digitsAt is the length of the run of ASCII digits at i.
func digitsAt(s string, i int) int {
	n := 0
	for i+n < len(s) && rxscan.IsDigitByte(s[i+n]) {
		n++
	}
	return n
}

// endsWord reports RE2's \b at i, which follows a word byte.
func endsWord(s string, i int) bool { return i >= len(s) || !rxscan.IsWordByte(s[i]) }

// dateDigitsAt reports whether one of dateRe's digit alternatives matches
// at i, a digit that starts a word (so the leading \b holds):
//
//	\d{1,2}(:\d{2})?\s*(am|pm)\b   \d{1,2}:\d{2}\b   \d{4}-\d{2}-\d{2}\b
//	\d{1,2}/\d{1,2}(/\d{2,4})?\b   (19|20)\d{2}\b
func dateDigitsAt(s string, i int) bool {
	run := digitsAt(s, i)
	for k := 1; k <= 2 && k <= run; k++ {
		j := i + k
		// \d{1,2}:\d{2}, the optional part of the clock with am/pm.
		if j < len(s) && s[j] == ':' && digitsAt(s, j+1) >= 2 {
			if endsWord(s, j+3) || ampmAt(s, j+3) {
				return true
			}
		}
		if ampmAt(s, j) {
			return true
		}
		// \d{1,2}/\d{1,2}(/\d{2,4})?\b
		if j < len(s) && s[j] == '/' {
			if d := digitsAt(s, j+1); d >= 1 {
				for m := 1; m <= 2 && m <= d; m++ {
					e := j + 1 + m
					if endsWord(s, e) {
						return true
					}
					if e < len(s) && s[e] == '/' {
						if y := digitsAt(s, e+1); y >= 2 {
							for n := 2; n <= 4 && n <= y; n++ {
								if endsWord(s, e+1+n) {
									return true
								}
							}
						}
					}
				}
			}
		}
	}
	if run >= 4 {
		// \d{4}-\d{2}-\d{2}\b
		j := i + 4
		if j < len(s) && s[j] == '-' && digitsAt(s, j+1) >= 2 && j+3 < len(s) && s[j+3] == '-' && digitsAt(s, j+4) >= 2 && endsWord(s, j+6) {
			return true
		}
		// (19|20)\d{2}\b
		if (s[i] == '1' && s[i+1] == '9' || s[i] == '2' && s[i+1] == '0') && endsWord(s, i+4) {
			return true
		}
	}
	return false
}

// ampmAt reports whether \s*(am|pm)\b matches at j (the \s* consumes every
// blank there: a shorter run leaves a blank, which am/pm cannot match).
func ampmAt(s string, j int) bool {
	for j < len(s) && rxscan.IsSpace(s[j]) {
		j++
	}
	if j+2 > len(s) {
		return false
	}
	a, m := s[j]|0x20, s[j+1]|0x20
	return (a == 'a' || a == 'p') && m == 'm' && endsWord(s, j+2)
}

// Keywords is a case-insensitive alternation of whole words,
// (?i)\b(w1|w2|…)\b, read as typedScan reads its keywords: a word matches
// where a maximal run of [0-9A-Za-z_] equals it in ASCII lower case, and a
// two-word phrase ("no longer") where its words follow each other with one
// space between. The regexp stays the reference (and decides for texts
// holding ſ or the Kelvin sign).
type Keywords struct {
	re      *regexp.Regexp
	words   map[string]bool
	phrases map[[2]string]bool
	// long is the length of the longest word: a longer run is no keyword.
	long int
}

// NewKeywords returns the scan of re, which must be (?i)\b(phrases)\b over
// the given lower-case phrases of one or two words (the tests of its
// callers compare the two under fuzzing).
func NewKeywords(re *regexp.Regexp, phrases ...string) *Keywords {
	k := &Keywords{re: re, words: map[string]bool{}, phrases: map[[2]string]bool{}}
	for _, p := range phrases {
		f := strings.Split(p, " ")
		switch len(f) {
		case 1:
			k.words[p] = true
		case 2:
			k.phrases[[2]string{f[0], f[1]}] = true
		default:
			panic("spans: keyword phrase of more than two words: " + p)
		}
		for _, w := range f {
			k.long = max(k.long, len(w))
		}
	}
	return k
}

// MatchString is re.MatchString(s).
func (k *Keywords) MatchString(s string) bool {
	if foldsOutsideASCII(s) {
		return k.re.MatchString(s)
	}
	buf := make([]byte, 0, 16)
	prev, prevEnd := "", -2
	for i, j := nextWord(s, 0); i < len(s); i, j = nextWord(s, j) {
		lw := ""
		if j-i <= k.long {
			lw = lowerWord(s[i:j], buf[:0])
		}
		if k.words[lw] || prevEnd == i-1 && k.phrases[[2]string{prev, lw}] {
			return true
		}
		prev, prevEnd = "", -2
		if j < len(s) && s[j] == ' ' {
			prev, prevEnd = lw, j
		}
	}
	return false
}
