package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
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
//
// Storage is lossless and chosen per vector: a dense vector (a model's
// embedding) is kept as its unit float32 row; a sparse one (the offline
// hashed embedder's, ~300 of 1,024 slots set) as a bitmap of its nonzero
// slots, a palette of its distinct values and a few bits per nonzero (or
// the values themselves when there are more than 256), together with the
// normalisation factor. A search rebuilds a sparse row into a dense scratch
// row holding exactly the float32 values Add would have stored densely and
// scores it with the same dot product, so scores are bit for bit those of
// dense storage (TestExactSparseBitIdentical); only memory (about a ninth
// for offline vectors) and a little search time differ.
type Exact struct {
	dim     int
	keepRaw bool
	// compact stores dense rows as int8 with a per-row scale
	// (NewExactCompact): a quarter of the memory, approximate scores.
	compact bool
	// ivf, when set, searches through groups of rows (NewExactIVF).
	ivf *ivf

	mu   sync.RWMutex
	rows []exactRow
	ids  []int // row → caller's id
	// row maps id → row; nil while every id equals its row (ids added as
	// 0, 1, 2, … and none removed, as ArborMem adds them), which saves
	// the map.
	row map[int]int

	// searchRows holds Search's working rows (*[]float32 of 2·dim: the
	// unit query, then a sparse row rebuilt), kept zero between searches
	// but for the query.
	searchRows sync.Pool
	// searchWide holds int8 rows widened to int32 (*[]int32 of dim).
	searchWide sync.Pool
}

// wideRow is a pooled int32 row of x's dimension.
func (x *Exact) wideRow() *[]int32 {
	w, _ := x.searchWide.Get().(*[]int32)
	if w == nil {
		b := make([]int32, x.dim)
		w = &b
	}
	return w
}

// exactRow is one stored vector: sparse (sp, kept in the row itself) or,
// when dense is set, dense.
type exactRow struct {
	sp    sparseRow
	dense *denseRow
}

// denseRow is a unit row and, when the index keeps it and it differs, the
// vector as given; or, in a compact index, the unit row quantised: slot i
// is q[i]·qscale.
type denseRow struct {
	unit, raw []float32
	q         []int8
	qscale    float32
}

// sparseRow is a vector as given, losslessly, in one buffer: a bitmap of
// its nonzero slots (little-endian uint64 words, bit i of the mask is slot
// i), then either its npal distinct magnitudes and, per nonzero in slot
// order, the index of its magnitude and its sign bit (index<<1 | sign)
// packed in width bits; or (npal 0) each nonzero's value. (Values come in
// ± pairs, so a palette of magnitudes is half the size.) Its unit row is
// float32(float64(v)*scale) per slot, the arithmetic of normalised.
type sparseRow struct {
	buf   []byte
	scale float64
	npal  uint16
	width uint8
}

// NewExact returns an empty index for vectors of dimension dim (> 0).
func NewExact(dim int) *Exact {
	if dim <= 0 {
		panic(fmt.Sprintf("index: NewExact(%d): dimension must be positive", dim))
	}
	return &Exact{dim: dim}
}

// NewExactRaw is NewExact for callers that need each vector back as given
// (Raw), not only its unit row: the index keeps it, so the caller need not
// keep a second copy.
func NewExactRaw(dim int) *Exact {
	x := NewExact(dim)
	x.keepRaw = true
	return x
}

// NewExactCompact is NewExact storing dense vectors (a model's embeddings)
// compactly: each unit row as int8 codes and one scale (the largest
// magnitude over 127), a quarter of float32 storage, with no second copy
// for Raw, which returns the dequantised unit row. Scores are then
// approximate: a cosine moves by at most about 0.004 for 1,024-d rows
// (TestExactCompactCosines measures it). Sparse vectors (the offline
// embedder's) are stored losslessly as in NewExact, so their scores are
// bit for bit those of NewExact.
func NewExactCompact(dim int) *Exact {
	x := NewExact(dim)
	x.compact = true
	return x
}

// Dim is the vector dimension.
func (x *Exact) Dim() int { return x.dim }

// Add stores vec under id, replacing any vector stored under id before.
// A vector of the wrong dimension is a wiring error (an embedder and an
// index built for different models) and panics, naming both dimensions.
func (x *Exact) Add(id int, vec []float32) {
	x.checkDim("Add", vec)
	x.store(id, x.encode(vec, unitScale(vec)))
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
	x.store(id, x.encode(vec, 1)) // float32(float64(f)*1) is f
}

// unitScale is the factor normalised multiplies by, or 0 for a zero or
// non-finite vector (whose unit row is zero).
func unitScale(v []float32) float64 {
	var ss float64
	for _, f := range v {
		ss += float64(f) * float64(f)
	}
	if ss == 0 || math.IsInf(ss, 0) || math.IsNaN(ss) {
		return 0
	}
	return 1 / math.Sqrt(ss)
}

// encode builds the stored form of vec, whose unit row is
// float32(float64(v)*scale) per slot.
func (x *Exact) encode(vec []float32, scale float64) exactRow {
	nnz := 0
	finite := true
	for _, f := range vec {
		if math.Float32bits(f) != 0 { // -0 is kept, so Raw is lossless
			nnz++
			if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
				finite = false
			}
		}
	}
	if finite {
		// Sparse only when it takes under three quarters of the dense row
		// (a search rebuilds it, which costs time).
		if sp, ok := encodeSparse(vec, nnz, scale, 3*x.dim); ok {
			return exactRow{sp: sp}
		}
	}
	unit := make([]float32, len(vec))
	if scale != 0 {
		for i, f := range vec {
			unit[i] = float32(float64(f) * scale)
		}
	}
	if x.compact {
		return exactRow{dense: quantise(unit)}
	}
	d := &denseRow{unit: unit}
	if x.keepRaw && !sameBits(unit, vec) {
		d.raw = append([]float32(nil), vec...)
	}
	return exactRow{dense: d}
}

// encodeSparse returns vec's sparse form (nnz nonzeros), or false when it
// would take limit bytes or more.
func encodeSparse(vec []float32, nnz int, scale float64, limit int) (sparseRow, bool) {
	nw := words(len(vec))
	// The mask is copied into the row's buffer: built on the stack up to
	// 1,024 slots.
	var maskBuf [16]uint64
	mask := maskBuf[:0]
	if nw > len(maskBuf) {
		mask = make([]uint64, nw)
	} else {
		mask = maskBuf[:nw]
	}
	// Palette by open addressing in a table twice the palette's cap.
	var keys [512]uint32
	var slot [512]int16    // palette index + 1; 0 is empty
	var palBuf [128]uint32 // magnitudes' bits
	var codeBuf [1024]uint8
	pal, codes := palBuf[:0], codeBuf[:0]
	if nnz > len(codeBuf) {
		codes = make([]uint8, 0, nnz)
	}
	for i, f := range vec {
		if math.Float32bits(f) == 0 {
			continue
		}
		mask[i/64] |= 1 << (i % 64)
		if codes == nil {
			continue
		}
		b := math.Float32bits(f) &^ (1 << 31)
		h := (b * 0x9E3779B1) >> 23
		for slot[h] != 0 && keys[h] != b {
			h = (h + 1) & 511
		}
		if slot[h] == 0 {
			if len(pal) == len(palBuf) {
				codes = nil // too many distinct values: keep them all
				continue
			}
			pal = append(pal, b)
			keys[h], slot[h] = b, int16(len(pal))
		}
		codes = append(codes, uint8(slot[h]-1)<<1|uint8(math.Float32bits(f)>>31))
	}
	sp := sparseRow{scale: scale}
	head := 8 * nw
	if codes == nil {
		if head+4*nnz >= limit {
			return sp, false
		}
		sp.buf = make([]byte, head+4*nnz)
		off := head
		for _, f := range vec {
			if math.Float32bits(f) != 0 {
				binary.LittleEndian.PutUint32(sp.buf[off:], math.Float32bits(f))
				off += 4
			}
		}
	} else {
		sp.npal = uint16(len(pal))
		sp.width = uint8(bits.Len(uint(2*len(pal) - 1)))
		// One spare byte: a code is read as two bytes.
		size := head + 4*len(pal) + (len(codes)*int(sp.width)+7)/8 + 1
		if size >= limit {
			return sp, false
		}
		sp.buf = make([]byte, size)
		off := head
		for _, b := range pal {
			binary.LittleEndian.PutUint32(sp.buf[off:], b)
			off += 4
		}
		for k, c := range codes {
			bit := k * int(sp.width)
			sp.buf[off+bit/8] |= c << (bit % 8)
			if bit%8+int(sp.width) > 8 {
				sp.buf[off+bit/8+1] |= c >> (8 - bit%8)
			}
		}
	}
	for w, m := range mask {
		binary.LittleEndian.PutUint64(sp.buf[8*w:], m)
	}
	return sp, true
}

// quantise returns unit's int8 row: codes round(u/qscale), qscale the
// largest magnitude over 127, so the largest slot is coded exactly.
func quantise(unit []float32) *denseRow {
	var m float32
	for _, f := range unit {
		m = max(m, float32(math.Abs(float64(f))))
	}
	d := &denseRow{q: make([]int8, len(unit))}
	if m == 0 {
		return d
	}
	d.qscale = m / 127
	inv := 127 / float64(m)
	for i, f := range unit {
		d.q[i] = int8(max(-127, min(127, math.Round(float64(f)*inv))))
	}
	return d
}

// dotInt8 is q·(r·scale). The codes are widened to int32 in Go and
// converted and multiplied with vek's AVX2 kernels, in blocks through
// scratch (of q's length): a plain Go loop converting each code to float32
// took four times as long as a float32 row's dot product.
func dotInt8(q []float32, r []int8, scale float32, wide []int32, scratch []float32) float32 {
	wide, scratch = wide[:len(q)], scratch[:len(q)]
	for i, c := range r[:len(q)] {
		wide[i] = int32(c)
	}
	vek32.FromInt32_Into(scratch, wide)
	return vek32.Dot(q, scratch) * scale
}

// words is the number of mask words of a row of dimension dim.
func words(dim int) int { return (dim + 63) / 64 }

// decode calls f with each nonzero slot and its value as given (or, with
// unit, its unit value), in slot order.
func (sp *sparseRow) decode(dim int, unit bool, f func(i int, v float32)) {
	if unit && sp.scale == 0 {
		return
	}
	head := 8 * words(dim)
	var pal []float32
	var palBuf [256]float32
	if sp.npal > 0 {
		pal = sp.palette(head, unit, &palBuf)
	}
	codes := head + 4*int(sp.npal)
	width := uint(sp.width)
	k := 0
	for w := range words(dim) {
		for m := binary.LittleEndian.Uint64(sp.buf[8*w:]); m != 0; m &= m - 1 {
			i := 64*w + bits.TrailingZeros64(m)
			var v float32
			if pal != nil {
				bit := uint(k) * width
				two := uint(sp.buf[codes+int(bit/8)]) | uint(sp.buf[codes+int(bit/8)+1])<<8
				v = pal[two>>(bit%8)&(1<<width-1)]
			} else {
				v = math.Float32frombits(binary.LittleEndian.Uint32(sp.buf[codes+4*k:]))
				if unit {
					v = float32(float64(v) * sp.scale)
				}
			}
			f(i, v)
			k++
		}
	}
}

// palette returns the values a code stands for (code c is magnitude c>>1
// with sign bit c&1), scaled to the unit row when unit. Each magnitude is
// scaled once: float32(float64(-v)*scale) is -float32(float64(v)*scale),
// since rounding to nearest is symmetric in sign (scale is positive or 0,
// and a zero product keeps the sign rule too: see
// TestPaletteSignSymmetric).
func (sp *sparseRow) palette(head int, unit bool, buf *[256]float32) []float32 {
	pal := buf[:2*int(sp.npal)]
	for c := 0; c < len(pal); c += 2 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(sp.buf[head+4*(c>>1):]))
		if unit {
			v = float32(float64(v) * sp.scale)
		}
		pal[c], pal[c+1] = v, math.Float32frombits(math.Float32bits(v)^1<<31)
	}
	return pal
}

// unitInto writes the unit row into dst, which must be zero: decode's
// work without a call per slot, since every search does it for every row.
func (sp *sparseRow) unitInto(dst []float32) {
	if sp.npal == 0 {
		sp.decode(len(dst), true, func(i int, v float32) { dst[i] = v })
		return
	}
	if sp.scale == 0 {
		return
	}
	nw := words(len(dst))
	buf := sp.buf
	var palBuf [256]float32
	pal := sp.palette(8*nw, true, &palBuf)
	codes := buf[8*nw+4*int(sp.npal):]
	width := uint(sp.width)
	lim := uint(1)<<width - 1
	bit := uint(0)
	for w := range nw {
		for m := binary.LittleEndian.Uint64(buf[8*w:]); m != 0; m &= m - 1 {
			two := uint(codes[bit/8]) | uint(codes[bit/8+1])<<8
			dst[64*w+bits.TrailingZeros64(m)] = pal[two>>(bit%8)&lim]
			bit += width
		}
	}
}

// sameBits reports whether a and b hold the same float32 bit patterns.
func sameBits(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// store puts r under id, replacing any vector stored before.
func (x *Exact) store(id int, r exactRow) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if i, ok := x.rowOf(id); ok {
		x.rows[i] = r
		x.dropGroups()
		return
	}
	if x.row == nil && id != len(x.ids) {
		x.indexRows()
	}
	if x.row != nil {
		x.row[id] = len(x.ids)
	}
	x.ids = append(x.ids, id)
	x.rows = append(x.rows, r)
}

// Vector returns a copy of the unit vector stored under id, or nil. Callers
// that index a vector need not keep their own copy.
func (x *Exact) Vector(id int) []float32 { return x.copyRow(id, false) }

// Raw returns a copy of the vector stored under id as it was given to Add
// or AddUnit, or nil; the index must come from NewExactRaw (other indexes
// return the unit vector for dense rows).
func (x *Exact) Raw(id int) []float32 { return x.copyRow(id, true) }

// copyRow is Vector (raw false) or Raw (raw true).
func (x *Exact) copyRow(id int, raw bool) []float32 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	i, ok := x.rowOf(id)
	if !ok {
		return nil
	}
	out := make([]float32, x.dim)
	switch r := &x.rows[i]; {
	case r.dense == nil && raw:
		r.sp.decode(x.dim, false, func(i int, v float32) { out[i] = v })
	case r.dense == nil:
		r.sp.unitInto(out)
	case r.dense.q != nil:
		for i, c := range r.dense.q {
			out[i] = float32(c) * r.dense.qscale
		}
	case raw && r.dense.raw != nil:
		copy(out, r.dense.raw)
	default:
		copy(out, r.dense.unit)
	}
	return out
}

// rowOf is id's row.
func (x *Exact) rowOf(id int) (int, bool) {
	if x.row == nil {
		return id, id >= 0 && id < len(x.ids)
	}
	r, ok := x.row[id]
	return r, ok
}

// indexRows builds the id → row map, when ids stop being their rows.
func (x *Exact) indexRows() {
	x.row = make(map[int]int, len(x.ids)+1)
	for r, id := range x.ids {
		x.row[id] = r
	}
}

// Remove deletes id's vector; it reports whether there was one. The last
// row moves into the hole, which search order does not depend on.
func (x *Exact) Remove(id int) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	r, ok := x.rowOf(id)
	if !ok {
		return false
	}
	last := len(x.ids) - 1
	if x.row == nil {
		x.indexRows()
	}
	if r != last {
		x.rows[r] = x.rows[last]
		x.ids[r] = x.ids[last]
		x.row[x.ids[r]] = r
	}
	x.dropGroups()
	x.rows[last] = exactRow{}
	x.ids = x.ids[:last]
	x.rows = x.rows[:last]
	delete(x.row, id)
	return true
}

// dropGroups marks the IVF groups stale after a row changed in place
// (x.mu locked).
func (x *Exact) dropGroups() {
	if x.ivf != nil {
		x.ivf.mu.Lock()
		x.ivf.stale = true
		x.ivf.mu.Unlock()
	}
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
	// The unit query and the row a sparse row is rebuilt into, reused:
	// every localization searches.
	rows, _ := x.searchRows.Get().(*[]float32)
	if rows == nil || len(*rows) != 2*x.dim {
		b := make([]float32, 2*x.dim)
		rows = &b
	}
	defer x.searchRows.Put(rows)
	q, scratch := (*rows)[:x.dim], (*rows)[x.dim:]
	normalisedInto(q, query)
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.ivf != nil && len(x.ids) >= ivfMin {
		return x.ivfSearch(q, scratch, k)
	}
	var wide []int32 // dotInt8's, only an int8 index reads it
	if x.compact {
		w := x.wideRow()
		defer x.searchWide.Put(w)
		wide = *w
	}
	top := newTopK(min(k, len(x.ids)))
	for i, id := range x.ids {
		top.push(id, x.rowScore(q, scratch, wide, i))
	}
	return top.sorted()
}

func (x *Exact) checkDim(op string, v []float32) {
	if len(v) != x.dim {
		panic(fmt.Sprintf("index: Exact.%s: vector of dimension %d, index dimension %d", op, len(v), x.dim))
	}
}

// normalisedInto writes into out (of v's length) v at unit length (zero
// for a zero or non-finite vector, which then scores 0).
func normalisedInto(out, v []float32) {
	if scale := unitScale(v); scale != 0 {
		for i, f := range v {
			out[i] = float32(float64(f) * scale)
		}
		return
	}
	clear(out)
}

var _ Vector = (*Exact)(nil)
