package rules

import (
	"fmt"
	"strings"
	"sync"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
)

// ruleTags scores each ontology category for text by cue and example words
// and returns the best tags, strongest first (at most max). It is the offline
// stand-in for the model's tag choice. A cue counts 2, an example 3, each
// once when found as a whole word or phrase,
// allowing a plural or past-tense suffix (containsWordRef in the tests); the words of the text are looked up in
// an index of the phrases (tagIndex) instead of searching the text for
// each of the ontology's ~400 phrases (TestRuleTagsMatchReference,
// FuzzRuleTags compare with that search).
func ruleTags(text string, max int) []string {
	lt := " " + strings.ToLower(text) + " "
	ix := tagIndex()
	var hit [tagEntryWords]uint64 // entries found, by index
	scores := make([]int, len(ops.Ontology))
	any := false
	mark := func(e int) {
		if hit[e/64]&(1<<(e%64)) == 0 {
			hit[e/64] |= 1 << (e % 64)
			scores[ix.entries[e].attr] += ix.entries[e].weight
			any = true
		}
	}
	if dollar := ix.dollar; len(dollar) > 0 && strings.Contains(lt, "$") {
		for _, e := range dollar {
			mark(e)
		}
	}
	for i := 0; i < len(lt); {
		if !isWordByte(lt[i]) {
			i++
			continue
		}
		j := i
		for j < len(lt) && isWordByte(lt[j]) {
			j++
		}
		for _, c := range ix.byWord[lt[i:j]] {
			if c.whole || phraseAt(lt, i, ix.entries[c.entry].phrase) {
				mark(c.entry)
			}
		}
		i = j
	}
	if !any {
		return nil
	}
	return topTags(scores, max)
}

// topTags is the tags of the at most max attributes with a positive score
// (scores by Ontology index), best first, ties in the ontology's order.
func topTags(scores []int, max int) []string {
	type sc struct {
		tag   string
		score int
		order int
	}
	var best []sc
	for i, a := range ops.Ontology {
		if scores[i] > 0 {
			best = append(best, sc{a.Tag, scores[i], i})
		}
	}
	// Insertion sort: at most 14 entries.
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && (best[j].score > best[j-1].score || (best[j].score == best[j-1].score && best[j].order < best[j-1].order)); j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	var out []string
	for _, s := range best {
		if len(out) == max {
			break
		}
		out = append(out, s.tag)
	}
	return out
}

// tagEntry is one cue or example of an ontology category.
type tagEntry struct {
	attr   int
	weight int
	phrase string
}

// tagCandidate is an entry a word of the text may match: whole when the
// word is the entry's one-word phrase (or it with an allowed suffix), else
// the word is the first of the entry's phrase, which phraseAt checks.
type tagCandidate struct {
	entry int
	whole bool
}

const tagEntryWords = 8

// tagIndex is the ontology's cues and examples (entries, a cue weighing 2
// and an example 3) and their index by the words of a text that can match
// them (byWord), built on first use: most programs never tag by rule.
// A phrase is found only where it starts after a non-word byte, so at the
// start of a run of word bytes (the padding makes every run one); a
// one-word phrase then is that whole run, or the run is it with one of
// the allowed suffixes; a longer phrase's first word is the whole run (its
// next byte, not a word byte, must follow). "$", the one phrase that
// starts with no word byte, is found anywhere (dollar).
var tagIndex = sync.OnceValue(func() *tagIx {
	ix := &tagIx{byWord: map[string][]tagCandidate{}}
	for i, a := range ops.Ontology {
		for _, c := range a.Cues {
			ix.entries = append(ix.entries, tagEntry{i, 2, c})
		}
		for _, e := range a.Examples {
			ix.entries = append(ix.entries, tagEntry{i, 3, e})
		}
	}
	if len(ix.entries) > 64*tagEntryWords {
		panic("arbormem: the ontology has more cues and examples than ruleTags' bit set holds")
	}
	for e, te := range ix.entries {
		w := te.phrase
		if w == "$" {
			ix.dollar = append(ix.dollar, e)
			continue
		}
		k := 0
		for k < len(w) && isWordByte(w[k]) {
			k++
		}
		if k == 0 || w != strings.ToLower(w) {
			panic(fmt.Sprintf("arbormem: ontology phrase %q must be lower case and start with a word byte", w))
		}
		if k < len(w) {
			ix.byWord[w[:k]] = append(ix.byWord[w[:k]], tagCandidate{entry: e})
			continue
		}
		for _, suf := range wordSuffixes {
			ix.byWord[w+suf] = append(ix.byWord[w+suf], tagCandidate{entry: e, whole: true})
		}
	}
	return ix
})

// tagIx is what tagIndex builds.
type tagIx struct {
	entries []tagEntry
	byWord  map[string][]tagCandidate
	dollar  []int
}

// wordSuffixes are the endings allowed after a phrase ("" for
// none).
var wordSuffixes = []string{"", "s", "es", "ed", "d", "ing"}

// phraseAt reports whether padded holds the phrase w at i, followed by a
// non-word byte or one of wordSuffixes and then one (the byte
// before i is not a word byte).
func phraseAt(padded string, i int, w string) bool {
	if !strings.HasPrefix(padded[i:], w) {
		return false
	}
	end := i + len(w)
	for _, suf := range wordSuffixes {
		if strings.HasPrefix(padded[end:], suf) && (end+len(suf) >= len(padded) || !isWordByte(padded[end+len(suf)])) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}
