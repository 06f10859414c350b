package answer

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/memory"
)

// extractReference is Extract as it was before it passed over the items
// holding none of the question's terms: every span a candidate, document
// frequencies counted span by span. The reference for
// TestExtractSameAsReference.
func extractReference(question string, items []memory.Item) string {
	in := parseIntent(question)
	cands := candidatesReference(items)
	if len(cands) == 0 || len(in.terms) == 0 {
		return NotAvailable
	}
	idf := map[string]float64{}
	n := float64(len(cands))
	for _, t := range in.terms {
		if _, done := idf[t]; done {
			continue
		}
		d := 0
		for _, c := range cands {
			if c.terms.has(t) {
				d++
			}
		}
		if d > 0 {
			idf[t] = math.Log(1 + n/float64(d))
		}
	}
	if s, ok := exactArtifact(in, items); ok {
		return s
	}
	if in.ordinal != 0 {
		if s, ok := pickListEntry(in, cands, idf); ok {
			return s
		}
	}
	best, bestScore := -1, 0.0
	for i, c := range cands {
		if s := score(in, c, idf); s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		return NotAvailable
	}
	if s, ok := updateSide(in, items[cands[best].item], cands[best].span.Text); ok {
		return narrow(in, s, idf)
	}
	return narrow(in, cands[best].span.Text, idf)
}

// candidatesReference is every span a candidate, as the reference reads
// them (the order and positions are candidates', which did not change).
func candidatesReference(items []memory.Item) []cand {
	as, order, n := analyses(items)
	return candidates(as, order, n)
}

// TestExtractSameAsReference answers every question of the LoCoMo fixture
// and of six shipped BranchMemEval sessions from its full-context bundle, its
// last ten items, and its items untimed in reverse order (bundle order
// decides), as the reference does; and with an ordinal and a
// current-value question asked of the same bundles.
func TestExtractSameAsReference(t *testing.T) {
	qs, bs := fullContextBundles(t, 6)
	if len(qs) < 30 {
		t.Fatalf("only %d questions", len(qs))
	}
	for i, q := range qs {
		full := bs[i]
		untimed := slices.Clone(full)
		slices.Reverse(untimed)
		for k := range untimed {
			untimed[k].Time = time.Time{}
		}
		for _, items := range [][]memory.Item{full, full[max(0, len(full)-10):], untimed} {
			for _, question := range []string{q, "What was the second one you suggested?", "What is the latest " + q} {
				if got, want := Extract(question, items), extractReference(question, items); got != want {
					t.Fatalf("question %d %q over %d items: Extract %q, reference %q", i, question, len(items), got, want)
				}
			}
		}
	}
}

// TestItemIndex: vocab and df are the distinct terms of the spans, sorted,
// and the number of spans holding each, for texts of no span, one span and
// many.
func TestItemIndex(t *testing.T) {
	words := strings.Fields("budget lisbon trip euros the 2,500 raised beagle biscuit vet may appointment cost")
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 40 {
		a := &itemAnalysis{}
		want := map[string]int32{}
		for range n % 13 {
			var s []string
			for range r.IntN(6) {
				s = append(s, words[r.IntN(len(words))])
			}
			ts := termsOfWords(s)
			a.terms = append(a.terms, ts)
			for _, w := range ts {
				want[w]++
			}
		}
		a.index()
		if len(a.vocab) != len(want) || len(a.df) != len(want) || !slices.IsSorted(a.vocab) {
			t.Fatalf("spans %q: vocab %q df %v, want counts %v", a.terms, a.vocab, a.df, want)
		}
		for i, w := range a.vocab {
			if a.df[i] != want[w] || a.count(w) != int(want[w]) {
				t.Fatalf("spans %q: %q counted %d, want %d", a.terms, w, a.df[i], want[w])
			}
		}
	}
}

// termsOfWords is a spanTerms of the given words: sorted and distinct.
func termsOfWords(ws []string) spanTerms {
	ts := slices.Clone(ws)
	slices.Sort(ts)
	return slices.Compact(ts)
}
