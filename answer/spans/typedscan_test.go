package spans

import (
	"strings"
	"testing"
)

// typedCases are texts at the edges of the typed patterns: every keyword
// spelling, keywords inside longer words, the digit alternatives of
// dateRe with one digit too many or too few, the fold runes (ſ, K) and
// invalid UTF-8.
var typedCases = []string{
	"", "I ran 14 km.", "See you on May 25.", "You may want to rest.", "Meet me at 4 pm.",
	"Meet at 4pm", "at 12:30pm", "at 12:30 PM.", "at 123:30", "at 12:305", "at 1:3", "x12:30", "_12:30", "é12:30",
	"on 2023-05-30.", "2023-05-301", "20231-05-30", "2023-5-30", "in 1999", "in 19999", "in 2100", "in 2099x", "in 1899",
	"5/12", "5/12/2023", "5/12/20231", "12/1/99", "123/4", "5/123", "5/12/2", "a5/12", "5/", "/5",
	"last week", "Last  week", "LAST YEAR", "next month", "lastweek", "at last weekend", "last\tweek", "last weeks", "the last 2 weeks", "past week",
	"january", "Jan.", "Janu", "sept", "Sep", "septe", "jun", "june", "junes", "jul", "julys", "mays", "MAY", "May", "May's",
	"weekend", "tonight", "midnight", "noon", "afternoon", "mornings", "TODAY", "yesterday!",
	"one", "ones", "someone", "Twenty", "a dozen", "half-time", "behalf", "ten_", "_ten", "ten2",
	"ſix", "aſix", "ſeptember", "wee\u212aend", "a\u212a", "\u212aelvin",
	"caf\u00e9one", "\xffone\xff", "\xc5\xbf", "x\u00e9monday", "4\u00a0pm", "4 \n am", "4\vam", "4 amp", "4 am_",
	"[2023-05-30 23:40] user: I moved to Denver last month.", "We booked it for three nights.",
}

func TestTypedScanSameAsRegexp(t *testing.T) {
	for _, s := range typedCases {
		checkTypedScan(t, s)
		checkTypedScan(t, strings.ToUpper(s))
		checkTypedScan(t, "x "+s+" y")
	}
}

func checkTypedScan(t *testing.T, s string) {
	t.Helper()
	n, d := typedScan(s)
	if wn, wd := numberRe.MatchString(s), dateRe.MatchString(s); n != wn || d != wd {
		t.Errorf("typedScan(%q) = number %v date %v, the regexps say %v %v", s, n, d, wn, wd)
	}
}

func FuzzTypedScan(f *testing.F) {
	for _, s := range typedCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkTypedScan(t, s) })
}
