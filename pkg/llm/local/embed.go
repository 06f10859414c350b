// Package local is the offline provider: a hashed n-gram embedder and a
// lexical reranker that need no model, no GPU and no network. Both are
// heuristics, and results produced with them are labelled so. They satisfy
// llm.Embedder and llm.Reranker structurally; the package does not import
// pkg/llm, which builds providers from it.
package local

import (
	"context"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/index"
)

// DefaultDim is the dimension NewEmbedder uses when given dim <= 0.
const DefaultDim = 384

// Feature groups and their weights. Each group is normalised on its own
// before the weighted sum, so a long word's many trigrams cannot drown its
// one unigram: with these weights unigrams carry about 2/3 of the squared
// norm, bigrams and trigrams 1/6 each.
const (
	weightUnigram = 1.0
	weightBigram  = 0.5
	weightTrigram = 0.5
)

// Embedder turns texts into deterministic hashed feature vectors ("feature
// hashing", signed): stemmed word unigrams (so "adopted" meets "adopting"),
// adjacent stemmed bigrams (word order and phrases), and character trigrams
// of each unstemmed word padded with '#' (spelling variants, compounds,
// numbers). Stop words are dropped first, as index.Analyze does. Term
// counts are damped to 1+ln(tf). Hashing is 64-bit FNV-1a over bytes, so a
// text has the same vector on every platform and in every run.
//
// Vectors are L2-normalised, so cosine similarity is a dot product. A text
// with no features (empty, or only stop words and punctuation) gets the
// zero vector, which has similarity 0 with everything.
type Embedder struct {
	dim int
}

// NewEmbedder returns an embedder of dimension dim (DefaultDim if dim <= 0).
func NewEmbedder(dim int) *Embedder {
	if dim <= 0 {
		dim = DefaultDim
	}
	return &Embedder{dim: dim}
}

// Dim is the vector dimension.
func (e *Embedder) Dim() int { return e.dim }

// Embed returns one vector per text, in order. It fails only when ctx is
// done.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	tails := e.sharedTails(texts)
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("local embed: text %d of %d: %w", i, len(texts), err)
			}
		}
		if head, st := tails.split(t); st != nil {
			out[i] = e.vectorWithTail(head, st)
		} else {
			out[i] = e.vector(t)
		}
	}
	return out, nil
}

// vecScratch is the working memory of one embedding, reused (its count
// tables and accumulator are most of the embedder's allocations).
type vecScratch struct {
	uni, bi, tri counter
	acc          []float64
	// The three groups' per-slot sums, one after another.
	sums []float64
	// mergeGroup's: the head's features keyed by slot, one slot's values.
	keys []uint64
	vals []float64
	// buildState's: each feature's slot, the next free place of each slot.
	slots []int32
	next  []int32
	// analyse's: the text's content words and their stems.
	words, stems []string
}

var scratchPool = sync.Pool{New: func() any { return new(vecScratch) }}

// maxPooledWords: word buffers that grew past this are not kept.
const maxPooledWords = 1 << 16

// put returns sc to the pool, without the strings its word buffers point
// to (they would keep analyses alive that their memo has let go).
func (sc *vecScratch) put() {
	clear(sc.words[:cap(sc.words)])
	clear(sc.stems[:cap(sc.stems)])
	if cap(sc.words) > maxPooledWords || cap(sc.stems) > maxPooledWords {
		sc.words, sc.stems = nil, nil
	}
	scratchPool.Put(sc)
}

// analyse returns text's content words and their stems (index.AppendAnalysis)
// in sc's word buffers, which they occupy until sc is put back.
func (sc *vecScratch) analyse(text string) (words, stems []string) {
	sc.words, sc.stems = index.AppendAnalysis(sc.words[:0], sc.stems[:0], text)
	return sc.words, sc.stems
}

// vector builds one embedding from the whole text, counted in the
// scratch's tables. A long text's state is not built and remembered for a
// later shared tail with the same words: on the offline quick start almost
// no text was met again that way (4 of 2,137), and a state, allocated and
// kept, cost about twice the direct count. Shared tails build their own
// (sharedTails), once per Embed call.
func (e *Embedder) vector(text string) []float32 {
	sc := e.scratch()
	defer sc.put()
	words, stems := sc.analyse(text)
	return e.countCombine(sc, words, stems)
}

// countCombine is the embedding of words, of stems stems, counted in sc
// (whose counts are empty): the head of an empty tail.
func (e *Embedder) countCombine(sc *vecScratch, words, stems []string) []float32 {
	countFeatures(words, stems, &sc.uni, &sc.bi, &sc.tri)
	return e.combine(sc, &emptyTail)
}

// emptyTail is the state of no words.
var emptyTail tailState

// scratch takes working memory from the pool (the caller puts it back),
// with empty feature counts and room for e's dimension.
func (e *Embedder) scratch() *vecScratch {
	sc := scratchPool.Get().(*vecScratch)
	sc.uni.reset()
	sc.bi.reset()
	sc.tri.reset()
	if cap(sc.acc) < e.dim {
		sc.acc = make([]float64, e.dim)
		sc.sums = make([]float64, 3*e.dim)
	}
	return sc
}

// countFeatures adds the features of words, whose stems are stems, to the
// three groups' counts: each word's stem, the bigram of adjacent stems,
// and the rune trigrams of each word padded with '#'. It returns the
// bigram prefix of the last word's stem and whether there is a last word.
//
// The hashes are computed here, word by word: stems come with the words,
// and hashing a word's few bytes costs less than finding it in a memo,
// which it did before (TestFeatureHashes compares with the hashes of
// whole strings).
func countFeatures(words, stems []string, uni, bi, tri *counter) (uint64, bool) {
	var prevBi uint64
	hasPrev := false
	for i, w := range words {
		stem := stems[i]
		uni.add(fnvAdd(hashUni, stem))
		if hasPrev {
			bi.add(fnvAdd(prevBi, stem))
		}
		prevBi, hasPrev = fnvByte(fnvAdd(hashBi, stem), ' '), true
		addTrigrams(w, tri)
	}
	return prevBi, hasPrev
}

// The hash states after each group's byte: fnv1a(group, s) is
// fnvAdd(state, s).
var (
	hashUni = fnv1a('u', "")
	hashBi  = fnv1a('b', "")
	hashTri = fnv1a('t', "")
)

// addTrigrams counts the rune trigrams of w padded with '#' ("#w#"): one
// starting at each rune, spanning three runes.
func addTrigrams(w string, tri *counter) {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		// Every byte is a rune: the trigram at k is padded[k:k+3].
		prev2, prev1 := byte('#'), byte(0)
		for k := 0; k <= len(w); k++ {
			c := byte('#')
			if k < len(w) {
				c = w[k]
			}
			if k >= 1 {
				tri.add(fnvByte(fnvByte(fnvByte(hashTri, prev2), prev1), c))
				prev2 = prev1
			}
			prev1 = c
		}
		return
	}
	var buf [64]byte
	padded := buf[:0]
	if len(w)+2 > len(buf) {
		padded = make([]byte, 0, len(w)+2)
	}
	padded = append(append(append(padded, '#'), w...), '#')
	var starts [3]int
	n := 0
	for j := range string(padded) {
		if n >= 3 {
			tri.add(fnvAddBytes(hashTri, padded[starts[n%3]:j]))
		}
		starts[n%3] = j
		n++
	}
	if n >= 3 {
		tri.add(fnvAddBytes(hashTri, padded[starts[n%3]:]))
	}
}

// unitSum returns the embedding of the three groups' per-slot sums u, b
// and t (0 in empty slots): each group scaled to its norm weight (a
// group whose sums are all zero adds nothing), added slot by slot in group
// order, and the whole L2-normalised as float32 (the zero vector when
// nothing is left).
//
// This is the sparse form it replaced, bit for bit: an empty slot's +0
// leaves a sum of squares and an accumulator as they were (x + +0 is x
// for every x but -0, which no sum or product here makes), so summing over
// every slot in order equals summing over the occupied ones in order, and
// the three groups' sums of squares, independent chains, are taken in
// one loop.
func unitSum(acc, u, b, t []float64) []float32 {
	b, t, acc = b[:len(u)], t[:len(u)], acc[:len(u)]
	var su, sb, st float64
	for s, x := range u {
		su += x * x
		sb += b[s] * b[s]
		st += t[s] * t[s]
	}
	ku, kb, kt := groupScale(su, weightUnigram), groupScale(sb, weightBigram), groupScale(st, weightTrigram)
	var ss float64
	for s, x := range u {
		a := 0.0
		a += x * ku
		a += b[s] * kb
		a += t[s] * kt
		acc[s] = a
		ss += a * a
	}
	out := make([]float32, len(u))
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for s, a := range acc {
		out[s] = float32(a * inv)
	}
	return out
}

// groupScale is the factor that gives a group of sum of squares ss the
// norm weight; 0 for an empty group, which then adds +0 everywhere.
func groupScale(ss, weight float64) float64 {
	if ss == 0 {
		return 0
	}
	return weight / math.Sqrt(ss)
}

// fnv1a is 64-bit FNV-1a of the group byte followed by s.
func fnv1a(group byte, s string) uint64 {
	h := uint64(fnvOffset)
	h ^= uint64(group)
	h *= fnvPrime
	return fnvAdd(h, s)
}

// fnvAdd continues an FNV-1a hash over s.
func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// fnvAddBytes is fnvAdd over bytes.
func fnvAddBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// fnvByte continues an FNV-1a hash over one byte.
func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)
