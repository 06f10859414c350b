package rxscan

import (
	"regexp"
	"slices"
	"testing"
)

// TestRequiredLiterals checks the literals read off a few regexps.
func TestRequiredLiterals(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string // nil: no prefilter
	}{
		{`(?i)\bmy (?:new )?hobby`, []string{"hobby"}}, // the longer part
		{`(?i)back (?:to|on)|return`, []string{"back ", "return"}},
		{`abc|d*`, nil},
		{`x+y?Z`, []string{"x"}},
		{`[ab]cd(?:ef){2}`, []string{"cd"}},
		{`(?i)caf\x{e9}`, nil},
		{`“([^”]+)”`, []string{"“"}},
		{`[$€£]\s?\d|\d+ (?:usd|eur)`, []string{"$", "£", "€", "usd", "eur"}},
		{`(?i)[a-c]x`, []string{"A", "B", "C", "a", "b", "c"}}, // the class, as long as "x"
		{`[a-z]x`, []string{"x"}},
		{`(?i)^\s*(?:so,?\s+)?also`, nil}, // anchored: the engine is quicker
		{`^ab|cd`, []string{"ab", "cd"}},
	} {
		f := filterOf(regexp.MustCompile(tc.expr))
		var got []string
		if !f.any {
			for _, l := range f.lits {
				got = append(got, l.s)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: literals %q, want %q", tc.expr, got, tc.want)
		}
	}
}
