package index

import (
	"math"
	"sync"

	"github.com/viterin/vek/vek32"
)

// ApproxMin is the number of rows below which an IVF or a binary index
// scans every row: the coarse step costs more than it saves on small
// memories.
const ApproxMin = 1024

// ivf is an inverted-file layer over Exact's rows (approximate search,
// arbormem.vector_search: ivf): the rows are grouped by their nearest of
// about √n centroids (spherical k-means), and a search scores the
// centroids, then only the rows of the probe nearest groups, so its cost
// grows as √n, not n. The rows themselves, their storage and their scores
// are Exact's: a row found scores exactly as exact search scores it; what
// IVF loses is rows in groups it did not probe (recall@k below 1,
// measured against exact search in TestIVFRecall).
//
// The groups are brought up to date lazily, at the next search: new rows
// join their nearest group, and the centroids are trained again whenever
// the index has doubled since they were, so training costs O(n) amortised
// per row. A Remove or replacement, which ArborMem does not do while it
// commits, drops the groups (rebuilt at the next search).
type ivf struct {
	probe int

	mu        sync.Mutex
	centroids [][]float32 // unit rows
	lists     [][]int32   // group → rows
	covered   int         // rows[:covered] are in lists
	trainedAt int         // rows when the centroids were trained
	stale     bool
}

// rowUnit returns row i's unit row, in scratch (zeroed first) unless the
// row holds it as float32.
func (x *Exact) rowUnit(i int, scratch []float32) []float32 {
	r := x.rows[i]
	slot, dense := r.slot()
	switch {
	case dense && x.dense.storage == Float32:
		u, _ := x.dense.unitOf(slot, scratch)
		return u
	case dense:
		x.dense.decode(slot, scratch)
		return scratch
	}
	clear(scratch)
	x.sparseRowOf(r).unitInto(scratch)
	return scratch
}

// rowScore is row i's score against the unit query q, as Search computes
// it; scratch must be zero and is left zero.
func (x *Exact) rowScore(q, scratch []float32, i int) float64 {
	r := x.rows[i]
	if slot, ok := r.slot(); ok {
		s, dirty := x.dense.score(slot, q, scratch)
		if dirty {
			clear(scratch)
		}
		return s
	}
	x.sparseRowOf(r).unitInto(scratch)
	s := float64(vek32.Dot(q, scratch))
	clear(scratch)
	return s
}

// nearest is the centroid nearest u.
func (v *ivf) nearest(u []float32) int {
	best, bs := 0, math.Inf(-1)
	for c, cv := range v.centroids {
		if s := float64(vek32.Dot(u, cv)); s > bs {
			best, bs = c, s
		}
	}
	return best
}

// update brings the groups up to date with x.rows (x.mu read-locked, v.mu
// locked).
func (x *Exact) ivfUpdate(scratch []float32) {
	v := x.ivf
	n := len(x.rows)
	if v.stale || v.centroids == nil || n >= 2*v.trainedAt {
		x.ivfTrain(scratch)
		return
	}
	for i := v.covered; i < n; i++ {
		c := v.nearest(x.rowUnit(i, scratch))
		v.lists[c] = append(v.lists[c], int32(i))
	}
	v.covered = n
	clear(scratch)
}

// ivfTrain trains about √n centroids by spherical k-means over a sample
// of the rows (every step-th, deterministic), then assigns every row.
func (x *Exact) ivfTrain(scratch []float32) {
	v := x.ivf
	n := len(x.rows)
	k := max(1, int(math.Sqrt(float64(n))))
	sample := make([]int, 0, min(n, 32*k))
	step := max(1, n/cap(sample))
	for i := 0; i < n && len(sample) < cap(sample); i += step {
		sample = append(sample, i)
	}
	v.centroids = make([][]float32, k)
	for c := range v.centroids {
		v.centroids[c] = append([]float32(nil), x.rowUnit(sample[c*len(sample)/k], scratch)...)
	}
	sums := make([][]float64, k)
	for c := range sums {
		sums[c] = make([]float64, x.dim)
	}
	for range 4 {
		counts := make([]int, k)
		for _, i := range sample {
			u := x.rowUnit(i, scratch)
			c := v.nearest(u)
			counts[c]++
			for j, f := range u {
				sums[c][j] += float64(f)
			}
		}
		for c := range sums {
			if counts[c] > 0 {
				for j, s := range sums[c] {
					v.centroids[c][j] = float32(s)
				}
				normalisedInto(v.centroids[c], v.centroids[c])
			}
			clear(sums[c])
		}
	}
	v.lists = make([][]int32, k)
	v.covered, v.trainedAt, v.stale = 0, n, false
	for i := range n {
		c := v.nearest(x.rowUnit(i, scratch))
		v.lists[c] = append(v.lists[c], int32(i))
	}
	v.covered = n
	clear(scratch)
}

// ivfSearch is Search through the groups (x.mu read-locked).
func (x *Exact) ivfSearch(q, scratch []float32, k int) []Hit {
	v := x.ivf
	v.mu.Lock()
	defer v.mu.Unlock()
	x.ivfUpdate(scratch)
	groups := newTopK(min(v.probe, len(v.centroids)))
	for c, cv := range v.centroids {
		groups.push(c, float64(vek32.Dot(q, cv)))
	}
	top := newTopK(min(k, len(x.rows)))
	for _, g := range groups.sorted() {
		for _, i := range v.lists[g.ID] {
			top.push(x.idOf(int(i)), x.rowScore(q, scratch, int(i)))
		}
	}
	return top.sorted()
}
