package rules

import (
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/rxscan"
)

// branchSplit lists the regexps answered through a branchMatcher, with
// extra shapes that exercise each way of splitting (a whole alternation,
// an alternation inside a concatenation, none, captures, anchors, case
// folding, a branch without literals).
var branchSplit = map[string]*regexp.Regexp{
	"reNewTopic": reNewTopic, "reNewTopicTail": reNewTopicTail, "reConversationRef": reConversationRef,
	"reShiftMarker": reShiftMarker, "reSoftShift": reSoftShift,
	"alternation": regexp.MustCompile(`(?i)back to|return(?:ing)? to|\bre:|x*y`),
	"concat":      regexp.MustCompile(`(?i)(?:^|[.!?]\s+)(?:so\s+)?(new (?:plan|topic)\b|[a-z ]{0,5}\btime\b|ſtop)\s*$`),
	"none":        regexp.MustCompile(`(?i)\bwhen we talked\b`),
	"captures":    regexp.MustCompile(`(a|b)(c|d|e)(?:f|g|h)?`),
}

// branchMatchers are branchSplit's matchers, made once (as the cues'
// are: each branch's start scan is made on first use and kept).
var branchMatchers = sync.OnceValue(func() map[string]*rxscan.BranchMatcher {
	m := map[string]*rxscan.BranchMatcher{}
	for name, re := range branchSplit {
		m[name] = rxscan.NewBranchMatcher(re)
	}
	return m
})

// checkBranches fails unless every branchMatcher answers as its regexp.
func checkBranches(t *testing.T, s string) {
	t.Helper()
	for name, m := range branchMatchers() {
		if got, want := m.MatchString(s), m.Regexp().MatchString(s); got != want {
			t.Fatalf("%s: branches match %.120q: %v, the regexp: %v", name, s, got, want)
		}
	}
}

// TestBranchMatcher: the split matchers answer as their regexps on corpus
// texts, their sentences, lower- and upper-cased forms and texts that
// match only through a non-ASCII case fold (every 64th corpus text in CI,
// all with ARBOR_LONG_TESTS=1); and the cue regexps are split.
func TestBranchMatcher(t *testing.T) {
	for name, re := range map[string]*regexp.Regexp{"reNewTopic": reNewTopic, "reNewTopicTail": reNewTopicTail, "reConversationRef": reConversationRef, "alternation": branchSplit["alternation"]} {
		if n := rxscan.NewBranchMatcher(re).Branches(); n < 4 {
			t.Errorf("%s: %d branches, want it split", name, n)
		}
	}
	if n := rxscan.NewBranchMatcher(branchSplit["none"]).Branches(); n != 1 {
		t.Errorf("a regexp without alternation: %d branches, want 1", n)
	}
	step := 64
	if os.Getenv("ARBOR_LONG_TESTS") != "" {
		step = 1
	}
	texts := []string{"", "So new plan", "ok. new topic", "We're planning a trip. Can you help me plan it?", "you said so",
		"when we talked", "ſtop", "\u212Aeep track of decisions", "keep track of deciſions", "I AM PLANNING A PARTY", "one more time", "ac", "bdh", "return to", "yyy"}
	for i, s := range corpusTexts(t) {
		if i%step == 0 || i < 8 {
			texts = append(texts, s, strings.ToLower(s), strings.ToUpper(s))
			texts = append(texts, Sentences(s)...)
		}
	}
	for _, s := range texts {
		checkBranches(t, s)
	}
}

// FuzzBranchMatcher: the same agreement on arbitrary text.
func FuzzBranchMatcher(f *testing.F) {
	for _, s := range []string{"Separately, I'm planning a move.", "Completely different subject, but", "oh, and my car", "diff topic. my japanese", "you mentioned it last week", "\u212Aeep track of decisions", "ok. new topic"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkBranches(t, s)
	})
}
