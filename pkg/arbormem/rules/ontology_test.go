package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// ruleTagsRef is ruleTags before its phrase index: every cue and example
// searched for in the text.
func ruleTagsRef(text string, max int) []string {
	lt := " " + strings.ToLower(text) + " "
	scores := make([]int, len(ops.Ontology))
	for i, a := range ops.Ontology {
		n := 0
		for _, c := range a.Cues {
			if containsWordRef(lt, c) {
				n += 2
			}
		}
		for _, e := range a.Examples {
			if containsWordRef(lt, e) {
				n += 3
			}
		}
		scores[i] = n
	}
	return topTags(scores, max)
}

// containsWordRef reports whether padded lower-case text (" ... ") contains w as
// a whole word or phrase, allowing a plural or past-tense suffix.
func containsWordRef(padded, w string) bool {
	if w == "$" {
		return strings.Contains(padded, "$")
	}
	for i := 0; ; {
		j := strings.Index(padded[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := padded[j-1]
		end := j + len(w)
		after := byte(' ')
		if end < len(padded) {
			after = padded[end]
		}
		if !isWordByte(before) {
			if !isWordByte(after) {
				return true
			}
			// allow "s", "es", "ed", "ing" suffixes
			rest := padded[end:]
			for _, suf := range []string{"s", "es", "ed", "d", "ing"} {
				if strings.HasPrefix(rest, suf) && (end+len(suf) >= len(padded) || !isWordByte(padded[end+len(suf)])) {
					return true
				}
			}
		}
		i = j + 1
	}
}

// ruleTagsCases are texts at the edges of the phrase index: suffixes,
// phrases of several words, hyphens, "$", non-ASCII bytes next to words.
var ruleTagsCases = []string{"", "$", "I spent $5", "bought", "buys", "buyers", "rebuy", "wake-up time", "Wake-up timeS",
	"wake-up", "tv shows", "tv showing", "tv", "e-book", "audiobook and e-books", "luxury vs budget shopping", "baked",
	"bakes", "bake", "bakeing", "éhotel", "hotelé", "hotel_x", "hotel-x", "years old", "years older", "years olds",
	"How long is my commute to work?", "Which hotel did we book for the trip?", "What is my dog called?",
	"time spent with family or friends", "living room", "roomed", "shopping for others", "İstanbul trip", "K\u212aelvin CAT"}

// TestRuleTagsMatchReference: ruleTags gives the reference's tags on the
// edge cases and on every sentence of the corpus (every 8th text in CI).
func TestRuleTagsMatchReference(t *testing.T) {
	texts := append([]string(nil), ruleTagsCases...)
	for i, text := range corpusTexts(t) {
		if i%8 == 0 {
			texts = append(texts, Sentences(text)...)
		}
	}
	for _, text := range texts {
		for _, max := range []int{0, 1, 3, 20} {
			if got, want := ruleTags(text, max), ruleTagsRef(text, max); !reflect.DeepEqual(got, want) {
				t.Fatalf("ruleTags(%q, %d) = %q, want %q", text, max, got, want)
			}
		}
	}
}

// FuzzRuleTags: the same on arbitrary text.
func FuzzRuleTags(f *testing.F) {
	for _, s := range ruleTagsCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		textmemo.ResetAll()
		if got, want := ruleTags(text, 20), ruleTagsRef(text, 20); !reflect.DeepEqual(got, want) {
			t.Fatalf("ruleTags(%q) = %q, want %q", text, got, want)
		}
	})
}
