package rxscan

import (
	"regexp"
	"regexp/syntax"
)

// A cue regexp is often one alternation of many phrases behind a shared
// head ("at a sentence start, after an optional acknowledgement, one of
// thirty openings"). The literal prefilter must keep such a regexp for a
// text holding a literal of any phrase, which a chat text nearly always
// does (one phrase needs "i", another "the"), and the engine then tries
// every phrase at every start. Whether the regexp matches is whether one
// of its phrases, with the head and tail, matches: a branchMatcher splits
// the alternation into one regexp per phrase, each with its own literal
// prefilter, so a text is tried only against the phrases whose words it
// holds. Only whether a text matches is answered (which match, and its
// groups, could differ); FuzzBranchMatcher compares with the regexp.

// BranchMatcher answers re.MatchString through re's branches, each
// prefiltered on its own literals (MatchString).
type BranchMatcher struct {
	re       *regexp.Regexp
	branches []*regexp.Regexp
}

// NewBranchMatcher splits re at its widest alternation (a part of its
// top-level concatenation, or the whole regexp); a regexp with none keeps
// itself as its only branch.
func NewBranchMatcher(re *regexp.Regexp) *BranchMatcher {
	return &BranchMatcher{re: re, branches: splitBranches(re)}
}

// splitBranches returns regexps whose matches together are re's.
func splitBranches(re *regexp.Regexp) []*regexp.Regexp {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return []*regexp.Regexp{re}
	}
	var parts []*syntax.Regexp
	switch {
	case t.Op == syntax.OpAlternate:
		parts = t.Sub
	case t.Op == syntax.OpConcat:
		at := -1
		for i, sub := range t.Sub {
			if sub.Op == syntax.OpAlternate && (at < 0 || len(sub.Sub) > len(t.Sub[at].Sub)) {
				at = i
			}
		}
		if at < 0 {
			break
		}
		for _, b := range t.Sub[at].Sub {
			c := *t
			c.Sub = append([]*syntax.Regexp(nil), t.Sub...)
			c.Sub[at] = b
			parts = append(parts, &c)
		}
	}
	if len(parts) < 2 {
		return []*regexp.Regexp{re}
	}
	out := make([]*regexp.Regexp, 0, len(parts))
	for _, p := range parts {
		b, err := regexp.Compile(p.String())
		if err != nil {
			return []*regexp.Regexp{re}
		}
		out = append(out, b)
	}
	return out
}

// MatchString reports whether re matches text.
func (m *BranchMatcher) MatchString(text string) bool {
	for _, b := range m.branches {
		if MatchString(b, text) {
			return true
		}
	}
	return false
}

// Regexp is the regexp the matcher stands for.
func (m *BranchMatcher) Regexp() *regexp.Regexp { return m.re }

// Branches is the number of branches re was split into.
func (m *BranchMatcher) Branches() int { return len(m.branches) }
