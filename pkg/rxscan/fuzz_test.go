package rxscan

import (
	"reflect"
	"regexp"
	"testing"
)

// referencePatterns exercise the derivation and the prefilter apart from
// any caller's patterns: folds, ^, \b, classes of non-ASCII runes (which
// invalid bytes match as U+FFFD), alternations behind a shared head, and
// literals that every match must contain.
var referencePatterns = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, expr := range []string{
		`[\x{80}-\x{10FFFF}]x?`, `(?i)\bk\w`, `(?i)s[a-z]`, `^ab|cd`, `a?^b|c`, `\b\$5|\b_x`, `é+`, `(?i)é`,
		`[\x{D000}-\x{E100}]`, `(?i)\b(?:the|ſo)\b`, `\B9|\bx`, `(?:\bq|r)s`, `[^\x00-\x{FFFC}]`,
		`(?i)\b(?:on|for)\s+(?:the|my)\s+x`, `(?i)\bkay`, `(?i)\bs[ab]c`, `\b(?:The|my)\s`, `(?:ab|c)d?ef`,
		`(?i)a(?:b|)cd`, `(?i)\bo\bk`, `x[0-9]y`, `(?i)\bmy (?:new )?hobby is (\w+)`, `(?i)back (?:to|on)|return`,
		`(?i)^\s*(?:so,?\s+)?also\b`, `(\d+) (?:usd|eur)\b`,
	} {
		out = append(out, regexp.MustCompile(expr))
	}
	return out
}()

var referenceTexts = []string{
	"", "ab cd", "so also this", "My new hobby is chess; back to it", "KAY kay ſo the Ko", "x5y x9y xay",
	"\xffé\xc3 ſab Sbc", "onthe on  the x FOR MY x", "12 usd and 7 EUR", "The my \tmy\n", "q s rs qs",
	"\xe2\x80\x9cquote\xe2\x80\x9d", "a?b ^b c",
}

// checkReference fails t unless every search of rxscan gives, on text, what
// the regexp's own gives, for every reference pattern.
func checkReference(t *testing.T, text string) {
	t.Helper()
	for _, re := range referencePatterns {
		if !MayMatch(re, text) && re.MatchString(text) {
			t.Fatalf("%s: prefilter skips %q, which matches", re, text)
		}
		if got, want := MatchString(re, text), re.MatchString(text); got != want {
			t.Fatalf("%s: MatchString(%q) = %v, want %v", re, text, got, want)
		}
		if got, want := FindAllStringSubmatchIndex(re, text, -1), re.FindAllStringSubmatchIndex(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: FindAllStringSubmatchIndex(%q) = %v, want %v", re, text, got, want)
		}
		if got, want := FindStringSubmatch(re, text), re.FindStringSubmatch(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: FindStringSubmatch(%q) = %q, want %q", re, text, got, want)
		}
		if got, want := FindStringIndex(re, text), re.FindStringIndex(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: FindStringIndex(%q) = %v, want %v", re, text, got, want)
		}
		if m := NewBranchMatcher(re); m.MatchString(text) != re.MatchString(text) {
			t.Fatalf("%s: branch matcher on %q disagrees with the regexp", re, text)
		}
	}
}

// TestReferencePatterns: the prefilter, the derived start scans and the
// branch matcher answer as the regexps do on edge texts.
func TestReferencePatterns(t *testing.T) {
	for _, text := range referenceTexts {
		checkReference(t, text)
	}
}

// FuzzReference: the same on arbitrary text (the reference of the package:
// any shortcut that changes a match fails here).
func FuzzReference(f *testing.F) {
	for _, s := range referenceTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkReference(t, text)
	})
}
