package rxscan

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// A literal prefilter skips a regexp on a text that cannot match it: every
// match of the regexp contains one of a few literals (read off its syntax
// tree: a literal, one of an alternation's literals, any literal of a
// concatenation's parts), so a text holding none of them is answered
// without running the regexp. Results are the regexp's own; only texts
// that cannot match are skipped (TestPrefilterSameResults). The rule-based
// extractors run dozens of case-insensitive cue regexps over every sentence,
// and most sentences hold none of a cue's words.

// litFilter is the literals one of which every match contains; any is true
// when the regexp has no such set (it then always runs). hand, when set,
// is a hand-written test that replaces the literals (handFilters).
type litFilter struct {
	any  bool
	lits []foldLit
	hand func(string) bool
}

// handFilters are prefilters written for regexps the literals cannot
// filter (SetFilter): each returns false only for texts the regexp cannot
// match.
var handFilters sync.Map // *regexp.Regexp → func(string) bool

// SetFilter makes may re's prefilter in place of the literals read off
// its syntax: may must return false only for texts re cannot match (the
// caller fuzzes it against re). Call it before re's first search, at
// package initialisation.
func SetFilter(re *regexp.Regexp, may func(string) bool) { handFilters.Store(re, may) }

// foldLit is a literal, lower-case ASCII when fold (matched ignoring case).
type foldLit struct {
	s    string
	fold bool
}

var litFilters sync.Map // *regexp.Regexp → *litFilter

func filterOf(re *regexp.Regexp) *litFilter {
	if f, ok := litFilters.Load(re); ok {
		return f.(*litFilter)
	}
	f := &litFilter{any: true}
	if hand, ok := handFilters.Load(re); ok {
		f = &litFilter{hand: hand.(func(string) bool)}
	} else if t, err := syntax.Parse(re.String(), syntax.Perl); err == nil && !anchoredAtStart(t.Simplify()) {
		if lits, ok := required(t.Simplify()); ok && len(lits) > 0 {
			f = &litFilter{lits: lits}
		}
	}
	litFilters.Store(re, f)
	return f
}

// anchoredAtStart reports whether every match of t starts at the start of
// the text (a leading ^). The engine gives up on such a regexp as soon as
// the text's first runes rule a match out, which on the extractors'
// sentences costs less than looking for the literals in the whole text, so
// they get no prefilter.
func anchoredAtStart(t *syntax.Regexp) bool {
	st := startsOf(t)
	if !st.zero || st.pass {
		return false
	}
	for _, k := range st.at {
		if k != 0 {
			return false
		}
	}
	return true
}

// required returns literals one of which every match of t contains, or
// false when it finds none.
func required(t *syntax.Regexp) ([]foldLit, bool) {
	switch t.Op {
	case syntax.OpLiteral:
		s := string(t.Rune)
		if t.Flags&syntax.FoldCase == 0 {
			return []foldLit{{s: s}}, true
		}
		for _, r := range t.Rune {
			if r >= utf8.RuneSelf {
				return nil, false // non-ASCII folding: not worth getting right
			}
		}
		return []foldLit{{s: strings.ToLower(s), fold: true}}, true
	case syntax.OpCharClass:
		// A class of a few runes (its ranges list every rune it matches,
		// case variants included): one of them.
		var lits []foldLit
		for i := 0; i+1 < len(t.Rune); i += 2 {
			for r := t.Rune[i]; r <= t.Rune[i+1]; r++ {
				if len(lits) == 8 {
					return nil, false
				}
				lits = append(lits, foldLit{s: string(r)})
			}
		}
		return lits, len(lits) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return required(t.Sub[0])
		}
		return nil, false
	case syntax.OpConcat:
		// Any part's literals will do; the longest shortest literal skips
		// the most texts.
		var best []foldLit
		bestLen := 0
		for _, sub := range t.Sub {
			lits, ok := required(sub)
			if !ok {
				continue
			}
			short := len(lits[0].s)
			for _, l := range lits {
				short = min(short, len(l.s))
			}
			if best == nil || short > bestLen {
				best, bestLen = lits, short
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []foldLit
		for _, sub := range t.Sub {
			lits, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, len(all) > 0
	}
	// Large classes, any-char, empty-width assertions, star, quest:
	// nothing required.
	return nil, false
}

// foldRunes are the non-ASCII runes that case-fold to an ASCII letter
// (the Kelvin sign to k, the long s to s): a text holding one may match a
// case-insensitive literal without holding it in ASCII, so the prefilter
// lets the regexp decide.
var foldRunes = func() string {
	var b strings.Builder
	for r := 'a'; r <= 'z'; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				b.WriteRune(f)
			}
		}
	}
	return b.String()
}()

// may reports whether text may match (false: it cannot).
func (f *litFilter) may(text string) bool {
	if f.any {
		return true
	}
	if f.hand != nil {
		return f.hand(text)
	}
	var low loweredText
	lowDone := false
	for _, l := range f.lits {
		if !l.fold {
			if strings.Contains(text, l.s) {
				return true
			}
			continue
		}
		if !lowDone {
			low, lowDone = lowerOf(text), true
			if low.fold {
				return true
			}
		}
		if strings.Contains(low.lower, l.s) {
			return true
		}
	}
	return false
}

// loweredText is what the case-insensitive literals are looked for in: a
// text's ASCII letters lower-cased, and whether it holds a non-ASCII rune
// that folds to an ASCII letter.
type loweredText struct {
	lower string
	fold  bool
}

func lowerText(text string) loweredText {
	return loweredText{lower: asciiLower(text), fold: strings.ContainsAny(text, foldRunes)}
}

// lowerMemo remembers the lowered forms of the last texts the filters
// read: the extractors run a dozen case-insensitive regexps over each
// sentence, and lowering it for each cost more than the literal searches.
// Texts up to loweredMax bytes are remembered (at most 64 × 2 ×
// loweredMax bytes).
var lowerMemo = textmemo.New(64, lowerText)

const loweredMax = 4096

func lowerOf(text string) loweredText {
	if len(text) > loweredMax {
		return lowerText(text)
	}
	return lowerMemo.Get(text)
}

// asciiLower lower-cases the ASCII letters of s only (byte for byte, so
// offsets are kept; other bytes are copied).
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// finder is what the helpers below ask of a regexp: the regexp itself or
// its derived start scan (startscan.go), which finds the same matches.
type finder interface {
	MatchString(string) bool
	FindStringSubmatch(string) []string
	FindStringSubmatchIndex(string) []int
	FindAllStringSubmatch(string, int) [][]string
	FindAllStringSubmatchIndex(string, int) [][]int
	FindStringIndex(string) []int
}

// MayMatch reports whether re's prefilter lets text through: false only
// when re cannot match text.
func MayMatch(re *regexp.Regexp, text string) bool { return filterOf(re).may(text) }

// Prefiltered reports whether re has a prefilter (literals read off its
// syntax, or one set by SetFilter) rather than always running.
func Prefiltered(re *regexp.Regexp) bool { return !filterOf(re).any }

// finderOf is re's derived start scan, or re when it has none.
func finderOf(re *regexp.Regexp) finder {
	if sc := Derived(re); sc != nil {
		return sc
	}
	return re
}

// MatchString is re.MatchString(s), prefiltered.
func MatchString(re *regexp.Regexp, s string) bool {
	return filterOf(re).may(s) && finderOf(re).MatchString(s)
}

// FindStringSubmatch is re.FindStringSubmatch(s), prefiltered.
func FindStringSubmatch(re *regexp.Regexp, s string) []string {
	if !filterOf(re).may(s) {
		return nil
	}
	return finderOf(re).FindStringSubmatch(s)
}

// FindStringSubmatchIndex is re.FindStringSubmatchIndex(s), prefiltered.
func FindStringSubmatchIndex(re *regexp.Regexp, s string) []int {
	if !filterOf(re).may(s) {
		return nil
	}
	return finderOf(re).FindStringSubmatchIndex(s)
}

// FindAllStringSubmatch is re.FindAllStringSubmatch(s, n), prefiltered.
func FindAllStringSubmatch(re *regexp.Regexp, s string, n int) [][]string {
	if !filterOf(re).may(s) {
		return nil
	}
	return finderOf(re).FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is re.FindAllStringSubmatchIndex(s, n),
// prefiltered.
func FindAllStringSubmatchIndex(re *regexp.Regexp, s string, n int) [][]int {
	if !filterOf(re).may(s) {
		return nil
	}
	return finderOf(re).FindAllStringSubmatchIndex(s, n)
}

// FindStringIndex is re.FindStringIndex(s), prefiltered.
func FindStringIndex(re *regexp.Regexp, s string) []int {
	if !filterOf(re).may(s) {
		return nil
	}
	return finderOf(re).FindStringIndex(s)
}
