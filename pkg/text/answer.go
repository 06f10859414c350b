// Package text holds the answer normalisation that BranchMemEval's generator,
// validator and scorer all need (paper appendix B.3), below all three so that
// a dataset loader never imports a scorer.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NormalizeAnswer is BranchMemEval's answer normalisation (appendix B.3):
// Unicode NFKC, case folding, "&" read as "and", commas inside numbers
// dropped ("1,200" → "1200"; a list like "1,2,3" keeps its items apart), every other punctuation or symbol character
// turned into a space ("Sam’s" → "sam s", so "Sam" is found in it), the English
// articles a/an/the removed, and whitespace collapsed to single spaces.
//
// Punctuation becomes a space rather than vanishing so that "3:30" and
// "3.30", or "Smith-Jones" and "Smith Jones", normalise alike; that is why
// numerical commas need their own rule, as the paper lists it.
func NormalizeAnswer(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		s = norm.NFKC.String(s)
	}
	b := make([]byte, 0, len(s)+8)
	space := true // collapse runs of spaces and drop leading ones
	word := 0     // start of the current word in b, for article removal
	endWord := func() {
		switch string(b[word:]) {
		case "a", "an", "the":
			b = b[:word]
		default:
			b = append(b, ' ')
		}
		word = len(b)
		space = true
	}
	var prev rune = -1
	for i, r := range s {
		switch {
		case r == ',' && isDigitRune(prev) && thousandsGroup(s[i+1:]):
			// numerical comma: join the digit groups
		case r == '&':
			if !space {
				endWord()
			}
			b = append(b, "and"...)
			endWord()
		case r < 0x80:
			c := byte(r)
			switch {
			case 'A' <= c && c <= 'Z':
				b = append(b, c+'a'-'A')
				space = false
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
				b = append(b, c)
				space = false
			default: // ASCII punctuation, symbols, white space, controls
				if !space {
					endWord()
				}
			}
		case unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r) || unicode.IsControl(r):
			if !space {
				endWord()
			}
		default:
			if f, ok := foldSpecial[r]; ok {
				b = append(b, f...)
			} else {
				b = utf8.AppendRune(b, unicode.ToLower(r))
			}
			space = false
		}
		prev = r
	}
	if !space {
		endWord()
	}
	return strings.TrimSuffix(string(b), " ")
}

func isDigitRune(r rune) bool { return '0' <= r && r <= '9' || r > 0x80 && unicode.IsDigit(r) }

// foldSpecial are the full case foldings that differ from unicode.ToLower
// and that NFKC does not already take care of.
var foldSpecial = map[rune]string{'ß': "ss", 'ẞ': "ss", 'ς': "σ", 'İ': "i̇", 'ſ': "s"}

// ContainsAnswer reports whether needle occurs in haystack at token
// boundaries; both must already be normalised by NormalizeAnswer (so tokens
// are separated by single spaces). "10" is not found in "2010", nor "ann" in
// "anna". An empty needle matches nothing, so a gold that normalises away
// can never be credited.
func ContainsAnswer(haystack, needle string) bool {
	if needle == "" || len(needle) > len(haystack) {
		return false
	}
	for i := 0; i+len(needle) <= len(haystack); {
		j := strings.Index(haystack[i:], needle)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(needle)
		if (j == 0 || haystack[j-1] == ' ') && (end == len(haystack) || haystack[end] == ' ') {
			return true
		}
		i = j + 1
	}
	return false
}

// thousandsGroup reports whether rest starts with exactly three digits, so
// that a comma before it is a thousands separator ("1,200", "12,000,000")
// and not a list separator ("1,2,3", which keeps its items apart).
func thousandsGroup(rest string) bool {
	if len(rest) < 3 {
		return false
	}
	for k := 0; k < 3; k++ {
		if rest[k] < '0' || rest[k] > '9' {
			return false
		}
	}
	return len(rest) == 3 || rest[3] < '0' || rest[3] > '9'
}
