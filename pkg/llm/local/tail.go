package local

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// minSharedTail is the shortest part after a text's first line that Embed
// shares between texts, and the shortest text whose state vector
// remembers: below it, building a state costs more than it saves.
const minSharedTail = 1024

// tailState is what a sequence of words contributes to an embedding,
// built once per sequence (wordsState remembers it): for the texts of one
// Embed call that share a tail and differ in the first line (ArborMem
// embeds each fact followed by its whole source interaction), and for a
// long text embedded whole, such as the node's, whose words that tail
// repeats. It is read-only once built.
type tailState struct {
	first    string // stem of the tail's first content word
	hasFirst bool   // whether the tail has a content word
	groups   [3]tailGroup
}

// tailGroup is one feature group of a tail: its counts, its hashes by
// slot (slot s's are hashes[start[s]:start[s+1]]), and each slot's merged
// value exactly as addGroup would sum it.
type tailGroup struct {
	counts map[uint64]float64
	hashes []uint64
	start  []int32
	sums   []float64
}

// slot returns the tail's hashes in slot s.
func (g *tailGroup) slot(s int) []uint64 { return g.hashes[g.start[s]:g.start[s+1]] }

// tailSet maps the tails that several texts of one Embed call share to
// their states.
type tailSet map[string]*tailState

// sharedTails finds the tails (a text's part after its first line, at least
// minSharedTail bytes) that two or more of texts share, and builds their
// states: ArborMem embeds each fact of a commit followed by its whole
// source interaction, in one call. A text is split only where its analysis
// is its lines' (index.LineWise): bleve's word segmenter can join an invalid
// byte, the newline after it and the next word into one token. A tail no
// other text shares is not worth a state.
func (e *Embedder) sharedTails(texts []string) tailSet {
	if len(texts) < 2 {
		return nil
	}
	var seen map[string]int
	for _, t := range texts {
		if i := strings.IndexByte(t, '\n'); i >= 0 && len(t)-i-1 >= minSharedTail {
			if seen == nil {
				seen = map[string]int{}
			}
			seen[t[i+1:]]++
		}
	}
	var set tailSet
	for tail, n := range seen {
		if n >= 2 && index.LineWise(tail) {
			if set == nil {
				set = tailSet{}
			}
			set[tail] = newTailState(tail, e.dim)
		}
	}
	return set
}

// split returns text's first line and the state of its tail when the set
// holds that tail and the first line analyses alone (index.LineWise); a nil
// state otherwise.
func (s tailSet) split(text string) (string, *tailState) {
	if len(s) == 0 {
		return "", nil
	}
	i := strings.IndexByte(text, '\n')
	if i < 0 {
		return "", nil
	}
	st := s[text[i+1:]]
	if st == nil || !index.LineWise(text[:i]) {
		return "", nil
	}
	return text[:i], st
}

func newTailState(text string, dim int) *tailState {
	return wordsState(index.ContentWords(text), dim)
}

// wordsStates remembers the states of recent word sequences, by dimension
// and words: a commit embeds its interaction whole for the node, and again
// after each fact as the tail shared by the facts, in two renderings
// ("user:" and "User:") whose words are the same.
var wordsStates = textmemo.New[*tailState](8, nil)

// wordsState is buildState(words, dim), remembered. Words never hold a
// NUL (the segmenter puts no control character in a word), so the key
// determines them.
func wordsState(words []string, dim int) *tailState {
	key := strconv.Itoa(dim) + "\x00" + strings.Join(words, "\x00")
	return wordsStates.GetWith(key, func() *tailState { return buildState(words, dim) })
}

// buildState is the state of a text whose content words are words.
func buildState(words []string, dim int) *tailState {
	var t tailState
	if len(words) > 0 {
		t.first, t.hasFirst = index.Stem(words[0]), true
	}
	counts := [3]map[uint64]float64{{}, {}, {}}
	countFeatures(words, "", false, counts[0], counts[1], counts[2])
	var keys []uint64
	var vals []float64
	for gi, c := range counts {
		g := tailGroup{counts: c, hashes: make([]uint64, 0, len(c)), start: make([]int32, dim+1), sums: make([]float64, dim)}
		// One pass over the map, then one integer sort by slot (the key's
		// high half; its low half indexes hashes).
		keys = keys[:0]
		for h := range c {
			keys = append(keys, h%uint64(dim)<<32|uint64(len(g.hashes)))
			g.hashes = append(g.hashes, h)
		}
		slices.Sort(keys)
		byIndex := slices.Clone(g.hashes)
		for i, k := range keys {
			g.hashes[i] = byIndex[uint32(k)]
			g.start[k>>32+1]++
		}
		for s := range dim {
			g.start[s+1] += g.start[s]
			if hs := g.slot(s); len(hs) > 0 {
				vals = vals[:0]
				for _, h := range hs {
					vals = append(vals, featureValue(h, c[h]))
				}
				g.sums[s] = sumAscending(vals)
			}
		}
		t.groups[gi] = g
	}
	return &t
}

// featureValue is a feature's signed, damped value, as addGroup makes it.
func featureValue(h uint64, tf float64) float64 {
	v := 1 + math.Log(tf)
	if h>>63 == 1 {
		v = -v
	}
	return v
}

// sumAscending sorts vals and sums them in that order: addGroup's order
// for the features of one slot.
func sumAscending(vals []float64) float64 {
	slices.Sort(vals) // no NaN: values are ±(1+ln tf), tf >= 1
	sum := vals[0]
	for _, v := range vals[1:] {
		sum += v
	}
	return sum
}

// slotHash is one head feature and its slot.
type slotHash struct {
	slot int
	h    uint64
}

// vectorWithTail builds the embedding of head + "\n" + the tail t
// describes, bit for bit as vector would (the tokenizer breaks at
// every newline, so the text's words are the head's and then the tail's).
func (e *Embedder) vectorWithTail(head string, t *tailState) []float32 {
	sc, acc := e.scratch()
	defer scratchPool.Put(sc)
	last, has := countFeatures(index.ContentWords(head), "", false, sc.uni, sc.bi, sc.tri)
	if has && t.hasFirst {
		sc.bi[fnvAdd(bigramPrefix(last), t.first)]++ // the bigram across the newline
	}
	e.addGroupWithTail(acc, sc, sc.uni, &t.groups[0], weightUnigram)
	e.addGroupWithTail(acc, sc, sc.bi, &t.groups[1], weightBigram)
	e.addGroupWithTail(acc, sc, sc.tri, &t.groups[2], weightTrigram)
	return normalised(acc)
}

// addGroupWithTail is addGroup over the head's counts plus the tail
// group's: slots no head feature falls in keep the tail's merged value;
// the others are summed again from all their features, in addGroup's
// order.
func (e *Embedder) addGroupWithTail(acc []float64, sc *vecScratch, head map[uint64]float64, g *tailGroup, weight float64) {
	dim := uint64(len(acc))
	sums, touched := sc.sums[:len(acc)], sc.touched[:len(acc)]
	copy(sums, g.sums)
	hs := sc.heads[:0]
	for h := range head {
		hs = append(hs, slotHash{int(h % dim), h})
	}
	slices.SortFunc(hs, func(a, b slotHash) int { return cmp.Compare(a.slot, b.slot) })
	for i := 0; i < len(hs); {
		s := hs[i].slot
		j := i
		for j < len(hs) && hs[j].slot == s {
			j++
		}
		vals := sc.vals[:0]
		for _, h := range g.slot(s) {
			vals = append(vals, featureValue(h, g.counts[h]+head[h]))
		}
		for _, x := range hs[i:j] {
			if _, inTail := g.counts[x.h]; !inTail {
				vals = append(vals, featureValue(x.h, head[x.h]))
			}
		}
		sums[s] = sumAscending(vals)
		sc.vals = vals
		touched[s] = true
		i = j
	}
	sc.heads = hs
	merged := sc.merged[:0]
	for s, v := range sums {
		if g.start[s] != g.start[s+1] || touched[s] {
			merged = append(merged, feature{idx: s, val: v})
			touched[s] = false
		}
	}
	sc.merged = merged
	addMerged(acc, merged, weight)
}
