package rules

import (
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/rxscan"
	"github.com/arbor-eval/arbor/pkg/text"
)

// continuationOpeners are the words a match of reContinuation can start
// with (after white space): its acknowledgements' and its cues' first
// words, but "hmm+", which mayOpenContinuation tests.
var continuationOpeners = text.WordSet(`ok okay great thanks thank perfect cool nice sure got awesome sounds alright right yes yeah good so
also and plus additionally what how one another quick follow following continuing to in on building related speaking while
can could would should same then`)

// openerTails are what must follow the opening words of reContinuation
// that open only one of its alternatives (or alternatives that agree on
// what follows): "to" only "to continue", "one" only "one more …".
var openerTails = map[string]string{
	"to": " continue", "in": " that case", "on": " that note", "what": " about", "how": " about", "one": " more ",
	"another": " ", "quick": " ", "building": " on ", "related": " to ", "speaking": " of ", "while": " we're ",
	"can": " ", "could": " ", "would": " ", "should": " ", "same": " ", "thank": " you", "got": " it", "sounds": " good",
}

// hasPrefixFold reports whether s may start with lit (lower-case ASCII)
// matched ignoring case: a non-ASCII rune where lit has a letter may be
// one folding to it, so it counts as a match.
func hasPrefixFold(s, lit string) bool {
	for k := range len(lit) {
		if k >= len(s) {
			return false
		}
		c, l := s[k], lit[k]
		switch {
		case c >= utf8.RuneSelf:
			return true
		case 'a' <= l && l <= 'z':
			if c|0x20 != l {
				return false
			}
		case c != l:
			return false
		}
	}
	return true
}

// mayOpenContinuation reports whether reContinuation may match s: it is
// anchored at the start, and each of its alternatives is a word followed
// by what is not a letter, so the first run of letters after RE2's \s* must
// be one of continuationOpeners (or "hmm", "hmmm", ...) in any case, with
// its tail (openerTails) after it. A
// non-ASCII rune after the run may be a letter folding to ASCII ("ſ" to s,
// the Kelvin sign to k), so the regexp decides.
func mayOpenContinuation(s string) bool {
	i := rxscan.SkipSpace(s, 0)
	j := i
	for j < len(s) && 'a' <= s[j]|0x20 && s[j]|0x20 <= 'z' {
		j++
	}
	if j < len(s) && s[j] >= utf8.RuneSelf {
		return true
	}
	var buf [16]byte
	if j-i > len(buf) {
		return false
	}
	w := buf[:j-i]
	for k := range w {
		w[k] = s[i+k] | 0x20
	}
	if continuationOpeners[string(w)] {
		tail, ok := openerTails[string(w)]
		return !ok || hasPrefixFold(s[j:], tail)
	}
	if len(w) < 3 || w[0] != 'h' {
		return false
	}
	for _, c := range w[1:] {
		if c != 'm' {
			return false
		}
	}
	return true
}
