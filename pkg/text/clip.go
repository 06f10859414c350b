package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ClipRunes shortens s to at most n runes, cutting at a word boundary and
// marking the cut with "…".
func ClipRunes(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	cut := n - 1
	for i := cut; i > n/2; i-- {
		if unicode.IsSpace(rs[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(rs[:cut]), " ,;:") + "…"
}

// ClipWords keeps the first n words of s.
func ClipWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.TrimRight(strings.Join(f[:n], " "), ",;:") + "…"
}

// OneLine collapses whitespace so a text fits on one evidence line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// WordSet is the set of the white-space separated words of s, for word
// lists written as one string.
func WordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
