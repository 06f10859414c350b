package answer

import (
	"strings"
	"testing"
)

var changeCases = []string{
	"", "It is now 5.", "nowhere", "snow", "NOW", "Now's the time", "renewed", "new_", "_new", "new2",
	"I no longer run", "no  longer", "no\tlonger", "No Longer", "nolonger", "no longer_", "not no longer", "no no longer",
	"we moved; instead", "upgrade", "upgraded!", "\xffnew\xff", "caf\u00e9new", "no\u00a0longer",
	"\u017fwitched", "a\u017fwitched", "in\u017ftead", "a\u212a now",
}

func TestChangeScanSameAsRegexp(t *testing.T) {
	for _, s := range changeCases {
		checkChangeScan(t, s)
		checkChangeScan(t, strings.ToUpper(s))
		checkChangeScan(t, "x "+s+" y")
	}
}

func checkChangeScan(t *testing.T, s string) {
	t.Helper()
	if got, want := changeScan.MatchString(s), changeRe.MatchString(s); got != want {
		t.Errorf("changeScan.MatchString(%q) = %v, changeRe says %v", s, got, want)
	}
}

func FuzzChangeScan(f *testing.F) {
	for _, s := range changeCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkChangeScan(t, s) })
}
