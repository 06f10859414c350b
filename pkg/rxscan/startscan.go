package rxscan

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
type StartScan struct {
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
	nextCur func(text string, from int, cur *Cursor) int
}

// scanCursor is what a candidate finder with a cursor remembers within
// one scan: nextDateTextStart's region, the digit at d and the run of
// letters [a, b) before it whose every position ends at `\.?\s+` and d.
type Cursor struct {
	// Set is false until the finder first stores what it read; D, A and
	// B are the finder's own positions.
	Set     bool
	D, A, B int
}

// NewCursorScan is NewStartScan with a finder that keeps a cursor.
func NewCursorScan(re *regexp.Regexp, next func(text string, from int, cur *Cursor) int) *StartScan {
	s := NewStartScan(re, nil)
	s.nextCur = next
	return s
}

// nextAt is the scan's candidate finder, with cur for one that keeps one.
func (s *StartScan) nextAt(text string, from int, cur *Cursor) int {
	if s.nextCur != nil {
		return s.nextCur(text, from, cur)
	}
	return s.next(text, from)
}

// NewStartScan wraps re, which must not match the empty string (every
// candidate then advances the search and FindAll's empty-match rule never
// applies).
func NewStartScan(re *regexp.Regexp, next func(text string, from int) int) *StartScan {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil || minLen(t.Simplify()) == 0 {
		panic(fmt.Sprintf("arbormem: start scan of %q: the pattern must not match the empty string", re))
	}
	return &StartScan{
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
func (s *StartScan) at(text string, c int, sub bool, rd *countingReader) []int {
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
func (s *StartScan) all(text string, n int, sub bool) [][]int {
	out, _ := s.scan(text, n, sub)
	return out
}

// scan is all, and reports whether it gave way to the engine's search.
func (s *StartScan) scan(text string, n int, sub bool) (out [][]int, engine bool) {
	// The reader is made at the first candidate (most texts a scan runs
	// on hold none), the cursor only for a finder that keeps one.
	var rd *countingReader
	var cur *Cursor
	if s.nextCur != nil {
		cur = new(Cursor)
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
func (s *StartScan) FindAllStringIndex(text string, n int) [][]int { return s.all(text, n, false) }

// FindAllStringSubmatchIndex is re.FindAllStringSubmatchIndex(text, n).
func (s *StartScan) FindAllStringSubmatchIndex(text string, n int) [][]int {
	return s.all(text, n, true)
}

// FindAllString is re.FindAllString(text, n).
func (s *StartScan) FindAllString(text string, n int) []string {
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
func (s *StartScan) FindAllStringSubmatch(text string, n int) [][]string {
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
func (s *StartScan) FindStringIndex(text string) []int {
	if ms := s.all(text, 1, false); ms != nil {
		return ms[0]
	}
	return nil
}

// FindStringSubmatchIndex is re.FindStringSubmatchIndex(text).
func (s *StartScan) FindStringSubmatchIndex(text string) []int {
	if ms := s.all(text, 1, true); ms != nil {
		return ms[0]
	}
	return nil
}

// FindStringSubmatch is re.FindStringSubmatch(text).
func (s *StartScan) FindStringSubmatch(text string) []string {
	if ms := s.FindAllStringSubmatch(text, 1); ms != nil {
		return ms[0]
	}
	return nil
}

// FindString is re.FindString(text).
func (s *StartScan) FindString(text string) string {
	if ms := s.all(text, 1, false); ms != nil {
		return text[ms[0][0]:ms[0][1]]
	}
	return ""
}

// MatchString is re.MatchString(text).
func (s *StartScan) MatchString(text string) bool { return s.all(text, 1, false) != nil }

// Regexp is the regexp the scan searches for.
func (s *StartScan) Regexp() *regexp.Regexp { return s.re }

// Search is FindAllStringIndex(text, n), also reporting whether the scan
// gave way to the engine's own search past its read budget (for tests of
// the budget).
func (s *StartScan) Search(text string, n int) (matches [][]int, engine bool) {
	return s.scan(text, n, false)
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
		case k == startWord || k == startAny && wordOnly && IsWordByte(byte(b)):
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
			if !WordStart(text, i) {
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

// Derived returns re's derived start scan, or nil when it has none.
func Derived(re *regexp.Regexp) *StartScan {
	if sc, ok := derivedScans.Load(re); ok {
		return sc.(*StartScan)
	}
	var sc *StartScan
	if t, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		t = t.Simplify()
		if st := startsOf(t); minLen(t) > 0 && st.selective() {
			next, may := st.next, (func(string, int) bool)(nil)
			if check, ok := handChecks.Load(re); ok {
				may = check.(func(string, int) bool)
			}
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
			sc = NewStartScan(re, next)
		}
	}
	derivedScans.Store(re, sc)
	return sc
}

var derivedScans sync.Map // *regexp.Regexp → *StartScan (nil: none)

// handChecks are necessary conditions for a match to start at a derived
// scan's candidate, written by hand for regexps with no head set
// (SetStartCheck).
var handChecks sync.Map // *regexp.Regexp → func(text string, c int) bool

// SetStartCheck gives re's derived scan a necessary condition for a match
// to start at a candidate c, for a regexp whose head set cannot be read
// off its syntax: may must return true wherever a match of re starts (the
// caller fuzzes the scan against re). Call it before re's first search.
func SetStartCheck(re *regexp.Regexp, may func(text string, c int) bool) { handChecks.Store(re, may) }

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

// FiniteLanguage returns every string the case-sensitive regexp expr
// matches; expr must be built of literals, alternations, concatenations,
// optional parts and small classes only (a finite language).
func FiniteLanguage(expr string) []string {
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
