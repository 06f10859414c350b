package local

import (
	"slices"
	"strings"

	"github.com/arbor-eval/arbor/pkg/index"
)

// minSharedTail is the shortest part after a text's first line that Embed
// shares between texts: below it, building a state costs more than it
// saves.
const minSharedTail = 1024

// tailState is what a sequence of words contributes to an embedding,
// built once per Embed call for the texts of that call that share a tail
// and differ in the first line (ArborMem embeds each fact followed by its
// whole source interaction). It is read-only once built.
type tailState struct {
	first    string // stem of the tail's first content word
	hasFirst bool   // whether the tail has a content word
	groups   [3]tailGroup
}

// tailGroup is one feature group of a tail: its hashes by slot (slot s's
// are hashes[start[s]:start[s+1]]) with their counts, and each slot's
// sum (sumAscending of its features' values).
type tailGroup struct {
	hashes []uint64
	tf     []int32
	start  []int32
	sums   []float64
}

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
	sc := scratchPool.Get().(*vecScratch)
	defer sc.put()
	words, stems := sc.analyse(text)
	return buildState(words, stems, dim)
}

// buildState is the state of a text whose content words are words, of
// stems stems.
func buildState(words, stems []string, dim int) *tailState {
	var t tailState
	if len(words) > 0 {
		t.first, t.hasFirst = stems[0], true
	}
	sc := scratchPool.Get().(*vecScratch)
	defer sc.put()
	counts := [3]*counter{&sc.uni, &sc.bi, &sc.tri}
	for _, c := range counts {
		c.reset()
	}
	countFeatures(words, stems, counts[0], counts[1], counts[2])
	if cap(sc.next) < dim {
		sc.next = make([]int32, dim)
	}
	next := sc.next[:dim]
	// One allocation per kind of array for the three groups.
	total := len(sc.uni.ents) + len(sc.bi.ents) + len(sc.tri.ents)
	hashes, tfs := make([]uint64, total), make([]int32, total)
	starts, sums := make([]int32, 3*(dim+1)), make([]float64, 3*dim)
	slots, vals := sc.slots[:0], sc.vals[:0]
	for gi, c := range counts {
		n := len(c.ents)
		g := tailGroup{hashes: hashes[:n:n], tf: tfs[:n:n], start: starts[: dim+1 : dim+1], sums: sums[:dim:dim]}
		hashes, tfs, starts, sums = hashes[n:], tfs[n:], starts[dim+1:], sums[dim:]
		// A counting sort by slot: count each slot's features, then place
		// them (a text long enough for a state has more features than
		// slots, so this beats a comparison sort).
		slots = slots[:0]
		for _, e := range c.ents {
			s := int32(e.h % uint64(dim))
			slots = append(slots, s)
			g.start[s+1]++
		}
		for s := range dim {
			g.start[s+1] += g.start[s]
		}
		copy(next, g.start[:dim])
		for j, s := range slots {
			p := next[s]
			next[s]++
			g.hashes[p], g.tf[p] = c.ents[j].h, c.ents[j].tf
		}
		for s := range dim {
			lo, hi := g.start[s], g.start[s+1]
			if lo == hi {
				continue
			}
			vals = vals[:0]
			for p := lo; p < hi; p++ {
				vals = append(vals, featureValue(g.hashes[p], g.tf[p]))
			}
			g.sums[s] = sumAscending(vals)
		}
		t.groups[gi] = g
	}
	sc.slots, sc.vals = slots, vals
	return &t
}

// vectorWithTail builds the embedding of head + "\n" + the tail t
// describes, bit for bit as vector would (the tokenizer breaks at
// every newline, so the text's words are the head's and then the tail's).
func (e *Embedder) vectorWithTail(head string, t *tailState) []float32 {
	sc := e.scratch()
	defer sc.put()
	words, stems := sc.analyse(head)
	lastBi, has := countFeatures(words, stems, &sc.uni, &sc.bi, &sc.tri)
	if has && t.hasFirst {
		sc.bi.add(fnvAdd(lastBi, t.first)) // the bigram across the newline
	}
	return e.combine(sc, t)
}

// combine is the embedding of the features counted in sc (the head's)
// followed by the tail t's.
func (e *Embedder) combine(sc *vecScratch, t *tailState) []float32 {
	d := e.dim
	sums := sc.sums[:3*d]
	mergeGroup(sums[:d], sc, &sc.uni, &t.groups[0])
	mergeGroup(sums[d:2*d], sc, &sc.bi, &t.groups[1])
	mergeGroup(sums[2*d:], sc, &sc.tri, &t.groups[2])
	return unitSum(sc.acc, sums[:d], sums[d:2*d], sums[2*d:])
}

// mergeGroup sets sums to the per-slot sums of one group over the head's
// counts plus the tail group's (the zero tailGroup for no tail): slots no
// head feature falls in keep the tail's sum; the others are summed again
// from all their features, in ascending order of value, the order that
// makes a slot's sum independent of the order its features were counted
// in.
func mergeGroup(sums []float64, sc *vecScratch, head *counter, g *tailGroup) {
	dim := uint64(len(sums))
	if g.sums == nil {
		clear(sums)
	} else {
		copy(sums, g.sums)
	}
	keys := sc.headBySlot(head, dim)
	for i := 0; i < len(keys); {
		s := keys[i] >> 32
		j := i
		for j < len(keys) && keys[j]>>32 == s {
			j++
		}
		run := keys[i:j]
		var tail []uint64
		var tfs []int32
		if g.start != nil {
			lo, hi := g.start[s], g.start[s+1]
			tail, tfs = g.hashes[lo:hi], g.tf[lo:hi]
		}
		vals := sc.vals[:0]
		for p, h := range tail {
			tf := tfs[p]
			for _, k := range run {
				if e := head.ents[uint32(k)]; e.h == h {
					tf += e.tf
				}
			}
			vals = append(vals, featureValue(h, tf))
		}
		for _, k := range run {
			if e := head.ents[uint32(k)]; !slices.Contains(tail, e.h) {
				vals = append(vals, featureValue(e.h, e.tf))
			}
		}
		sums[s] = sumAscending(vals)
		sc.vals = vals
		i = j
	}
}

// headBySlot returns the keys slot<<32 | entry index of head's features,
// sorted: the features grouped by slot, in order of entry within one.
// Many features (a text of a few hundred bytes) are placed by a counting
// sort over the slots, which makes the same order; a few are sorted.
func (sc *vecScratch) headBySlot(head *counter, dim uint64) []uint64 {
	n := len(head.ents)
	keys := slices.Grow(sc.keys[:0], n)[:n]
	sc.keys = keys
	if uint64(n) < dim/4 {
		for j, e := range head.ents {
			keys[j] = (e.h%dim)<<32 | uint64(j)
		}
		slices.Sort(keys)
		return keys
	}
	next := slices.Grow(sc.next[:0], int(dim))[:dim]
	sc.next = next
	clear(next)
	slots := slices.Grow(sc.slots[:0], n)[:n]
	sc.slots = slots
	for j, e := range head.ents {
		s := int32(e.h % dim)
		slots[j] = s
		next[s]++
	}
	var at int32
	for s, c := range next {
		next[s] = at
		at += c
	}
	for j, s := range slots {
		keys[next[s]] = uint64(s)<<32 | uint64(j)
		next[s]++
	}
	return keys
}
