package local

import (
	"math"
	"slices"

	"github.com/arbor-eval/arbor/pkg/index"
)

// refVector is the embedding of a text whose content words are words, as
// the embedder made it before its speed work (Go maps of counts, one
// integer sort per group, 1+ln(tf) for every feature, nothing
// remembered): the reference every faster path is compared with, bit for
// bit.
func refVector(words []string, dim int) []float32 {
	groups := [3]map[uint64]float64{{}, {}, {}}
	var prevBi uint64
	hasPrev := false
	for _, w := range words {
		f := refWordFeature(w)
		groups[0][f.uni]++
		if hasPrev {
			groups[1][fnvAdd(prevBi, f.stem)]++
		}
		prevBi, hasPrev = f.biPrefix, true
		for _, h := range f.tri {
			groups[2][h]++
		}
	}
	acc := make([]float64, dim)
	for gi, weight := range []float64{weightUnigram, weightBigram, weightTrigram} {
		refAddGroup(acc, groups[gi], weight)
	}
	return refNormalised(acc)
}

// refNormalised returns acc L2-normalised as float32, or the zero vector
// when acc is zero.
func refNormalised(acc []float64) []float32 {
	var ss float64
	for _, v := range acc {
		ss += v * v
	}
	out := make([]float32, len(acc))
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, v := range acc {
		out[i] = float32(v * inv)
	}
	return out
}

// refFeature is what one word contributes to an embedding, whatever its
// neighbours: its stem, the stem's unigram hash, the hash state a bigram
// starting with it continues from, and its padded rune trigrams' hashes.
type refFeature struct {
	stem     string
	uni      uint64
	biPrefix uint64
	tri      []uint64
}

// refWordFeature is a word's features as the embedder computed them
// before its speed work, from whole strings.
func refWordFeature(w string) refFeature {
	stem := index.Stem(w)
	f := refFeature{stem: stem, uni: fnv1a('u', stem), biPrefix: fnvAdd(fnv1a('b', stem), " ")}
	padded := "#" + w + "#"
	var starts [3]int
	n := 0
	for j := range padded {
		if n >= 3 {
			f.tri = append(f.tri, fnv1a('t', padded[starts[n%3]:j]))
		}
		starts[n%3] = j
		n++
	}
	if n >= 3 {
		f.tri = append(f.tri, fnv1a('t', padded[starts[n%3]:]))
	}
	return f
}

// refAddGroup adds one group (hash → count) to acc with norm weight:
// features are summed per slot in ascending order of value, and the
// group's slots, in slot order, are scaled to norm weight.
func refAddGroup(acc []float64, feats map[uint64]float64, weight float64) {
	dim := uint64(len(acc))
	var keys []uint64
	var vals []float64
	for h, tf := range feats {
		keys = append(keys, (h%dim)<<32|uint64(len(vals)))
		v := 1 + math.Log(tf)
		if h>>63 == 1 {
			v = -v
		}
		vals = append(vals, v)
	}
	slices.Sort(keys)
	type slotSum struct {
		slot int
		sum  float64
	}
	var merged []slotSum
	for i := 0; i < len(keys); {
		slot := keys[i] >> 32
		var run []float64
		for ; i < len(keys) && keys[i]>>32 == slot; i++ {
			run = append(run, vals[uint32(keys[i])])
		}
		slices.Sort(run)
		sum := run[0]
		for _, v := range run[1:] {
			sum += v
		}
		merged = append(merged, slotSum{int(slot), sum})
	}
	var ss float64
	for _, f := range merged {
		ss += f.sum * f.sum
	}
	if ss == 0 {
		return
	}
	scale := weight / math.Sqrt(ss)
	for _, f := range merged {
		acc[f.slot] += f.sum * scale
	}
}
