package rules

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/rxscan"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// prefiltered lists the regexps the extractors run through the literal
// prefilter.
var prefiltered = map[string]*regexp.Regexp{
	"reContinuation": reContinuation, "reQuoted": reQuoted, "reDateText": reDateText, "reFirstPerson": reFirstPerson,
	"rePreferVerb": rePreferVerb, "rePreference": rePreference, "reAskList": reAskList, "reFavorite": reFavorite,
	"reHobby": reHobby, "reTemporal": reTemporal, "reReturnCue": reReturnCue, "reNewTopic": reNewTopic,
	"reNewTopicTail": reNewTopicTail, "reMoney": reMoney, "rePossessive": rePossessive, "reReturn": reReturn,
	"reNamedThing": reNamedThing, "reSelfStatement": reSelfStatement, "reNegation": reNegation, "rePlan": rePlan,
	"reUpdateCue": reUpdateCue,
}

func init() {
	for i, r := range stateRules {
		prefiltered["stateRules["+string(rune('a'+i))+"]"] = r.re
	}
}

// TestPrefilterSameResults: a text the prefilter skips never matches the
// regexp, on every corpus text, each of its sentences and its lower- and
// upper-cased forms, and texts that match only through a non-ASCII case
// fold; and the prefilter does skip texts (it is not always "may"), but
// for the regexps anchored at the start, which have none. CI checks every
// 256th corpus text, ARBOR_LONG_TESTS=1 all.
func TestPrefilterSameResults(t *testing.T) {
	step := 256
	if os.Getenv("ARBOR_LONG_TESTS") != "" {
		step = 1
	}
	var texts []string
	for i, s := range corpusTexts(t) {
		if i%step != 0 && i >= 8 { // the edge cases always
			continue
		}
		texts = append(texts, s, strings.ToLower(s), strings.ToUpper(s))
		texts = append(texts, Sentences(s)...)
	}
	texts = append(texts, "my favorite ſong is Blue", "I've taken up \u212Anitting.", "MY HOBBY IS chess")
	for name, re := range prefiltered {
		skipped := 0
		for _, s := range texts {
			if rxscan.MayMatch(re, s) {
				continue
			}
			skipped++
			if re.MatchString(s) {
				t.Fatalf("%s: prefilter skips %.120q, which matches", name, s)
			}
		}
		if skipped == 0 && rxscan.Prefiltered(re) {
			t.Errorf("%s: prefilter skipped none of %d texts", name, len(texts))
		}
	}
}

// TestContinuationOpeners: every acknowledgement and cue of reContinuation
// opens a text its hand prefilter lets through (and the regexp matches),
// in any case, after white space; a text opening with another word is
// skipped.
func TestContinuationOpeners(t *testing.T) {
	acks := []string{"", "ok, ", "Okay! ", "great. ", "thanks - ", "thank you, ", "Perfect: ", "cool; ", "nice, ", "sure, ",
		"got it. ", "awesome! ", "sounds good, ", "alright, ", "right, ", "yes, ", "yeah, ", "good. ", "hmm, ", "HMMMM... ", "so, ", "Ok, thanks! "}
	cues := []string{"also", "and what", "and\thow", "and when", "and where", "and which", "and who", "and can", "and could",
		"and should", "and would", "and is", "and are", "and do", "and does", "and did", "and if", "and also", "and then",
		"plus", "additionally", "what about", "how about", "and the", "one more thing", "one more question", "another thing",
		"another question", "another detail", "quick one", "quick follow-up", "quick follow up", "quick question", "follow-up",
		"following up", "continuing", "to continue", "in that case", "on that note", "building on that", "building on this",
		"related to that", "related to this", "speaking of that", "speaking of which", "while we're at it", "while we're on it",
		"while we're on this", "while we're on that", "can you also", "could i also", "would we also", "should you also",
		"same question for", "same thing for", "then what", "then how", "then should", "then can"}
	for _, a := range acks {
		for _, c := range cues {
			for _, s := range []string{a + c + " x", strings.ToUpper(" \t" + a + c + "."), strings.ToUpper(a[:min(1, len(a))]) + a[min(1, len(a)):] + c} {
				if !reContinuation.MatchString(s) {
					t.Fatalf("reContinuation does not match %q", s)
				}
				if !mayOpenContinuation(s) {
					t.Fatalf("mayOpenContinuation(%q) = false, but reContinuation matches", s)
				}
			}
		}
	}
	for _, s := range []string{"The trip is set.", "  I also want", "5 more", "", "   ", "alsox", "hm, also", "okayy also"} {
		if mayOpenContinuation(s) {
			t.Errorf("mayOpenContinuation(%q) = true, want false", s)
		}
	}
}

// FuzzPrefilter: the prefilter never skips a matching text.
func FuzzPrefilter(f *testing.F) {
	for _, s := range []string{"my favourite band is Muse", "Back to the trip.", "\u212A", "i'm into chess and", "Okay, also",
		" hmmm; so, and the", "ſo also", "O\u212Aay, also", "Thank you! And what", "follow-up", "okay\u2026also"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		textmemo.ResetAll()
		for name, re := range prefiltered {
			if !rxscan.MayMatch(re, s) && re.MatchString(s) {
				t.Fatalf("%s: prefilter skips %q, which matches", name, s)
			}
		}
	})
}

// TestStripMarkdownMatchesRegexp: the hand-written stripMarkdown equals
// reMarkdown.ReplaceAllString on every string of up to four characters
// (five with ARBOR_LONG_TESTS=1) from an alphabet of its special
// characters, spaces, letters and bad UTF-8, and on corpus texts.
func TestStripMarkdownMatchesRegexp(t *testing.T) {
	depth, step := 4, 64
	if os.Getenv("ARBOR_LONG_TESTS") != "" {
		depth, step = 5, 1
	}
	alphabet := []string{"*", "_", "#", "`", " ", "\t", "\n", "\v", "a", "é", "\xff"}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if got, want := stripMarkdown(prefix), reMarkdown.ReplaceAllString(prefix, ""); got != want {
			t.Fatalf("stripMarkdown(%q) = %q, want %q", prefix, got, want)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(prefix+c, n-1)
		}
	}
	gen("", depth)
	for i, s := range corpusTexts(t) {
		if i%step == 0 {
			if got, want := stripMarkdown(s), reMarkdown.ReplaceAllString(s, ""); got != want {
				t.Fatalf("stripMarkdown(%.80q) = %.80q, want %.80q", s, got, want)
			}
		}
	}
}

// FuzzStripMarkdown: the same agreement on arbitrary text.
func FuzzStripMarkdown(f *testing.F) {
	f.Add("## Plan\n**Day 1** `code` __x__ #tag")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripMarkdown(s), reMarkdown.ReplaceAllString(s, ""); got != want {
			t.Fatalf("stripMarkdown(%q) = %q, want %q", s, got, want)
		}
	})
}
