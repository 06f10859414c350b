package rules

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/rxscan"
)

type namedScan struct {
	name string
	s    *rxscan.StartScan
}

// startScans returns every start scan with its regexp's name: the entity
// patterns' hand-written ones, the derived ones of the regexps the
// extractors run through the prefilter helpers (prefiltered is complete
// once the package's init functions have run), and derived ones of
// patterns made to exercise the derivation (folds, ^, \b, classes of
// non-ASCII runes, which invalid bytes match as U+FFFD).
var startScans = sync.OnceValue(func() []namedScan {
	out := []namedScan{
		{"reMoney", scanMoney}, {"reQuantity", scanQuantity}, {"reDateISO", scanDateISO}, {"reDateText", scanDateText},
		{"reClock", scanClock}, {"reURL", scanURL}, {"reQuoted", scanQuoted},
	}
	var names []string
	for name := range prefiltered {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if sc := rxscan.Derived(prefiltered[name]); sc != nil {
			out = append(out, namedScan{name + " (derived)", sc})
		}
	}
	for _, expr := range derivationCases {
		if sc := rxscan.Derived(regexp.MustCompile(expr)); sc != nil {
			out = append(out, namedScan{expr, sc})
		}
	}
	return out
})

// derivationCases are patterns whose derived scans the tests compare with
// the regexp (all have one: TestDerivedStarts).
var derivationCases = []string{
	`[\x{80}-\x{10FFFF}]x?`, `(?i)\bk\w`, `(?i)s[a-z]`, `^ab|cd`, `a?^b|c`, `\b\$5|\b_x`, `é+`, `(?i)é`,
	`[\x{D000}-\x{E100}]`, `(?i)\b(?:the|ſo)\b`, `\B9|\bx`, `(?:\bq|r)s`, `[^\x00-\x{FFFC}]`,
	// Head sets: folds, case-sensitive literals, optional parts, classes.
	`(?i)\b(?:on|for)\s+(?:the|my)\s+x`, `(?i)\bkay`, `(?i)\bs[ab]c`, `\b(?:The|my)\s`, `(?:ab|c)d?ef`, `(?i)a(?:b|)cd`,
	`(?i)\bo\bk`, `x[0-9]y`,
}

// checkStartScans fails t unless every start scan gives, on text, exactly
// what its regexp's own Find functions give: all of them, or (!all) the
// one that reports every match with its groups.
func checkStartScans(t *testing.T, text string, all bool) {
	t.Helper()
	for _, sc := range startScans() {
		re := sc.s.Regexp()
		if got, want := sc.s.FindAllStringSubmatchIndex(text, -1), re.FindAllStringSubmatchIndex(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.FindAllStringSubmatchIndex(%q) = %v, want %v", sc.name, text, got, want)
		}
		if !all {
			continue
		}
		if got, want := sc.s.FindAllStringIndex(text, -1), re.FindAllStringIndex(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.FindAllStringIndex(%q) = %v, want %v", sc.name, text, got, want)
		}
		if got, want := sc.s.FindAllStringSubmatch(text, -1), re.FindAllStringSubmatch(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.FindAllStringSubmatch(%q) = %q, want %q", sc.name, text, got, want)
		}
		if got, want := sc.s.FindAllString(text, -1), re.FindAllString(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.FindAllString(%q) = %q, want %q", sc.name, text, got, want)
		}
		if got, want := sc.s.FindAllStringIndex(text, 2), re.FindAllStringIndex(text, 2); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.FindAllStringIndex(%q, 2) = %v, want %v", sc.name, text, got, want)
		}
		if got, want := sc.s.FindStringIndex(text), re.FindStringIndex(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.FindStringIndex(%q) = %v, want %v", sc.name, text, got, want)
		}
		if got, want := sc.s.FindStringSubmatchIndex(text), re.FindStringSubmatchIndex(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.FindStringSubmatchIndex(%q) = %v, want %v", sc.name, text, got, want)
		}
		if got, want := sc.s.FindStringSubmatch(text), re.FindStringSubmatch(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.FindStringSubmatch(%q) = %q, want %q", sc.name, text, got, want)
		}
		if got, want := sc.s.FindString(text), re.FindString(text); got != want {
			t.Fatalf("%s.FindString(%q) = %q, want %q", sc.name, text, got, want)
		}
		if got, want := sc.s.MatchString(text), re.MatchString(text); got != want {
			t.Fatalf("%s.MatchString(%q) = %v, want %v", sc.name, text, got, want)
		}
	}
}

// TestDerivedStarts: every derivation case has a derived scan, and of
// the helpers' regexps only the two named below have none.
func TestDerivedStarts(t *testing.T) {
	for _, expr := range derivationCases {
		if rxscan.Derived(regexp.MustCompile(expr)) == nil {
			t.Errorf("%s has no derived scan", expr)
		}
	}
	// Of the helpers' regexps, only these are searched by the engine: a
	// space may start reQuoted (its hand-written scan serves the entity
	// passes), reContinuation is anchored at the start of the text.
	for name, re := range prefiltered {
		if got, want := rxscan.Derived(re) == nil, name == "reQuoted" || name == "reContinuation"; got != want {
			t.Errorf("%s: no derived scan %v, want %v", name, got, want)
		}
	}
}

// startScanCases are texts at the edges of the entity patterns: matches
// that start inside words or numbers, runs that continue past where a
// shorter match would end, \s across newlines, unicode quotes and folds,
// matches cut by the end of the text, invalid UTF-8 before a candidate.
var startScanCases = []string{
	"", "5", "$", "€", "a1", "x5 dollars", "ab12 km", "1,,5 dollars", "5\ndollars", "5\n\ndollars", "5 dollarsy",
	"$5 mil", "$5 million", "$ 5k", "£1,200.50 m", "€3bn and €3 bnx", "12.5.6 dollars", "1.5.6 dollars",
	"$1,200.50 at 7:30 p.m. on 2023-05-01", "2023-05-01T10:30", "2023-05-01 1:3", "2023-05-012", "x2023-05-01",
	"May 5th, 2024", "may 5", "MAY  12th,\n2024", "mayday 5", "Jan. 5 and ſep 5, 2023", "xſep 5", "ſep 5", " ſEPT 5",
	"Auguſt 5", "ſeptember 5", "AUGUST\u212a 5", "Mar.5", "Sept. 5", "May\t\n 5", "mayx 5", "March, 5", "march", "march ",
	"March 5th,2024", "jan 5 feb 6 mar 7", "Dec.", "dec. x", "junE 12", "jul\xff 5", "Ma\u212a 5", "xmay 5", "may 5x",
	"5th of june, 2024", "5 of june", "31st December2024", "5 decx", "on 5 Dec", "Decimal 5", "march 3rd",
	"3 p.m.", "3 pm", "3pm", "12:30", "12:3", "123:45", "1:45am", "11 A.M.", "9:00 PM sharp", "at 9 p.", "7 a.m",
	"3 km", "3km", "12 laps", "5 cups, 2 lbs", "100%", "50 percent", "3 hrs", "1 hour", "x3 km", "3 kmh", "_3 km",
	"see https://x.io/a?b. and www.foo.com)", "http://", "https://a\"b", "xwww.y", "httpwww.a", "http:/x www.",
	`He said "Blue Moon" and 'The Road'.`, `"a"`, `"ab"`, `""ab""`, `"a"b"c"`, `"""`, "“Quoted title” and “x”",
	"“unclosed", "'ab'", " 'ab' ", "('ab')", "x'ab'", "it's 'ab'x", "'ab'\n'cd'", "\t'ab';", "'a\nb'",
	`"` + strings.Repeat("a", 60) + `"`, `"` + strings.Repeat("a", 61) + `"`, "'" + strings.Repeat("é", 60) + "'",
	"bad \xff\xfe utf8 5 km \xe2\x82 5 dollars \xc25 \xe2“x” \xc5ſep 5", "\xe2\x80\x9c", "\xe2\x80“ab”",
	"Dr. Smith e.g. No. 5 vs. Mr. Jones!  Really?\tYes.\r\nOk", "“Quoted title” 3 km, 12 laps, 5 cups",
	"é\xa9x \xc3\xa9\xa9x \xe2\x82x \xed\xa0\x80 \xf4\x90\x80\x80x", "ks Ks \u212as the ſo ſ5 thé é", "_x 9 x9 a9 qs rs aqs",
	"K\u212a 5 km", "\u212aelvin 5 dollars", "5 doll\u212ars", "2 Mile", "2 MILES", "2 mi.", "12 steps.",
	"1,1,1,2 km", "1,2.3.4 dollars", "7.5.3 km", "5%", "5%x", "5 %", "5 %a", "5  km", "5\tkm", "1.x dollars", "1. dollars",
	"5 ſt May", "5ſt May", "3rd   of  ſep", "3RD OF\nmay", "3 ofjune", "3 of  june", "12th  June", "123 june", "1 2 may", "5thmay",
	"5 \u212am", "5 eurx", "5 euro", "5eur", "5 usd_", "3:", "3 :30", "123pm", "1 2pm", "12\tPM", "9 Ap", "2023-0501", "2023-05-0",
	// Head sets.
	"On the trip x", "on\tmy  x", "for THE x", "o\u212a kay", "O\u212aay", "\u212aay kay", "ſbc sac SBC", "The\nmy\tthe ",
	"abdef cef abef cdef", "acd ABCD aCd", "o k o\bk", "x5y x55y", "back to the trip, about our plan", "Going back to Sam's party",
	"Sam's dog", "Sam’s new car", "Mary Ann's big day", "Mary  Ann’s x", "MARY's plan", "Aé's x", "A's x", "Ab\u00a0Cd's x",
	"Ab\tCd's x", "Ab Cd Ef's x", "Ab's\xff x", "Ab\xff's x", "Ab Cd\n's x", "Ab 's x", "xAb's y", "Ab'S y", "Ab Cd",
}

// TestStartScanSameAsRegexp: on the edge cases, on the texts of the
// corpus, and on the corpus texts joined into interaction-sized texts,
// each start scan finds exactly the regexp's matches. The regexps are
// slow: CI checks every 384th corpus text and the first joined text,
// ARBOR_LONG_TESTS=1 all.
func TestStartScanSameAsRegexp(t *testing.T) {
	for _, text := range startScanCases {
		checkStartScans(t, text, true)
	}
	texts := corpusTexts(t)
	step, jstep := 384, len(texts)
	if os.Getenv("ARBOR_LONG_TESTS") != "" {
		step, jstep = 1, 1
	}
	for i := 0; i < len(texts); i += step {
		checkStartScans(t, texts[i], false)
	}
	joined := joinedTexts(texts, 5000)
	for i := 0; i < len(joined); i += jstep {
		checkStartScans(t, joined[i], false)
	}
}

// FuzzStartScan: the same on arbitrary text.
func FuzzStartScan(f *testing.F) {
	for _, s := range startScanCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkStartScans(t, text, true)
	})
}

// TestStartScanRefusesEmptyMatches: a pattern that can match the empty
// string has no start positions to look for, so it is refused.
func TestStartScanRefusesEmptyMatches(t *testing.T) {
	for _, expr := range []string{`a*`, `\b`, `(?:x|)`, `^`, `a?b?`, `(?:ab){0,2}`} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newStartScan(%q) accepted a pattern that matches the empty string", expr)
				}
			}()
			rxscan.NewStartScan(regexp.MustCompile(expr), nil)
		}()
	}
	rxscan.NewStartScan(regexp.MustCompile(`\ba+|b{2}`), nil)
}

// joinedTexts joins consecutive texts, a blank line between, into texts
// of about size bytes (the size of a BEAM interaction).
func joinedTexts(texts []string, size int) []string {
	var out []string
	var b strings.Builder
	for _, s := range texts {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
		if b.Len() >= size {
			out = append(out, b.String())
			b.Reset()
		}
	}
	return out
}

// TestStartScanLongRuns: texts where every byte of a long run is a
// candidate whose attempt reads to the run's end (digits for reMoney, quotes
// for reQuoted) would make a scan quadratic; past its read budget the scan
// gives way to the engine's search, with the same matches, also when it has
// found some before (FindAll's n counts those).
func TestStartScanLongRuns(t *testing.T) {
	digits := strings.Repeat("1", 5000)
	for _, text := range []string{
		"\xd3W0" + digits,
		"paid $5 and 3 dollars, then " + digits + " dollars and 7 euros",
		"on May 5th " + strings.Repeat("May ", 1500) + "6",
		strings.Repeat("ſ", 3000) + " 5", strings.Repeat("éMay", 1500) + ". 5",
		strings.Repeat(`"a`, 3000),
	} {
		checkStartScans(t, text, true)
	}
	// A digit run no match ends, every digit a candidate whose attempt
	// fails at the run's end, takes a scan past its budget; ordinary text
	// of that length does not. reMoney's own candidate finder looks past
	// the run for a currency word, so finds no candidate there; a finder
	// that takes every digit shows the budget.
	everyDigit := rxscan.NewStartScan(reMoney, func(text string, from int) int { return rxscan.IndexIn(text, from, moneyFirst) })
	for _, c := range []struct {
		sc     *rxscan.StartScan
		text   string
		engine bool
	}{
		{everyDigit, "paid $5 and 3 dollars, then W" + digits, true},
		{everyDigit, strings.Repeat("paid $5 and 3 dollars on May 5th. ", 150), false},
		{scanMoney, "paid $5 and 3 dollars, then W" + digits, false},
	} {
		if got, want := c.sc.FindAllStringIndex(c.text, -1), reMoney.FindAllStringIndex(c.text, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("scan of %d bytes = %v, want %v", len(c.text), got, want)
		}
		if _, engine := c.sc.Search(c.text, -1); engine != c.engine {
			t.Errorf("scan of %d bytes gave way to the engine: %v, want %v", len(c.text), engine, c.engine)
		}
	}
}

// TestMonthStems: isMonthStem holds exactly for the keys of monthNames,
// in any ASCII case.
func TestMonthStems(t *testing.T) {
	for a := range 128 {
		for b := range 128 {
			for c := range 128 {
				s := string([]byte{byte(a), byte(b), byte(c)})
				_, want := MonthNames[string([]byte{byte(a) | 0x20, byte(b) | 0x20, byte(c) | 0x20})]
				if got := isMonthStem(s); got != want {
					t.Fatalf("isMonthStem(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
}

// nextDateTextStartRef is nextDateTextStart as it was before it went from
// digit to digit: it stops at every byte a match can start with (a digit,
// a month's first letter, the first byte of "ſ") and looks around it.
func nextDateTextStartRef(text string, from int) int {
	for i := from; ; i++ {
		if i = rxscan.IndexIn(text, i, dateTextFirstRef); i < 0 {
			return -1
		}
		switch b := text[i]; {
		case b == 0xC5:
			if strings.HasPrefix(text[i:], "ſ") && dayAfterWordRef(text, i) {
				return i
			}
		case rxscan.IsDigitByte(b):
			if rxscan.WordStart(text, i) && monthAfterDay(text, i) {
				return i
			}
		default:
			if rxscan.WordStart(text, i) && i+3 <= len(text) && isMonthStem(text[i:i+3]) && dayAfterWordRef(text, i) {
				return i
			}
		}
	}
}

var dateTextFirstRef = rxscan.BytesOf("0123456789" + "jfmasondJFMASOND\xc5") // ſ is C5 BF

// dayAfterWordRef reports whether the word at i (the run of ASCII letters
// and non-ASCII bytes) is followed by an optional ".", white space and a
// digit.
func dayAfterWordRef(text string, i int) bool {
	j := i
	for j < len(text) && ('a' <= text[j]|0x20 && text[j]|0x20 <= 'z' || text[j] >= utf8.RuneSelf) {
		j++
	}
	if j < len(text) && text[j] == '.' {
		j++
	}
	k := j
	for k < len(text) && rxscan.IsSpace(text[k]) {
		k++
	}
	return k > j && k < len(text) && rxscan.IsDigitByte(text[k])
}

// checkDateTextStarts fails t unless nextDateTextStart, called as a scan
// calls it (from growing: one past each candidate, or, where steps says,
// further on, as after a match), gives the reference's candidates.
func checkDateTextStarts(t *testing.T, text string, steps []byte) {
	t.Helper()
	var cur rxscan.Cursor
	for from, k := 0, 0; from <= len(text); k++ {
		got, want := nextDateTextStart(text, from, &cur), nextDateTextStartRef(text, from)
		if got != want {
			t.Fatalf("nextDateTextStart(%q, %d) = %d, want %d", text, from, got, want)
		}
		if got < 0 {
			return
		}
		from = got + 1
		if k < len(steps) {
			from += int(steps[k] % 16)
		}
	}
}

var dateTextStartCases = []string{
	"", "5", "May 5", "on May 5th, 2024", "May. 5", "May.. 5", "May.5", "Mayo 5", "éMay 5", "ſep 5", "xſep 5", "ſſſ 5",
	"3rd of June", "3 of   june", "12 Mar", "1 2 3 May", "\tDec\n\n7", "dec 7 and jan 8 and feb", "the 5th of may, 2020",
	"pay.  9", "x.May 5", "Jun\x80 4", "Mar" + "\xc5", "On Jan 2 at 3pm; 4 Nov", "a 1May 5", "June 10, july 4 1999",
}

// TestDateTextStarts: on the edge cases and the corpus texts joined into
// interaction-sized texts, the digit-driven date finder gives the
// reference's candidates, with and without jumps past them.
func TestDateTextStarts(t *testing.T) {
	for _, text := range dateTextStartCases {
		checkDateTextStarts(t, text, nil)
		checkDateTextStarts(t, text, []byte{3, 0, 1, 7, 2})
	}
	for _, text := range joinedTexts(corpusTexts(t), 5000) {
		checkDateTextStarts(t, text, nil)
	}
}

// FuzzDateTextStart: the same on arbitrary text and jumps.
func FuzzDateTextStart(f *testing.F) {
	for _, s := range dateTextStartCases {
		f.Add(s, []byte{})
		f.Add(s, []byte{1, 0, 2})
	}
	f.Fuzz(func(t *testing.T, text string, steps []byte) {
		checkDateTextStarts(t, text, steps)
	})
}
