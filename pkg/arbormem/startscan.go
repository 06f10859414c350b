package arbormem

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A start scan finds a regexp's matches by trying the regexp only where a
// match can start. The unanchored search of the regexp engine runs its
// automaton at every byte of the text; the entity patterns (money,
// quantities, dates, clock times, links, quoted titles) have no literal
// prefix for the engine to skip to, and the offline commit runs them over
// whole interactions of several kilobytes, where they cost more than the
// rest of the rule-based extraction together. A match of each of them can
// start only at a few kinds of byte (a digit, a currency sign, a quote, a
// word start whose letters begin a month name), so a byte scan finds the
// candidate positions and the regexp itself, anchored there, decides.
//
// The regexp stays the single definition of what matches; the candidate
// finder only has to include every position where a match starts
// (TestStartScanSameAsRegexp and FuzzStartScan compare every scan with the
// regexp's own Find functions).
//
// Exactness: FindAll's leftmost-first search from pos finds the least
// start c >= pos at which the pattern matches, and there the match a
// backtracking engine prefers; the next search starts at that match's end.
// That is what the scan does, c by c over the candidates. The anchored
// attempt at c sees the rune before c as the full-text search does (for
// \b, and ^ which holds only at 0): at c > 0 it is ^(?s:.)(?:re) run from
// the start of that rune, the dot consuming the rune deterministically; at
// 0 it is ^(?:re). It reads the rest of the text through an io.RuneReader,
// so the engine is the NFA, which stops as soon as the anchored attempt
// has no live thread (the backtracker would clear a bit-set the size of
// the whole remaining text on every attempt) and nothing is cut off: a
// trailing \b or a greedy run sees the real text. Candidates are never
// inside a valid UTF-8 sequence (ASCII bytes, first bytes of sequences,
// or bytes of invalid ones, each read as U+FFFD): the engine tries every
// such position, so it would have tried each candidate too. The regexps
// are leftmost-first (not Longest), as the wrappers are compiled.
type startScan struct {
	re *regexp.Regexp
	// anchored compiles, on first use (not at every start of the
	// program, most of which never scan), ^(?:re) for a match at the start
	// of the text and ^(?s:.)(?:re), run from the rune before the match.
	anchored func() (atStart, afterOne *regexp.Regexp)
	// next returns the first position >= from where a match of re may
	// start, or -1. It must return every position where one does start.
	next func(text string, from int) int
	// nextCur, when set, is next for a finder that carries what it has
	// read from one call to the next of the same scan (whose from only
	// grows), in cur, so that it reads each byte a bounded number of times.
	nextCur func(text string, from int, cur *scanCursor) int
}

// scanCursor is what a candidate finder with a cursor remembers within
// one scan: nextDateTextStart's region, the digit at d and the run of
// letters [a, b) before it whose every position ends at `\.?\s+` and d.
type scanCursor struct {
	set     bool
	d, a, b int
}

// newCursorScan is newStartScan with a finder that keeps a cursor.
func newCursorScan(re *regexp.Regexp, next func(text string, from int, cur *scanCursor) int) *startScan {
	s := newStartScan(re, nil)
	s.nextCur = next
	return s
}

// nextAt is the scan's candidate finder, with cur for one that keeps one.
func (s *startScan) nextAt(text string, from int, cur *scanCursor) int {
	if s.nextCur != nil {
		return s.nextCur(text, from, cur)
	}
	return s.next(text, from)
}

// newStartScan wraps re, which must not match the empty string (every
// candidate then advances the search and FindAll's empty-match rule never
// applies).
func newStartScan(re *regexp.Regexp, next func(text string, from int) int) *startScan {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil || minLen(t.Simplify()) == 0 {
		panic(fmt.Sprintf("arbormem: start scan of %q: the pattern must not match the empty string", re))
	}
	return &startScan{
		re: re,
		anchored: sync.OnceValues(func() (*regexp.Regexp, *regexp.Regexp) {
			return regexp.MustCompile(`^(?:` + re.String() + `)`), regexp.MustCompile(`^(?s:.)(?:` + re.String() + `)`)
		}),
		next: next,
	}
}

// minLen is the least number of runes a match of t consumes.
func minLen(t *syntax.Regexp) int {
	switch t.Op {
	case syntax.OpLiteral:
		return len(t.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(t.Sub[0])
	case syntax.OpRepeat:
		return t.Min * minLen(t.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range t.Sub {
			n += minLen(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range t.Sub {
			if m := minLen(s); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0 // empty-width assertions, empty match, star, quest
}

// at returns the submatch indices (just the match's when !sub) of the
// match of re that starts at c, or nil; rd is scratch.
func (s *startScan) at(text string, c int, sub bool, rd *countingReader) []int {
	atStart, afterOne := s.anchored()
	re, off := atStart, 0
	if c > 0 {
		_, k := utf8.DecodeLastRuneInString(text[:c])
		re, off = afterOne, c-k
	}
	rd.Reset(text[off:])
	var m []int
	if sub {
		m = re.FindReaderSubmatchIndex(rd)
	} else {
		m = re.FindReaderIndex(rd)
	}
	if m == nil {
		return nil
	}
	for i, x := range m {
		if x >= 0 {
			m[i] = x + off
		}
	}
	m[0] = c
	return m
}

// all is re.FindAllStringSubmatchIndex(text, n) (sub) or
// re.FindAllStringIndex(text, n) (!sub), n < 0 meaning all.
func (s *startScan) all(text string, n int, sub bool) [][]int {
	out, _ := s.scan(text, n, sub)
	return out
}

// scan is all, and reports whether it gave way to the engine's search.
func (s *startScan) scan(text string, n int, sub bool) (out [][]int, engine bool) {
	// The reader is made at the first candidate (most texts a scan runs
	// on hold none), the cursor only for a finder that keeps one.
	var rd *countingReader
	var cur *scanCursor
	if s.nextCur != nil {
		cur = new(scanCursor)
	}
	for pos := 0; pos < len(text) && n != 0; {
		c := s.nextAt(text, pos, cur)
		if c < 0 {
			break
		}
		if rd == nil {
			rd = &countingReader{budget: scanBudget(len(text))}
		}
		m := s.at(text, c, sub, rd)
		if rd.read > rd.budget {
			// Candidates whose attempts each read far (a run of
			// thousands of digits, every one a candidate of reMoney)
			// would make the scan quadratic: the engine's own search,
			// linear in the text, gives the same matches.
			if sub {
				return s.re.FindAllStringSubmatchIndex(text, n0(n, len(out))), true
			}
			return s.re.FindAllStringIndex(text, n0(n, len(out))), true
		}
		if m == nil {
			pos = c + 1
			continue
		}
		out = append(out, m)
		n--
		pos = m[1]
	}
	return out, false
}

// n0 is the n a FindAll call started with: n (what is left) plus the
// matches found so far, or -1 (all) when n was negative.
func n0(n, found int) int {
	if n < 0 {
		return -1
	}
	return n + found
}

// scanBudget is how many runes the anchored attempts of one scan may read
// before the scan gives way to the engine's search: a few times the text,
// which ordinary text stays far below (an attempt dies within a few runes
// of its candidate).
func scanBudget(textLen int) int { return 4*textLen + 4096 }

// countingReader reads a text for the anchored attempts and counts the
// runes they read, across attempts.
type countingReader struct {
	strings.Reader
	read, budget int
}

// ReadRune is strings.Reader's, counted.
func (r *countingReader) ReadRune() (rune, int, error) {
	r.read++
	return r.Reader.ReadRune()
}

// FindAllStringIndex is re.FindAllStringIndex(text, n).
func (s *startScan) FindAllStringIndex(text string, n int) [][]int { return s.all(text, n, false) }

// FindAllStringSubmatchIndex is re.FindAllStringSubmatchIndex(text, n).
func (s *startScan) FindAllStringSubmatchIndex(text string, n int) [][]int {
	return s.all(text, n, true)
}

// FindAllString is re.FindAllString(text, n).
func (s *startScan) FindAllString(text string, n int) []string {
	ms := s.all(text, n, false)
	if ms == nil {
		return nil
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = text[m[0]:m[1]]
	}
	return out
}

// FindAllStringSubmatch is re.FindAllStringSubmatch(text, n).
func (s *startScan) FindAllStringSubmatch(text string, n int) [][]string {
	ms := s.all(text, n, true)
	if ms == nil {
		return nil
	}
	out := make([][]string, len(ms))
	for i, m := range ms {
		out[i] = make([]string, len(m)/2)
		for g := range out[i] {
			if m[2*g] >= 0 {
				out[i][g] = text[m[2*g]:m[2*g+1]]
			}
		}
	}
	return out
}

// FindStringIndex is re.FindStringIndex(text).
func (s *startScan) FindStringIndex(text string) []int {
	if ms := s.all(text, 1, false); ms != nil {
		return ms[0]
	}
	return nil
}

// FindStringSubmatchIndex is re.FindStringSubmatchIndex(text).
func (s *startScan) FindStringSubmatchIndex(text string) []int {
	if ms := s.all(text, 1, true); ms != nil {
		return ms[0]
	}
	return nil
}

// FindStringSubmatch is re.FindStringSubmatch(text).
func (s *startScan) FindStringSubmatch(text string) []string {
	if ms := s.FindAllStringSubmatch(text, 1); ms != nil {
		return ms[0]
	}
	return nil
}

// FindString is re.FindString(text).
func (s *startScan) FindString(text string) string {
	if ms := s.all(text, 1, false); ms != nil {
		return text[ms[0][0]:ms[0][1]]
	}
	return ""
}

// MatchString is re.MatchString(text).
func (s *startScan) MatchString(text string) bool { return s.all(text, 1, false) != nil }

// The entity patterns' start scans. The candidate finders below read
// their patterns: what may begin a match, and the \b in front of it (RE2's
// \b is ASCII: a digit or letter after a byte that is not [0-9A-Za-z_]).
// At a digit, they also look at what must follow it in a match (a unit, a
// date's "-", a clock's ":" or am/pm, a month name after a day), so that
// the anchored attempt, which costs far more than the look, runs mostly
// where a match is; a digit where no match can start is no candidate.
var (
	scanMoney    = newStartScan(reMoney, nextMoneyStart)
	scanQuantity = newStartScan(reQuantity, nextQuantityStart)
	scanDateISO  = newStartScan(reDateISO, nextDateISOStart)
	scanDateText = newCursorScan(reDateText, nextDateTextStart)
	scanClock    = newStartScan(reClock, nextClockStart)
	scanURL      = newStartScan(reURL, nextURLStart)
	scanQuoted   = newStartScan(reQuoted, nextQuoteStart)
)

func isDigitByte(b byte) bool { return '0' <= b && b <= '9' }

// isREWordByte is RE2's ASCII word character ([0-9A-Za-z_]); a byte of a
// multi-byte rune is not one, as the rune is not.
func isREWordByte(b byte) bool {
	return isDigitByte(b) || 'a' <= b|0x20 && b|0x20 <= 'z' || b == '_'
}

// wordStart reports whether \b holds before the word character at i.
func wordStart(text string, i int) bool { return i == 0 || !isREWordByte(text[i-1]) }

// boundaryAt reports whether RE2's \b holds at i.
func boundaryAt(text string, i int) bool {
	return (i > 0 && isREWordByte(text[i-1])) != (i < len(text) && isREWordByte(text[i]))
}

// byteSet is a set of bytes: the bytes a match can start with, tested in
// the candidate finders' inner loops by one load.
type byteSet [256]bool

func bytesOf(s string) *byteSet {
	var b byteSet
	for i := range len(s) {
		b[s[i]] = true
	}
	return &b
}

// indexIn returns the first i >= from with text[i] in set, or -1.
func indexIn(text string, from int, set *byteSet) int {
	for i := from; i < len(text); i++ {
		if set[text[i]] {
			return i
		}
	}
	return -1
}

const digitBytes = "0123456789"

// indexDigit returns the first i >= from where text[i] is an ASCII digit,
// or -1 (indexIn with the set of digits; indexDigitRef in the tests),
// eight bytes at a time: digits are rare in prose, and the entity scans
// look for them over whole interactions. A word x of eight bytes may hold
// a digit when some byte of x^0x30… is below 10, which the bit trick
// (t-0x0A…)&^t&0x80… tells; the bytes of such a word are then looked at
// one by one, so the trick only skips words, never decides.
func indexDigit(text string, from int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := max(from, 0)
	for ; i+8 <= len(text); i += 8 {
		x := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		if t := x ^ 0x30*ones; (t-10*ones)&^t&highs != 0 {
			for k := i; k < i+8; k++ {
				if isDigitByte(text[k]) {
					return k
				}
			}
		}
	}
	for ; i < len(text); i++ {
		if isDigitByte(text[i]) {
			return i
		}
	}
	return -1
}

var (
	moneyFirst = bytesOf(digitBytes + "$\xe2\xc2") // € is E2 82 AC, £ C2 A3
	quoteFirst = bytesOf("\"'\xe2")                // “ is E2 80 9C
)

// digitCommaEnd is the end of the run of digits and commas from i (the
// greedy [\d,]* of reMoney and reQuantity).
func digitCommaEnd(text string, i int) int {
	for i < len(text) && (isDigitByte(text[i]) || text[i] == ',') {
		i++
	}
	return i
}

// decimalEnd is the end of the greedy (?:\.\d+)? at i.
func decimalEnd(text string, i int) int {
	if i+1 < len(text) && text[i] == '.' && isDigitByte(text[i+1]) {
		i += 2
		for i < len(text) && isDigitByte(text[i]) {
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
	if j < len(text) && isRESpace(text[j]) && unitAt(text, j+1, units) {
		return true
	}
	return unitAt(text, j, units)
}

func unitAt(text string, k int, units []string) bool {
	for _, u := range units {
		if strings.HasPrefix(text[k:], u) && boundaryAt(text, k+len(u)) {
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
		if i = indexIn(text, i, moneyFirst); i < 0 {
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
		if i = indexDigit(text, i); i < 0 {
			return -1
		}
		if !wordStart(text, i) {
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
		if i = indexDigit(text, i); i < 0 {
			return -1
		}
		if wordStart(text, i) && isISODate(text[i:]) {
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
		if !isDigitByte(s[k]) {
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
		if i = indexDigit(text, i); i < 0 {
			return -1
		}
		if wordStart(text, i) && clockAfterDigits(text, i) {
			return i
		}
	}
}

func clockAfterDigits(text string, c int) bool {
	for p := c + 1; p < len(text) && p <= c+2; p++ {
		if p == c+2 && !isDigitByte(text[c+1]) {
			break
		}
		if b := text[p]; b == ':' || isAmPm(b) || isRESpace(b) && p+1 < len(text) && isAmPm(text[p+1]) {
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
func nextDateTextStart(text string, from int, cur *scanCursor) int {
	for {
		if cur.set && from <= cur.d {
			for i := max(from, cur.a); i < cur.b; i++ {
				if monthWordAt(text, i) {
					return i
				}
			}
			if wordStart(text, cur.d) && monthAfterDay(text, cur.d) {
				return cur.d
			}
			from = cur.d + 1
		}
		d := indexDigit(text, from)
		if d < 0 {
			return -1
		}
		// The run before d, from `from` on: white space (at least one
		// byte), an optional ".", then the word.
		s := d
		for s > from && isRESpace(text[s-1]) {
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
		*cur = scanCursor{set: true, d: d, a: a, b: b}
	}
}

// monthWordAt reports whether a month name of reDateText may start at i
// (when the word there is followed by `\.?\s+\d`): "ſ", or a word start
// with a month's first three letters.
func monthWordAt(text string, i int) bool {
	if text[i] == 0xC5 {
		return strings.HasPrefix(text[i:], "ſ")
	}
	return wordStart(text, i) && i+3 <= len(text) && isMonthStem(text[i:i+3])
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
		if p == c+2 && !isDigitByte(text[c+1]) {
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
	r := skipRESpace(text, q)
	if r == q {
		return false
	}
	if monthStemAt(text, r) {
		return true
	}
	if r+2 < len(text) && text[r]|0x20 == 'o' && text[r+1]|0x20 == 'f' {
		if r2 := skipRESpace(text, r+2); r2 > r+2 && monthStemAt(text, r2) {
			return true
		}
	}
	return false
}

func skipRESpace(text string, i int) int {
	for i < len(text) && isRESpace(text[i]) {
		i++
	}
	return i
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
		if i = indexIn(text, i, quoteFirst); i < 0 {
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
			if p := text[i-1]; i-1 >= from && (isRESpace(p) || p == '(') {
				return i - 1
			}
		}
	}
}

// Derived start scans. For the extractors' cue regexps the candidate
// positions are read off the regexp's syntax tree rather than written by
// hand: the bytes a match can start with, those that need the \b before
// them (a word byte after a non-word byte), and whether a match can start
// at the start of the text only (a leading ^). A regexp whose matches can
// start almost anywhere (a leading optional part, a large class, a space)
// gets no derived scan and is searched by the regexp engine.

// starts is where a regexp's matches can start.
type starts struct {
	at   [256]uint8 // startAny: any position; startWord: only after a non-word byte
	zero bool       // at position 0 (a leading ^)
	pass bool       // the part can match empty (what follows it may start the match)
}

const (
	startAny  = 1
	startWord = 2
)

func (s *starts) addAny(b byte) { s.at[b] = startAny }

func (s *starts) addWord(b byte) {
	if s.at[b] == 0 {
		s.at[b] = startWord
	}
}

// union adds o's start bytes to s, all restricted to word starts when
// wordOnly (o follows a \b) and o's byte is a word byte.
func (s *starts) union(o *starts, wordOnly bool) {
	for b, k := range o.at {
		switch {
		case k == startWord || k == startAny && wordOnly && isREWordByte(byte(b)):
			s.addWord(byte(b))
		case k == startAny:
			s.addAny(byte(b))
		}
	}
	s.zero = s.zero || o.zero
}

// startsOf returns where matches of t can start.
func startsOf(t *syntax.Regexp) *starts {
	s := &starts{}
	switch t.Op {
	case syntax.OpNoMatch:
	case syntax.OpLiteral:
		r := t.Rune[0]
		s.addRune(r)
		if t.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				s.addRune(f)
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(t.Rune); i += 2 {
			lo, hi := t.Rune[i], t.Rune[i+1]
			for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
				s.addAny(byte(r))
			}
			if hi >= utf8.RuneSelf {
				// The first byte of a rune's encoding grows with the rune
				// (surrogates, which have none, are left out of the ends).
				lo, hi := max(lo, utf8.RuneSelf), hi
				if 0xD800 <= lo && lo <= 0xDFFF {
					lo = 0xE000
				}
				if 0xD800 <= hi && hi <= 0xDFFF {
					hi = 0xD7FF
				}
				var lb, hb [utf8.UTFMax]byte
				utf8.EncodeRune(lb[:], lo)
				utf8.EncodeRune(hb[:], hi)
				for b := int(lb[0]); b <= int(hb[0]); b++ {
					s.addAny(byte(b))
				}
			}
			if lo <= utf8.RuneError && utf8.RuneError <= hi {
				// An invalid byte is read as U+FFFD.
				for b := 0x80; b <= 0xFF; b++ {
					s.addAny(byte(b))
				}
			}
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		for b := range 256 {
			if b != '\n' || t.Op == syntax.OpAnyChar {
				s.addAny(byte(b))
			}
		}
	case syntax.OpBeginText:
		s.zero = true
	case syntax.OpCapture, syntax.OpPlus:
		return startsOf(t.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		s = startsOf(t.Sub[0])
		s.pass = true
	case syntax.OpRepeat:
		s = startsOf(t.Sub[0])
		s.pass = s.pass || t.Min == 0
	case syntax.OpAlternate:
		for _, sub := range t.Sub {
			o := startsOf(sub)
			s.union(o, false)
			s.pass = s.pass || o.pass
		}
	case syntax.OpConcat:
		// The parts up to the first that cannot match empty can start the
		// match; a \b among the empty-width parts before a part restricts
		// its word bytes to word starts (all those parts hold at the
		// match's start), and a ^ there puts the start at 0.
		wb := false
		for _, sub := range t.Sub {
			switch sub.Op {
			case syntax.OpWordBoundary:
				wb = true
				continue
			case syntax.OpBeginText:
				s.zero = true
				return s
			}
			o := startsOf(sub)
			s.union(o, wb)
			if !o.pass {
				return s
			}
		}
		s.pass = true
	default:
		// \b, \B, line anchors, $, the empty string: they consume nothing.
		s.pass = true
	}
	return s
}

func (s *starts) addRune(r rune) {
	var b [utf8.UTFMax]byte
	utf8.EncodeRune(b[:], r)
	s.addAny(b[0])
}

// selective reports whether trying the regexp at its start positions is
// likely cheaper than its unanchored search: no match starts with an empty
// part, at any position (not only at word starts) only a minority of the
// lower-case letters and no space can start one, and some byte can (a
// regexp anchored at the start of the text only is searched as fast by
// the engine, whose backtracker beats the anchored attempt's NFA).
func (s *starts) selective() bool {
	if s.pass || s.at[' '] == startAny {
		return false
	}
	n, letters := 0, 0
	for b, k := range s.at {
		if k != 0 {
			n++
			if 'a' <= b && b <= 'z' && k == startAny {
				letters++
			}
		}
	}
	return n > 0 && letters <= 8
}

// next is the first position >= from where a match may start, or -1.
// Positions inside a valid UTF-8 sequence are never starts (the engine
// decodes whole runes), even when their byte is one an invalid byte's
// U+FFFD may start with.
func (s *starts) next(text string, from int) int {
	if from == 0 && s.zero {
		return 0
	}
	for i := from; i < len(text); i++ {
		switch s.at[text[i]] {
		case 0:
			continue
		case startWord:
			if !wordStart(text, i) {
				continue
			}
		}
		if text[i] < 0x80 || text[i] >= 0xC0 || !insideRune(text, i) {
			return i
		}
	}
	return -1
}

// insideRune reports whether the continuation byte at i is part of a
// valid UTF-8 sequence that starts before it.
func insideRune(text string, i int) bool {
	for j := i - 1; j >= 0 && j >= i-(utf8.UTFMax-1); j-- {
		if c := text[j]; c < 0x80 || c >= 0xC0 {
			r, w := utf8.DecodeRuneInString(text[j:])
			return (r != utf8.RuneError || w > 1) && j+w > i
		}
	}
	return false
}

// derivedScan returns re's derived start scan, or nil when it has none.
func derivedScan(re *regexp.Regexp) *startScan {
	if sc, ok := derivedScans.Load(re); ok {
		return sc.(*startScan)
	}
	var sc *startScan
	if t, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		t = t.Simplify()
		if st := startsOf(t); minLen(t) > 0 && st.selective() {
			next, may := st.next, handChecks[re]
			if hs, ok := headSetOf(t); ok {
				may = hs.may
			}
			if may != nil {
				next = func(text string, from int) int {
					for {
						c := st.next(text, from)
						if c < 0 || may(text, c) {
							return c
						}
						from = c + 1
					}
				}
			}
			sc = newStartScan(re, next)
		}
	}
	derivedScans.Store(re, sc)
	return sc
}

var derivedScans sync.Map // *regexp.Regexp → *startScan (nil: none)

// A head set is what the first n bytes of every match of a regexp can
// be, lower-cased: a derived scan's candidates are only the first bytes
// of matches (a word start with "a", "o" or "f" for reReturn's "about",
// "on" and "for", which most words of a text are), and one look at the
// next bytes rules most of them out before the anchored attempt, which
// costs far more. n is the largest, up to maxHeadLen, for which the
// heads can be listed (maxHeads of them at most).
//
// Exactness: headsOf gives, for each match, the lower-cased ASCII bytes
// it starts with, reading literals, small ASCII classes, alternations,
// repetitions and captures, and skipping empty-width assertions (which
// can only rule more out); anything else (a rune outside ASCII, a large
// class, a match shorter than n) gives no head set. The check lower-cases
// the text's bytes too, so a case-sensitive literal passes other cases
// as well, and it lets through a candidate whose next bytes are not
// ASCII (a fold of (?i)'s k or s, U+212A or U+017F, or a byte U+FFFD
// stands for) or that lies within n bytes of the end: it drops only
// positions where no match can start. TestStartScanSameAsRegexp and
// FuzzStartScan compare the derived scans with their regexps.
type headSet struct {
	n     int
	heads map[string]bool
}

// maxHeadLen is the most bytes of a candidate a head set checks;
// maxHeads bounds a head set (more heads filter little).
const (
	maxHeadLen = 8
	maxHeads   = 512
)

// headSetOf returns the head set of t's matches, or false.
func headSetOf(t *syntax.Regexp) (headSet, bool) {
	memo := headsMemo{}
	for n := maxHeadLen; n >= 2; n-- {
		hs, ok := memo.of(t, n)
		if !ok || len(hs) > maxHeads {
			continue
		}
		for h := range hs {
			if len(h) < n {
				ok = false // a match shorter than n
				break
			}
		}
		if ok {
			return headSet{n, hs}, true
		}
	}
	return headSet{}, false
}

// may reports whether a match can start at c.
func (hs headSet) may(text string, c int) bool {
	if c+hs.n > len(text) {
		return true
	}
	var k [maxHeadLen]byte
	for i := range hs.n {
		b := text[c+i]
		if b >= utf8.RuneSelf {
			return true
		}
		k[i] = lowerASCII(b)
	}
	return hs.heads[string(k[:hs.n])]
}

// handChecks are necessary conditions for a match to start at a derived
// scan's candidate, written by hand for regexps with no head set.
var handChecks = map[*regexp.Regexp]func(text string, c int) bool{rePossessive: possessiveMayStart}

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
		for c < len(text) && isRESpace(text[c]) {
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

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// headsMemo remembers headsOf's answers for one regexp's parts while
// headSetOf tries each n (the answers are only read, never changed).
type headsMemo map[headsKey]headsAnswer

type headsKey struct {
	t *syntax.Regexp
	k int
}

type headsAnswer struct {
	heads map[string]bool
	ok    bool
}

// of is headsOf(t, k), remembered.
func (m headsMemo) of(t *syntax.Regexp, k int) (map[string]bool, bool) {
	key := headsKey{t, k}
	if a, ok := m[key]; ok {
		return a.heads, a.ok
	}
	hs, ok := m.headsOf(t, k)
	m[key] = headsAnswer{hs, ok}
	return hs, ok
}

// headsOf returns how t's matches can start: strings of k lower-cased
// ASCII bytes, and shorter ones that are whole matches of t (what
// follows t in a concatenation continues them); false when it cannot
// tell (see headSet).
func (m headsMemo) headsOf(t *syntax.Regexp, k int) (map[string]bool, bool) {
	switch t.Op {
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
		return map[string]bool{"": true}, true
	case syntax.OpLiteral:
		var b []byte
		for _, r := range t.Rune[:min(k, len(t.Rune))] {
			if r >= utf8.RuneSelf {
				return nil, false
			}
			b = append(b, lowerASCII(byte(r)))
		}
		return map[string]bool{string(b): true}, true
	case syntax.OpCharClass:
		out := map[string]bool{}
		for i := 0; i+1 < len(t.Rune); i += 2 {
			lo, hi := t.Rune[i], t.Rune[i+1]
			if hi >= utf8.RuneSelf || hi-lo >= 32 {
				return nil, false
			}
			for r := lo; r <= hi; r++ {
				out[string(lowerASCII(byte(r)))] = true
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture:
		return m.of(t.Sub[0], k)
	case syntax.OpAlternate:
		out := map[string]bool{}
		for _, sub := range t.Sub {
			hs, ok := m.of(sub, k)
			if !ok {
				return nil, false
			}
			for h := range hs {
				out[h] = true
			}
		}
		return out, len(out) <= maxHeads
	case syntax.OpQuest:
		return m.repeatHeads(t.Sub[0], k, 0, 1)
	case syntax.OpStar:
		return m.repeatHeads(t.Sub[0], k, 0, -1)
	case syntax.OpPlus:
		return m.repeatHeads(t.Sub[0], k, 1, -1)
	case syntax.OpRepeat:
		return m.repeatHeads(t.Sub[0], k, t.Min, t.Max)
	case syntax.OpConcat:
		cur := map[string]bool{"": true}
		for _, sub := range t.Sub {
			next := map[string]bool{}
			var subHeads map[string]map[string]bool // by how many bytes are still needed
			for p := range cur {
				if len(p) == k {
					next[p] = true
					continue
				}
				if subHeads == nil {
					subHeads = map[string]map[string]bool{}
				}
				need := string(rune('0' + k - len(p)))
				hs, seen := subHeads[need]
				if !seen {
					var ok bool
					if hs, ok = m.of(sub, k-len(p)); !ok {
						return nil, false
					}
					subHeads[need] = hs
				}
				for h := range hs {
					next[p+h] = true
				}
				if len(next) > maxHeads {
					return nil, false
				}
			}
			cur = next
		}
		return cur, true
	}
	// Any character, large classes: no head set.
	return nil, false
}

// repeatHeads is headsOf for x repeated min to max times (max < 0: no
// limit). A head complete after some repetitions stays what the match
// starts with however many follow; an incomplete one is a whole match
// once min repetitions are done, and each further repetition extends it
// by at least one byte (x must not match empty), so at most k of them
// are read.
func (m headsMemo) repeatHeads(x *syntax.Regexp, k, min, max int) (map[string]bool, bool) {
	out := map[string]bool{}
	cur := map[string]bool{"": true}
	for i := 0; len(cur) > 0; i++ {
		next := map[string]bool{}
		for p := range cur {
			if len(p) == k {
				out[p] = true
				continue
			}
			if i >= min {
				out[p] = true
			}
			if max >= 0 && i >= max {
				continue
			}
			hs, ok := m.of(x, k-len(p))
			if !ok || hs[""] {
				return nil, false
			}
			for h := range hs {
				next[p+h] = true
			}
			if len(next) > maxHeads {
				return nil, false
			}
		}
		cur = next
	}
	return out, len(out) <= maxHeads
}

// finiteLanguage returns every string the case-sensitive regexp expr
// matches; expr must be built of literals, alternations, concatenations,
// optional parts and small classes only (a finite language).
func finiteLanguage(expr string) []string {
	t, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(fmt.Sprintf("arbormem: finite language %q: %v", expr, err))
	}
	var expand func(t *syntax.Regexp) []string
	expand = func(t *syntax.Regexp) []string {
		switch t.Op {
		case syntax.OpEmptyMatch:
			return []string{""}
		case syntax.OpLiteral:
			if t.Flags&syntax.FoldCase != 0 {
				break
			}
			return []string{string(t.Rune)}
		case syntax.OpCharClass:
			var out []string
			for i := 0; i+1 < len(t.Rune); i += 2 {
				if t.Rune[i+1]-t.Rune[i] >= 64 {
					panic(fmt.Sprintf("arbormem: finite language %q: class too large", expr))
				}
				for r := t.Rune[i]; r <= t.Rune[i+1]; r++ {
					out = append(out, string(r))
				}
			}
			return out
		case syntax.OpCapture:
			return expand(t.Sub[0])
		case syntax.OpQuest:
			return append([]string{""}, expand(t.Sub[0])...)
		case syntax.OpAlternate:
			var out []string
			for _, sub := range t.Sub {
				out = append(out, expand(sub)...)
			}
			return out
		case syntax.OpConcat:
			out := []string{""}
			for _, sub := range t.Sub {
				var next []string
				for _, a := range out {
					for _, b := range expand(sub) {
						next = append(next, a+b)
					}
				}
				out = next
			}
			return out
		}
		panic(fmt.Sprintf("arbormem: finite language %q: unsupported %v", expr, t))
	}
	return expand(t)
}
