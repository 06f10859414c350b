package rules

import (
	"slices"
	"sort"

	"github.com/arbor-eval/arbor/pkg/index"
)

// termsOfText returns the distinct analyzed terms of text (bleve's English
// analyzer through index.Analyze: lower-cased, possessives and stop words
// removed, Porter-stemmed), in first-occurrence order. These are the
// "content words and lemmas" of keyword recall (§4.2).
func termsOfText(text string) []string {
	raw := index.Analyze(text)
	if len(raw) == 0 {
		return nil
	}
	out := raw[:0:0]
	if len(raw) <= smallTermList {
		// A short list is deduplicated by looking back, without a map.
		for _, t := range raw {
			if len(t) >= 2 && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	}
	seen := make(map[string]struct{}, len(raw))
	for _, t := range raw {
		if len(t) < 2 {
			continue
		}
		if _, ok := seen[t]; ok {
			continue
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	return out
}

// smallTermList is the longest analysis termsOfText deduplicates without
// a map (most of its texts are a sentence, a summary or a topic line).
const smallTermList = 48

// TermSet is a set of analyzed terms.
type TermSet map[string]struct{}

func NewTermSet(terms ...[]string) TermSet {
	n := 0
	for _, ts := range terms {
		n += len(ts)
	}
	s := make(TermSet, n)
	for _, ts := range terms {
		for _, t := range ts {
			s[t] = struct{}{}
		}
	}
	return s
}

func (s TermSet) Has(t string) bool { _, ok := s[t]; return ok }

// Sorted returns the set's terms in order (for deterministic output).
func (s TermSet) Sorted() []string {
	out := make([]string, 0, len(s))
	for t := range s {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
