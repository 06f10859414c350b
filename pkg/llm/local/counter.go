package local

import (
	"math"
	"math/bits"
	"slices"
)

// counter counts the features of one group of one text by hash: an
// open-addressing table with linear probing over a power-of-two array,
// its entries kept in order of first occurrence. It replaces a Go map,
// whose assignments were a tenth of an offline commit's embedding, and is
// reused from the scratch pool: reset forgets only the places it used.
type counter struct {
	table []int32 // 1 + the entry's index; 0 marks an empty place
	shift uint    // 64 - log2(len(table)): the top bits of the mixed hash pick the place
	ents  []entry
}

// entry is one feature of a counter: its hash, how often it was added, and
// its place in the table. One slice of them keeps a hash and its count in
// one cache line.
type entry struct {
	h  uint64
	tf int32
	at int32
}

// counterMul spreads the hashes over the table (Fibonacci hashing): a
// feature hash's top bits pick its place after the multiplication.
const counterMul = 0x9E3779B97F4A7C15

// reset empties c, keeping its memory.
func (c *counter) reset() {
	for _, e := range c.ents {
		c.table[e.at] = 0
	}
	c.ents = c.ents[:0]
}

// add counts one occurrence of h.
func (c *counter) add(h uint64) {
	if 2*len(c.ents) >= len(c.table) {
		c.grow()
	}
	mask := len(c.table) - 1
	for i := int(h * counterMul >> c.shift); ; i = (i + 1) & mask {
		e := c.table[i]
		if e == 0 {
			c.ents = append(c.ents, entry{h: h, tf: 1, at: int32(i)})
			c.table[i] = int32(len(c.ents))
			return
		}
		if en := &c.ents[e-1]; en.h == h {
			en.tf++
			return
		}
	}
}

// grow doubles the table (to at least 256 places) and places the entries
// again, so that it stays at most half full.
func (c *counter) grow() {
	n := max(2*len(c.table), 256)
	c.table = make([]int32, n)
	c.shift = uint(64 - bits.TrailingZeros(uint(n)))
	mask := n - 1
	for j := range c.ents {
		e := &c.ents[j]
		i := int(e.h * counterMul >> c.shift)
		for c.table[i] != 0 {
			i = (i + 1) & mask
		}
		c.table[i] = int32(j + 1)
		e.at = int32(i)
	}
}

// onePlusLog holds 1+ln(tf) for small term counts, computed by the same
// expression featureValue uses for larger ones (so the same bits): most
// features occur a few times, and the logarithm was a tenth of building a
// long text's state.
var onePlusLog = func() (t [64]float64) {
	for tf := 1; tf < len(t); tf++ {
		t[tf] = 1 + math.Log(float64(tf))
	}
	return t
}()

// featureValue is a feature's signed, damped value 1+ln(tf), negated when
// the hash's top bit is set.
func featureValue(h uint64, tf int32) float64 {
	var v float64
	if uint(tf) < uint(len(onePlusLog)) {
		v = onePlusLog[tf]
	} else {
		v = 1 + math.Log(float64(tf))
	}
	if h>>63 == 1 {
		v = -v
	}
	return v
}

// sumAscending sums vals in ascending order, the order the embedder has
// always summed one slot's features in (refAddGroup in the tests), which
// does not depend on the order they were counted in. It may sort vals.
// Two values are summed as they come: floating-point addition is
// commutative.
func sumAscending(vals []float64) float64 {
	switch len(vals) {
	case 1:
		return vals[0]
	case 2:
		return vals[0] + vals[1]
	}
	slices.Sort(vals) // no NaN: values are ±(1+ln tf), tf >= 1
	sum := vals[0]
	for _, v := range vals[1:] {
		sum += v
	}
	return sum
}
