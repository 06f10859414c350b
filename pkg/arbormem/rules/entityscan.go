package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/rxscan"
)

// The entity patterns' start scans. The candidate finders below read
// their patterns: what may begin a match, and the \b in front of it (RE2's
// \b is ASCII: a digit or letter after a byte that is not [0-9A-Za-z_]).
// At a digit, they also look at what must follow it in a match (a unit, a
// date's "-", a clock's ":" or am/pm, a month name after a day), so that
// the anchored attempt, which costs far more than the look, runs mostly
// where a match is; a digit where no match can start is no candidate.
var (
	scanMoney    = rxscan.NewStartScan(reMoney, nextMoneyStart)
	scanQuantity = rxscan.NewStartScan(reQuantity, nextQuantityStart)
	scanDateISO  = rxscan.NewStartScan(reDateISO, nextDateISOStart)
	scanDateText = rxscan.NewCursorScan(reDateText, nextDateTextStart)
	scanClock    = rxscan.NewStartScan(reClock, nextClockStart)
	scanURL      = rxscan.NewStartScan(reURL, nextURLStart)
	scanQuoted   = rxscan.NewStartScan(reQuoted, nextQuoteStart)
)

var (
	moneyFirst = rxscan.BytesOf("0123456789$\xe2\xc2") // € is E2 82 AC, £ C2 A3
	quoteFirst = rxscan.BytesOf("\"'\xe2")             // “ is E2 80 9C
)

// digitCommaEnd is the end of the run of digits and commas from i (the
// greedy [\d,]* of reMoney and reQuantity).
func digitCommaEnd(text string, i int) int {
	for i < len(text) && (rxscan.IsDigitByte(text[i]) || text[i] == ',') {
		i++
	}
	return i
}

// decimalEnd is the end of the greedy (?:\.\d+)? at i.
func decimalEnd(text string, i int) int {
	if i+1 < len(text) && text[i] == '.' && rxscan.IsDigitByte(text[i+1]) {
		i += 2
		for i < len(text) && rxscan.IsDigitByte(text[i]) {
			i++
		}
	}
	return i
}

// unitAfter reports whether `\s?(?:units)\b` matches at j, the end of a
// number `\d[\d,]*(?:\.\d+)?` (units case-sensitive, as in reMoney's and
// reQuantity's). A match of the number part must end there: a shorter one
// leaves a digit, a comma or a "." next, which neither \s nor a unit
// matches.
func unitAfter(text string, j int, units []string) bool {
	if j < len(text) && rxscan.IsSpace(text[j]) && unitAt(text, j+1, units) {
		return true
	}
	return unitAt(text, j, units)
}

func unitAt(text string, k int, units []string) bool {
	for _, u := range units {
		if strings.HasPrefix(text[k:], u) && rxscan.BoundaryAt(text, k+len(u)) {
			return true
		}
	}
	return false
}

// nextMoneyStart: reMoney starts with a currency sign, or (its second
// branch, with no \b) with a number and a currency word. The digits of
// one run all end their number where the first does, so when the first
// has no currency word after it none of them has.
func nextMoneyStart(text string, from int) int {
	for i := from; ; i++ {
		if i = rxscan.IndexIn(text, i, moneyFirst); i < 0 {
			return -1
		}
		switch text[i] {
		case 0xE2:
			if strings.HasPrefix(text[i:], "€") {
				return i
			}
		case 0xC2:
			if strings.HasPrefix(text[i:], "£") {
				return i
			}
		case '$':
			return i
		default:
			j := digitCommaEnd(text, i+1)
			if unitAfter(text, decimalEnd(text, j), moneyWords()) {
				return i
			}
			i = j - 1
		}
	}
}

// nextQuantityStart: reQuantity is \b, a number and a unit; the word
// starts inside one run of digits and commas (after a comma) share the
// first one's unit, or lack of one.
func nextQuantityStart(text string, from int) int {
	for i := from; ; i++ {
		if i = rxscan.IndexDigit(text, i); i < 0 {
			return -1
		}
		if !rxscan.WordStart(text, i) {
			continue
		}
		j := digitCommaEnd(text, i+1)
		if unitAfter(text, decimalEnd(text, j), quantityUnits()) {
			return i
		}
		i = j - 1
	}
}

// nextDateISOStart: reDateISO is \b then \d{4}-\d{2}-\d{2}.
func nextDateISOStart(text string, from int) int {
	for i := from; ; i++ {
		if i = rxscan.IndexDigit(text, i); i < 0 {
			return -1
		}
		if rxscan.WordStart(text, i) && isISODate(text[i:]) {
			return i
		}
	}
}

// isISODate reports whether s starts with \d{4}-\d{2}-\d{2}.
func isISODate(s string) bool {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, k := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if !rxscan.IsDigitByte(s[k]) {
			return false
		}
	}
	return true
}

// nextClockStart: both branches of reClock are \b and one or two digits,
// then ":" or (after an optional space) an "a" or "p" of am/pm, in any
// case (neither letter folds to a non-ASCII rune).
func nextClockStart(text string, from int) int {
	for i := from; ; i++ {
		if i = rxscan.IndexDigit(text, i); i < 0 {
			return -1
		}
		if rxscan.WordStart(text, i) && clockAfterDigits(text, i) {
			return i
		}
	}
}

func clockAfterDigits(text string, c int) bool {
	for p := c + 1; p < len(text) && p <= c+2; p++ {
		if p == c+2 && !rxscan.IsDigitByte(text[c+1]) {
			break
		}
		if b := text[p]; b == ':' || isAmPm(b) || rxscan.IsSpace(b) && p+1 < len(text) && isAmPm(text[p+1]) {
			return true
		}
	}
	return false
}

func isAmPm(b byte) bool { return b|0x20 == 'a' || b|0x20 == 'p' }

// nextDateTextStart: reDateText is \b then a day number, or \b then a
// month name matched ignoring case and followed by `\.?\s+\d`. Every match
// holds a digit, so the finder goes from digit to digit (digits are rare
// in prose; most letters start no month name): a digit d is a candidate
// when \b holds before it and a month may follow the day (monthAfterDay),
// and before it, when `\.?\s+` precedes d, so is every position of the
// run of ASCII letters and non-ASCII bytes (isMonthRunByte) that ends
// there where a month name may start: a word start with a month's first
// three letters, or "ſ" (the long s, which folds to s: "ſep"; it is not an
// ASCII word character, so the \b before it is left to the regexp). The
// candidates are those of the finder that stops at every byte a month
// name can start with (nextDateTextStartRef in the tests;
// FuzzDateTextStart). cur keeps the current digit and run across calls,
// so that a run of many candidates ("ſſſ… 5") is read once, not once per
// candidate.
func nextDateTextStart(text string, from int, cur *rxscan.Cursor) int {
	for {
		if cur.Set && from <= cur.D {
			for i := max(from, cur.A); i < cur.B; i++ {
				if monthWordAt(text, i) {
					return i
				}
			}
			if rxscan.WordStart(text, cur.D) && monthAfterDay(text, cur.D) {
				return cur.D
			}
			from = cur.D + 1
		}
		d := rxscan.IndexDigit(text, from)
		if d < 0 {
			return -1
		}
		// The run before d, from `from` on: white space (at least one
		// byte), an optional ".", then the word.
		s := d
		for s > from && rxscan.IsSpace(text[s-1]) {
			s--
		}
		b := s
		if s < d && s > from && text[s-1] == '.' {
			b = s - 1
		}
		a := b
		if s < d {
			for a > from && isMonthRunByte(text[a-1]) {
				a--
			}
		}
		*cur = rxscan.Cursor{Set: true, D: d, A: a, B: b}
	}
}

// monthWordAt reports whether a month name of reDateText may start at i
// (when the word there is followed by `\.?\s+\d`): "ſ", or a word start
// with a month's first three letters.
func monthWordAt(text string, i int) bool {
	if text[i] == 0xC5 {
		return strings.HasPrefix(text[i:], "ſ")
	}
	return rxscan.WordStart(text, i) && i+3 <= len(text) && isMonthStem(text[i:i+3])
}

// isMonthRunByte: an ASCII letter or a byte of a non-ASCII rune. Their
// run is what a month name's `\.?\s+\d` may follow (a month name matched
// ignoring case may hold "ſ" or the Kelvin sign); a longer run than the
// name has no "." or space after the name, so cannot be one.
func isMonthRunByte(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || c >= utf8.RuneSelf }

// monthAfterDay reports whether the digit at c may start reDateText's
// second branch: one or two digits, an optional ordinal suffix (matched
// ignoring case: "ſt" holds a non-ASCII rune, taken as a possible one), white
// space, an optional "of" and white space, and a month name's first
// three letters (or a non-ASCII rune, the long s of "ſep").
func monthAfterDay(text string, c int) bool {
	for p := c + 1; p < len(text) && p <= c+2; p++ {
		if p == c+2 && !rxscan.IsDigitByte(text[c+1]) {
			break
		}
		if text[p] >= utf8.RuneSelf {
			return true
		}
		if monthAfterSpace(text, p) {
			return true
		}
		if p+2 <= len(text) && isOrdinalSuffix(text[p:p+2]) && monthAfterSpace(text, p+2) {
			return true
		}
	}
	return false
}

// monthAfterSpace reports whether `\s+(?:of\s+)?` at q is followed by
// what may start a month name.
func monthAfterSpace(text string, q int) bool {
	r := rxscan.SkipSpace(text, q)
	if r == q {
		return false
	}
	if monthStemAt(text, r) {
		return true
	}
	if r+2 < len(text) && text[r]|0x20 == 'o' && text[r+1]|0x20 == 'f' {
		if r2 := rxscan.SkipSpace(text, r+2); r2 > r+2 && monthStemAt(text, r2) {
			return true
		}
	}
	return false
}

// monthStemAt reports whether a month name may start at r: its first
// three letters in any ASCII case, or a non-ASCII rune (only s of the
// months' letters folds to one, "ſ", and only "sep" starts with it).
func monthStemAt(text string, r int) bool {
	return r < len(text) && (text[r] >= utf8.RuneSelf || r+3 <= len(text) && isMonthStem(text[r:r+3]))
}

// isOrdinalSuffix reports whether the two bytes s are st, nd, rd or th in
// any ASCII case.
func isOrdinalSuffix(s string) bool {
	a, b := s[0]|0x20, s[1]|0x20
	return a == 's' && b == 't' || a == 'n' && b == 'd' || a == 'r' && b == 'd' || a == 't' && b == 'h'
}

// isMonthStem reports whether the three bytes s are, in any ASCII case,
// the first three letters of a month name (the keys of monthNames).
func isMonthStem(s string) bool {
	switch stem3(s[0]|0x20, s[1]|0x20, s[2]|0x20) {
	case stem3('j', 'a', 'n'), stem3('f', 'e', 'b'), stem3('m', 'a', 'r'), stem3('a', 'p', 'r'), stem3('m', 'a', 'y'), stem3('j', 'u', 'n'),
		stem3('j', 'u', 'l'), stem3('a', 'u', 'g'), stem3('s', 'e', 'p'), stem3('o', 'c', 't'), stem3('n', 'o', 'v'), stem3('d', 'e', 'c'):
		return true
	}
	return false
}

func stem3(a, b, c byte) uint32 { return uint32(a)<<16 | uint32(b)<<8 | uint32(c) }

// nextURLStart: reURL starts with "http" or "www.".
func nextURLStart(text string, from int) int {
	h := strings.Index(text[from:], "http")
	w := strings.Index(text[from:], "www.")
	switch {
	case h < 0 && w < 0:
		return -1
	case h < 0 || (w >= 0 && w < h):
		return from + w
	}
	return from + h
}

// nextQuoteStart: reQuoted starts with `"`, with "“", or with a space or
// "(" before "'" (or that "'" at the start of the text, after ^).
func nextQuoteStart(text string, from int) int {
	for i := from; ; i++ {
		if i = rxscan.IndexIn(text, i, quoteFirst); i < 0 {
			return -1
		}
		switch text[i] {
		case '"':
			return i
		case 0xE2:
			if strings.HasPrefix(text[i:], "“") {
				return i
			}
		case '\'':
			if i == 0 {
				return i
			}
			if p := text[i-1]; i-1 >= from && (rxscan.IsSpace(p) || p == '(') {
				return i - 1
			}
		}
	}
}

func init() {
	rxscan.SetStartCheck(rePossessive, possessiveMayStart)
	rxscan.SetFilter(reContinuation, mayOpenContinuation)
}

// possessiveMayStart reports whether a match of rePossessive
// (`\b([A-Z][\p{L}]+(?:\s+[A-Z][\p{L}]+)?)['’]s\s+…`) can start at c: a
// capital, letters, and "'s" or "’s" right after them or after a second
// capitalised word. A run of letters is followed by neither an apostrophe
// nor white space except where it ends, so only the longest run of each
// word can end where the rest of the match begins (as only the longest
// run of white space can end at a capital).
func possessiveMayStart(text string, c int) bool {
	for word := 0; word < 2; word++ {
		if c >= len(text) || text[c] < 'A' || text[c] > 'Z' {
			return false
		}
		j := lettersEnd(text, c+1)
		if j == c+1 {
			return false
		}
		if strings.HasPrefix(text[j:], "'s") || strings.HasPrefix(text[j:], "’s") {
			return true
		}
		c = j
		for c < len(text) && rxscan.IsSpace(text[c]) {
			c++
		}
		if c == j {
			return false
		}
	}
	return false
}

// lettersEnd is the end of the run of \p{L} runes from i (an invalid
// byte, read as U+FFFD, is no letter).
func lettersEnd(text string, i int) int {
	for i < len(text) {
		r, w := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			break
		}
		i += w
	}
	return i
}
