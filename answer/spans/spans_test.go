package spans

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	text := "[2023-05-30 23:40] user: We went to St. Ives on 3.5 km trails. It was great! Did you like it?\n" +
		"assistant: Here are three picks:\n1. The Overstory\n**2.** Piranesi\n3) Klara and the Sun\n" +
		"- a bullet\nCaroline: I moved to Denver."
	got := Split(text)
	want := []Span{
		{Text: "We went to St. Ives on 3.5 km trails.", Speaker: "user", Line: 0},
		{Text: "It was great!", Speaker: "user", Line: 0},
		{Text: "Did you like it?", Speaker: "user", Line: 0},
		{Text: "Here are three picks:", Speaker: "assistant", Line: 1},
		{Text: "The Overstory", Speaker: "assistant", Line: 2, ListPos: 1},
		{Text: "Piranesi", Speaker: "assistant", Line: 3, ListPos: 2},
		{Text: "Klara and the Sun", Speaker: "assistant", Line: 4, ListPos: 3},
		{Text: "a bullet", Speaker: "assistant", Line: 5, Bullet: true},
		{Text: "I moved to Denver.", Speaker: "Caroline", Line: 6},
	}
	if len(got) != len(want) {
		t.Fatalf("Split gave %d spans, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("span %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestSentences(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"One. Two.", []string{"One.", "Two."}},
		{"Price is 3.50 dollars. Fine", []string{"Price is 3.50 dollars.", "Fine"}},
		{"Ask Dr. Alvarez. Then go.", []string{"Ask Dr. Alvarez.", "Then go."}},
		{"He said \"stop.\" Then left.", []string{"He said \"stop.\"", "Then left."}},
		{"lower. case continues", []string{"lower. case continues"}},
		{"Trailing space. ", []string{"Trailing space."}},
	}
	for _, c := range cases {
		got := Sentences(c.in)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Sentences(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestClauses(t *testing.T) {
	got := Clauses("After a long week, my sister told me her flat costs 900 euros; which is a lot but fine")
	// "fine" is a one-word piece and is dropped.
	want := []string{"After a long week", "my sister told me her flat costs 900 euros", "which is a lot"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Clauses = %q, want %q", got, want)
	}
}

func TestTyped(t *testing.T) {
	cases := []struct {
		in   string
		want Values
	}{
		{"I ran 14 km.", Values{Number: true}},
		{"See you on May 25.", Values{Number: true, Date: true, Name: true}},
		{"You may want to rest.", Values{}},
		{"Meet me at 4 pm.", Values{Number: true, Date: true}},
		{"I met Oskar yesterday.", Values{Date: true, Name: true}},
		{"Biscuit is a beagle.", Values{}},
		{"NASA called.", Values{Name: true}},
		{"I think so.", Values{}},
		{"We booked it for three nights.", Values{Number: true}},
		{"[2023-05-30 23:40]", Values{Number: true, Date: true}},
	}
	for _, c := range cases {
		if got := Typed(c.in); got != c.want {
			t.Errorf("Typed(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("[2023-05-30 23:40] user: Hi. There.\nassistant: 1. a\n2. b")
	f.Add("Mr. X: 12) y. Z")
	f.Add("\x00\n\n- \n1.")
	f.Fuzz(func(t *testing.T, s string) {
		for _, sp := range Split(s) {
			if sp.Text == "" && !sp.Bullet && sp.ListPos == 0 {
				t.Errorf("empty plain span from %q", s)
			}
			if utf8.ValidString(s) && !utf8.ValidString(sp.Text) {
				t.Errorf("invalid UTF-8 span %q from valid input", sp.Text)
			}
		}
		for _, c := range Clauses(s) {
			if len(strings.Fields(c)) < 2 {
				t.Errorf("clause %q shorter than two words", c)
			}
		}
		_ = Typed(s)
	})
}

// checkGuards fails if one of Split's patterns matches a line its guard
// turns away, or Typed differs from its definition over strings.Fields.
func checkGuards(t *testing.T, line string) {
	t.Helper()
	for _, g := range []struct {
		name  string
		re    *regexp.Regexp
		guard bool
	}{
		{"stamp", stampRe, startsWith(line, "[")},
		{"speaker", speakerRe, startsWith(line, speakerFirst) && strings.IndexByte(line, ':') >= 0},
		{"numbered", numItemRe, startsWith(line, numItemFirst)},
		{"bullet", bulletRe, startsWith(line, bulletFirst)},
	} {
		if !g.guard && g.re.MatchString(line) {
			t.Errorf("%s pattern matches %q, which its guard turns away", g.name, line)
		}
	}
	if got, want := typed(line), typedFields(line); got != want {
		t.Errorf("typed(%q) = %+v, over strings.Fields %+v", line, got, want)
	}
	if got, want := Typed(line), typedFields(line); got != want {
		t.Errorf("Typed(%q) = %+v, over strings.Fields %+v", line, got, want)
	}
	if f := strings.Fields(line); len(f) > 0 {
		if got, ok := lastField(line); !ok || got != f[len(f)-1] {
			t.Errorf("lastField(%q) = %q, %v; strings.Fields ends with %q", line, got, ok, f[len(f)-1])
		}
	} else if got, ok := lastField(line); ok {
		t.Errorf("lastField(%q) = %q, strings.Fields has none", line, got)
	}
	for n := range 5 {
		if got, want := HasFields(line, n), len(strings.Fields(line)) >= n; got != want {
			t.Errorf("HasFields(%q, %d) = %v, strings.Fields has %d", line, n, got, len(strings.Fields(line)))
		}
	}
}

// typedFields is Typed as it was written, over strings.Fields: the
// reference for typed's field loop.
func typedFields(s string) Values {
	var v Values
	v.Number, v.Date = typedScan(s)
	words := strings.Fields(s)
	for i, w := range words {
		w = strings.Trim(w, `"'()[]{},.;:!?*`)
		r, size := utf8.DecodeRuneInString(w)
		if size == 0 || !unicode.IsUpper(r) || w == "I" || strings.HasPrefix(w, "I'") {
			continue
		}
		if i == 0 || strings.HasSuffix(words[i-1], ".") || strings.HasSuffix(words[i-1], ":") {
			if !innerUpper(w[size:]) {
				continue
			}
		}
		v.Name = true
		break
	}
	return v
}

// guardCases start where each pattern could begin: blanks of every kind,
// list markers, bold, bullets, speakers, stamps, invalid UTF-8.
var guardCases = []string{"", " ", "[2023-05-30 23:40] user: hi", " \t[unknown] x", "\v[2023-05-30 23:40]", "\u00a0[unknown]",
	"user: hi", "assistant:  x", "system:\tx", "Caroline: hi", "Dr. Lee: ok", "Ana María: sí", "ÉMILE: x", "uSer: x", "Mr X Y Z: w",
	"1. one", "12) two", "**3.** three", "123. no", "\t4. x", "- dash", "* star", "• bullet", "\u2023 x", "-x", "*x", "\f- y",
	"I met Oskar.", "NASA called", "Hi. Bob came", "x:\u00a0Yo", "a\u2028B", "\xffA b", "A\u0085B c", "I'm Ann", "\"Quoted\" Name"}

func TestSplitGuards(t *testing.T) {
	for _, c := range guardCases {
		checkGuards(t, c)
		checkGuards(t, "x "+c)
	}
}

// FuzzSplitGuards: on any line the guards never turn away a match, and
// Typed agrees with its definition.
func FuzzSplitGuards(f *testing.F) {
	for _, c := range guardCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, line string) { checkGuards(t, line) })
}
