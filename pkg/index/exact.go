package index

import (
	"fmt"
	"math"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Exact is a flat, exact cosine index: every search scores every vector
// with an AVX2 dot product (vek; pure Go where AVX2 is missing), so recall
// is 1.0 by construction. At the sizes ArborMem meets (12,400 × 1024-d for
// a BEAM-100K chat) one search takes about 2 ms; see doc.go for why this
// beats the HNSW library on offer.
//
// Vectors are L2-normalised on Add and queries on Search, so Score is
// cosine similarity whatever the caller passes; a zero vector scores 0
// against everything. Safe for concurrent use: searches share a read lock,
// Add and Remove take the write lock.
type Exact struct {
	dim int

	mu   sync.RWMutex
	data []float32 // row r is data[r*dim : (r+1)*dim]
	ids  []int     // row → caller's id
	row  map[int]int
}

// NewExact returns an empty index for vectors of dimension dim (> 0).
func NewExact(dim int) *Exact {
	if dim <= 0 {
		panic(fmt.Sprintf("index: NewExact(%d): dimension must be positive", dim))
	}
	return &Exact{dim: dim, row: make(map[int]int)}
}

// Dim is the vector dimension.
func (x *Exact) Dim() int { return x.dim }

// Add stores vec under id, replacing any vector stored under id before.
// A vector of the wrong dimension is a wiring error (an embedder and an
// index built for different models) and panics, naming both dimensions.
func (x *Exact) Add(id int, vec []float32) {
	x.checkDim("Add", vec)
	x.store(id, normalised(vec))
}

// store puts unit vector v under id, replacing any vector stored before.
func (x *Exact) store(id int, v []float32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if r, ok := x.row[id]; ok {
		copy(x.data[r*x.dim:], v)
		return
	}
	x.row[id] = len(x.ids)
	x.ids = append(x.ids, id)
	x.data = append(x.data, v...)
}

// AddUnit stores vec under id as given when it is already of unit length
// (within 1e-6, e.g. a vector read back from Vector), so that a saved and
// reloaded index scores bit for bit as before; otherwise it is Add.
func (x *Exact) AddUnit(id int, vec []float32) {
	x.checkDim("AddUnit", vec)
	var ss float64
	for _, f := range vec {
		ss += float64(f) * float64(f)
	}
	if math.Abs(ss-1) > 1e-6 {
		x.Add(id, vec)
		return
	}
	x.store(id, vec)
}

// Vector returns a copy of the unit vector stored under id, or nil. Callers
// that index a vector need not keep their own copy.
func (x *Exact) Vector(id int) []float32 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	r, ok := x.row[id]
	if !ok {
		return nil
	}
	out := make([]float32, x.dim)
	copy(out, x.data[r*x.dim:(r+1)*x.dim])
	return out
}

// Remove deletes id's vector; it reports whether there was one. The last
// row moves into the hole, which search order does not depend on.
func (x *Exact) Remove(id int) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	r, ok := x.row[id]
	if !ok {
		return false
	}
	last := len(x.ids) - 1
	if r != last {
		copy(x.data[r*x.dim:(r+1)*x.dim], x.data[last*x.dim:])
		x.ids[r] = x.ids[last]
		x.row[x.ids[r]] = r
	}
	x.ids = x.ids[:last]
	x.data = x.data[:last*x.dim]
	delete(x.row, id)
	return true
}

// Len is the number of stored vectors.
func (x *Exact) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// Search returns the k vectors most similar to query, best first, ties by
// ascending id. k <= 0 returns nothing.
func (x *Exact) Search(query []float32, k int) []Hit {
	x.checkDim("Search", query)
	if k <= 0 {
		return nil
	}
	q := normalised(query)
	x.mu.RLock()
	defer x.mu.RUnlock()
	top := newTopK(min(k, len(x.ids)))
	for r, id := range x.ids {
		top.push(id, float64(vek32.Dot(q, x.data[r*x.dim:(r+1)*x.dim])))
	}
	return top.sorted()
}

func (x *Exact) checkDim(op string, v []float32) {
	if len(v) != x.dim {
		panic(fmt.Sprintf("index: Exact.%s: vector of dimension %d, index dimension %d", op, len(v), x.dim))
	}
}

// normalised returns a unit-length copy of v (a zero copy for a zero or
// non-finite vector, which then scores 0).
func normalised(v []float32) []float32 {
	out := make([]float32, len(v))
	var ss float64
	for _, f := range v {
		ss += float64(f) * float64(f)
	}
	if ss == 0 || math.IsInf(ss, 0) || math.IsNaN(ss) {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, f := range v {
		out[i] = float32(float64(f) * inv)
	}
	return out
}

var _ Vector = (*Exact)(nil)
