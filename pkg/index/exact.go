package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Exact is a flat cosine index: by default every search scores every
// vector with an AVX2 dot product (vek; pure Go where AVX2 is missing), so
// recall is 1.0 by construction. At the sizes ArborMem meets (12,400 ×
// 1024-d for a BEAM-100K chat) one search takes about 2 ms; see doc.go for
// why this beats the HNSW library on offer. Options choose an approximate
// first stage (IVF groups, or sign bits with exact scoring of a short
// list) and compact storage of dense rows (int8, int4).
//
// Vectors are L2-normalised on Add and queries on Search, so Score is
// cosine similarity whatever the caller passes; a zero vector scores 0
// against everything. Safe for concurrent use: searches share a read lock,
// Add and Remove take the write lock.
//
// Storage is chosen per vector: a dense vector (a model's embedding) is
// kept as its unit row in the index's Storage, in chunks of rows
// (denseStore); a sparse one (the offline hashed embedder's, ~300 of 1,024
// slots set) losslessly, as a bitmap of its nonzero slots, a palette of
// its distinct values and a few bits per nonzero (or the values
// themselves when there are more than 256), together with the
// normalisation factor. A search rebuilds a sparse row into a dense
// scratch row holding exactly the float32 values Add would have stored
// densely and scores it with the same dot product, so scores are bit for
// bit those of dense float32 storage (TestExactSparseBitIdentical); only
// memory (about a ninth for offline vectors) and a little search time
// differ.
type Exact struct {
	dim int
	// ivf, when set, searches through groups of rows (Options.Search
	// IVF); bin, when set, through the rows' sign bits first
	// (Options.Search Binary).
	ivf *ivf
	bin *binaryStage

	mu   sync.RWMutex
	rows []exactRow
	// dense holds the dense rows (Options.Storage).
	dense *denseStore
	// sparse holds the sparse rows; freed ones (a removed or replaced
	// row) are listed in freeSparse for reuse.
	sparse     []sparseRow
	freeSparse []int32
	// ids maps row → caller's id, and row maps id → row; both are nil while
	// every id equals its row (ids added as 0, 1, 2, … and none removed,
	// as ArborMem adds them), which saves them.
	ids []int
	row map[int]int

	// searchRows holds Search's working rows (*[]float32 of 2·dim: the
	// unit query, then a sparse row rebuilt), kept zero between searches
	// but for the query.
	searchRows sync.Pool
}

// exactRow is one stored vector: a positive value v is dense, slot v−1 of
// x.dense; a negative one sparse, x.sparse[−v−1]. Four bytes a row: a
// row's sparse form (40 bytes) is held apart, so a dense row, the model
// path's every row, carries none of it.
type exactRow int32

// slot is a dense row's slot in x.dense.
func (r exactRow) slot() (int32, bool) { return int32(r) - 1, r > 0 }

// sparseAt is a sparse row's index in x.sparse.
func (r exactRow) sparseAt() (int32, bool) { return -int32(r) - 1, r < 0 }

// sparseRowOf is row r's sparse form (r sparse).
func (x *Exact) sparseRowOf(r exactRow) *sparseRow {
	i, _ := r.sparseAt()
	return &x.sparse[i]
}

// idOf is row i's id.
func (x *Exact) idOf(i int) int {
	if x.ids == nil {
		return i
	}
	return x.ids[i]
}

// release frees what row r holds, dense slot or sparse row.
func (x *Exact) release(r exactRow) {
	if s, ok := r.slot(); ok {
		x.dense.release(s)
	} else if i, ok := r.sparseAt(); ok {
		x.sparse[i] = sparseRow{}
		x.freeSparse = append(x.freeSparse, i)
	}
}

// putSparse stores sp in a free sparse row and returns its exactRow.
func (x *Exact) putSparse(sp sparseRow) exactRow {
	var i int32
	if k := len(x.freeSparse); k > 0 {
		i = x.freeSparse[k-1]
		x.freeSparse = x.freeSparse[:k-1]
		x.sparse[i] = sp
	} else {
		i = int32(len(x.sparse))
		x.sparse = append(x.sparse, sp)
	}
	return exactRow(-i - 1)
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

// Options are an Exact index's storage and search.
type Options struct {
	// Storage is how dense vectors are kept (Float32, Int8, Int4).
	Storage Storage
	// KeepRaw keeps each vector as given for Raw and Cosines, not only
	// its unit row (Float32 storage; quantised storage returns the
	// dequantised row). A dense row is still stored once: as given, with
	// its normalisation factor, a search rebuilding its unit row bit for
	// bit as a sparse row's is (a pass over the row, about as costly as
	// its dot product), where that differs from the row as given.
	KeepRaw bool
	// Search is Exact (every row scored), IVF or Binary.
	Search Search
	// Probe is the IVF groups scored per search (IVF).
	Probe int
	// Rerank is the short list's length as a multiple of k (Binary): that
	// many rows nearest by sign bits are scored exactly.
	Rerank int
}

// Search is how an Exact index finds its hits.
type Search uint8

const (
	// ExactSearch scores every row.
	ExactSearch Search = iota
	// IVF scores the rows of the Probe groups nearest the query (about
	// √n k-means groups): approximate.
	IVF
	// Binary ranks every dense row by the Hamming distance of its sign
	// bits to the query's (16 XOR and popcount words per 1,024-d row) and
	// scores the Rerank·k nearest as exact search scores them:
	// approximate. Sparse rows are always scored.
	Binary
)

// NewExactWith returns an empty index for vectors of dimension dim (> 0)
// with the given storage and search.
func NewExactWith(dim int, o Options) *Exact {
	if dim <= 0 {
		panic(fmt.Sprintf("index: NewExact(%d): dimension must be positive", dim))
	}
	x := &Exact{dim: dim}
	x.dense = newDenseStore(dim, o.Storage, o.Search == Binary, o.KeepRaw)
	switch o.Search {
	case IVF:
		x.ivf = &ivf{probe: max(1, o.Probe)}
	case Binary:
		x.bin = &binaryStage{rerank: max(1, o.Rerank)}
	}
	return x
}

// NewExact returns an empty index for vectors of dimension dim (> 0),
// float32 rows searched exactly.
func NewExact(dim int) *Exact { return NewExactWith(dim, Options{}) }

// NewExactRaw is NewExact for callers that need each vector back as given
// (Raw), not only its unit row: the index keeps it, so the caller need not
// keep a second copy.
func NewExactRaw(dim int) *Exact { return NewExactWith(dim, Options{KeepRaw: true}) }

// NewExactCompact is NewExact storing dense vectors (a model's embeddings)
// compactly: each unit row as int8 codes and one scale (the largest
// magnitude over 127), a quarter of float32 storage, with no second copy
// for Raw, which returns the dequantised unit row. Scores are then
// approximate: a cosine moves by at most about 0.004 for 1,024-d rows
// (TestExactCompactCosines measures it). Sparse vectors (the offline
// embedder's) are stored losslessly as in NewExact, so their scores are
// bit for bit those of NewExact.
func NewExactCompact(dim int) *Exact { return NewExactWith(dim, Options{Storage: Int8}) }

// Dim is the vector dimension.
func (x *Exact) Dim() int { return x.dim }

// Add stores vec under id, replacing any vector stored under id before.
// A vector of the wrong dimension is a wiring error (an embedder and an
// index built for different models) and panics, naming both dimensions.
func (x *Exact) Add(id int, vec []float32) {
	x.checkDim("Add", vec)
	x.store(id, vec, unitScale(vec))
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
	x.store(id, vec, 1) // float32(float64(f)*1) is f
}

// coded reports whether the unit row u is exactly what x's quantised
// storage decodes some codes to (a row read back with Vector from an index
// of the same storage), and with which codes and scale: such a row is
// stored as those codes again, so that a reloaded index holds and scores
// its rows as before, rather than as sparse rows (a dequantised row has
// few distinct values, so its sparse form can look small). The scale
// quantising computes can be an ulp off the one the row was decoded with
// (int8's largest magnitude over 127, in float32), so its neighbours are
// tried too. It quantises into one row-sized buffer, as every sparse Add
// into a quantised index comes here.
func (x *Exact) coded(u []float32) (codes []byte, scale float32, ok bool) {
	st := x.dense.storage
	var sc float32
	switch st {
	case Int8:
		codes = make([]byte, x.dense.rowLen)
		sc = quantiseInt8(u, codes)
	case Int4:
		codes = make([]byte, x.dense.rowLen)
		sc = quantiseInt4(u, codes)
	default:
		return nil, 0, false
	}
	if sc == 0 {
		return nil, 0, false // a zero row: sparse is smaller
	}
	back := make([]float32, x.dim)
	for _, c := range [...]float32{sc, math.Nextafter32(sc, 0), math.Nextafter32(sc, float32(math.Inf(1)))} {
		decodeCodes(st, codes, c, back)
		if sameBits(back, u) {
			return codes, c, true
		}
	}
	return nil, 0, false
}

// Restore stores under id a vector that Raw returned from an index of the
// same options (a snapshot's), so that x holds and scores it as that index
// did: as given where x keeps vectors as given, else as AddUnit stores it
// (Raw then returned the unit row, or a dequantised one, which Add would
// renormalise, moving the last bit of a few slots).
func (x *Exact) Restore(id int, vec []float32) {
	if x.dense.keepRaw {
		x.Add(id, vec)
		return
	}
	x.AddUnit(id, vec)
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

// sparseOf returns vec's sparse form when it is to be stored sparse: finite
// and taking under three quarters of the dense float32 row (a search
// rebuilds it, which costs time).
func (x *Exact) sparseOf(vec []float32, scale float64) (sparseRow, bool) {
	nnz := 0
	for _, f := range vec {
		if math.Float32bits(f) != 0 { // -0 is kept, so Raw is lossless
			nnz++
			if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
				return sparseRow{}, false
			}
		}
	}
	return encodeSparse(vec, nnz, scale, 3*x.dim)
}

// encodeSparse returns vec's sparse form (nnz nonzeros), or false when it
// would take limit bytes or more.
func encodeSparse(vec []float32, nnz int, scale float64, limit int) (sparseRow, bool) {
	nw := words(len(vec))
	// The mask is copied into the row's buffer: built on the stack up to
	// 1,024 slots.
	var maskBuf [16]uint64
	var mask []uint64
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

// int8Values maps an int8 code (as a byte) to its value as float32.
var int8Values = func() (t [256]float32) {
	for b := range 256 {
		t[b] = float32(int8(b))
	}
	return t
}()

// dotInt8 is q·(r·scale). The codes are looked up as float32 into scratch
// (of q's length) and multiplied with vek's AVX2 dot product: a plain Go
// loop converting each code took four times as long as a float32 row's
// dot product, and widening to int32 for vek's conversion twice as long
// as the lookup.
func dotInt8(q []float32, r []byte, scale float32, scratch []float32) float32 {
	scratch = scratch[:len(q)]
	r = r[:len(q)]
	// Eight codes a step through array pointers: one bounds check a
	// step rather than two a code.
	i := 0
	for ; i+8 <= len(r); i += 8 {
		c, o := (*[8]byte)(r[i:i+8]), (*[8]float32)(scratch[i:i+8])
		o[0], o[1], o[2], o[3] = int8Values[c[0]], int8Values[c[1]], int8Values[c[2]], int8Values[c[3]]
		o[4], o[5], o[6], o[7] = int8Values[c[4]], int8Values[c[5]], int8Values[c[6]], int8Values[c[7]]
	}
	for ; i < len(r); i++ {
		scratch[i] = int8Values[r[i]]
	}
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

// store puts vec (whose unit row is float32(float64(v)*scale) per slot)
// under id, replacing any vector stored before.
func (x *Exact) store(id int, vec []float32, scale float64) {
	sp, sparse := x.sparseOf(vec, scale)
	var codes []byte
	var codedScale float32
	if sparse {
		var ok bool
		if codes, codedScale, ok = x.coded(vec); ok {
			sparse = false
		}
	}
	var unit []float32
	if codes != nil {
		unit = vec // stored as its own codes and scale, not renormalised
	} else if !sparse {
		unit = make([]float32, x.dim)
		if scale != 0 {
			for i, f := range vec {
				unit[i] = float32(float64(f) * scale)
			}
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	i, ok := x.rowOf(id)
	if ok {
		x.dropGroups()
	} else {
		if x.row == nil && id != len(x.rows) {
			x.indexRows()
		}
		i = len(x.rows)
		if x.row != nil {
			x.row[id] = i
			x.ids = append(x.ids, id)
		}
		x.rows = append(x.rows, 0)
	}
	r := &x.rows[i]
	if sparse {
		if i, ok := r.sparseAt(); ok {
			x.sparse[i] = sp
			return
		}
		x.release(*r)
		*r = x.putSparse(sp)
		return
	}
	slot, ok := r.slot()
	if !ok {
		x.release(*r)
		slot = x.dense.alloc()
		*r = exactRow(slot + 1)
	}
	if codes != nil {
		// coded has quantised this row already: its codes and scale go in
		// as they are rather than being quantised again by put.
		x.dense.putCodes(slot, codes, codedScale, unit)
		return
	}
	x.dense.put(slot, unit, vec, scale)
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
	r := x.rows[i]
	slot, dense := r.slot()
	switch {
	case !dense && raw:
		x.sparseRowOf(r).decode(x.dim, false, func(i int, v float32) { out[i] = v })
	case !dense:
		x.sparseRowOf(r).unitInto(out)
	case raw && x.dense.storage == Float32:
		copy(out, x.dense.f32Row(slot))
	default:
		x.dense.decode(slot, out)
	}
	return out
}

// rowOf is id's row.
func (x *Exact) rowOf(id int) (int, bool) {
	if x.row == nil {
		return id, id >= 0 && id < len(x.rows)
	}
	r, ok := x.row[id]
	return r, ok
}

// indexRows builds the id → row map, when ids stop being their rows.
func (x *Exact) indexRows() {
	x.row = make(map[int]int, len(x.rows)+1)
	x.ids = make([]int, len(x.rows), len(x.rows)+1)
	for r := range x.rows {
		x.ids[r] = r
		x.row[r] = r
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
	last := len(x.rows) - 1
	if x.row == nil {
		x.indexRows()
	}
	x.release(x.rows[r])
	if r != last {
		x.rows[r] = x.rows[last]
		x.ids[r] = x.ids[last]
		x.row[x.ids[r]] = r
	}
	x.dropGroups()
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
	return len(x.rows)
}

// Search returns the k vectors most similar to query, best first, ties by
// ascending id. k <= 0 returns nothing.
func (x *Exact) Search(query []float32, k int) []Hit {
	x.checkDim("Search", query)
	if k <= 0 {
		return nil
	}
	rows, q, scratch := x.workRows(query)
	defer x.searchRows.Put(rows)
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.ivf != nil && len(x.rows) >= ApproxMin {
		return x.ivfSearch(q, scratch, k)
	}
	if x.bin != nil && len(x.rows) >= ApproxMin && x.bin.rerank*k < len(x.rows) && x.dim < int(noDist) {
		return x.binarySearch(q, scratch, k)
	}
	top := newTopK(min(k, len(x.rows)))
	for i := range x.rows {
		top.push(x.idOf(i), x.rowScore(q, scratch, i))
	}
	return top.sorted()
}

// Cosines writes into out (of ids' length) the cosine of query with each
// id's vector (0 for a missing id or a zero vector), without copying the
// rows out. With float32 storage it is the float64 cosine of Raw(id) as a
// plain loop over every slot computes it, bit for bit (a sparse row's zero
// slots add nothing to a float64 sum, so only its nonzeros are visited):
// the vector as given in an index that keeps it (Options.KeepRaw), so
// that results over float32 rows, the offline default's, do not move; the
// unit row otherwise, whose cosine is within float32 rounding of the
// given vector's (6e-9 at most in TestExactRawStoredOnce).
// A quantised row gives its search score (a float32 dot product with the
// unit query), four to five times cheaper than the float64 cosine of the
// decoded row (TestCosinesAsRaw).
func (x *Exact) Cosines(query []float32, ids []int, out []float64) {
	out = out[:len(ids)]
	clear(out)
	if len(query) != x.dim {
		return
	}
	var na float64
	for _, f := range query {
		na += float64(f) * float64(f)
	}
	if na == 0 {
		return
	}
	rows, q, scratch := x.workRows(query)
	defer x.searchRows.Put(rows)
	x.mu.RLock()
	defer x.mu.RUnlock()
	for j, id := range ids {
		i, ok := x.rowOf(id)
		if !ok {
			continue
		}
		var dot, nb float64
		r := x.rows[i]
		slot, dense := r.slot()
		switch {
		case dense && x.dense.storage != Float32:
			out[j] = x.rowScore(q, scratch, i)
			continue
		case dense:
			for i, v := range x.dense.f32Row(slot) {
				dot += float64(query[i]) * float64(v)
				nb += float64(v) * float64(v)
			}
		default:
			x.sparseRowOf(r).decode(x.dim, false, func(i int, v float32) {
				dot += float64(query[i]) * float64(v)
				nb += float64(v) * float64(v)
			})
		}
		if nb != 0 {
			out[j] = dot / math.Sqrt(na*nb)
		}
	}
}

// workRows returns a pooled pair of rows (put it back into x.searchRows):
// q, the unit query, and scratch, zero, the row a sparse or quantised row
// is rebuilt into. Reused: every localization searches.
func (x *Exact) workRows(query []float32) (rows *[]float32, q, scratch []float32) {
	rows, _ = x.searchRows.Get().(*[]float32)
	if rows == nil || len(*rows) != 2*x.dim {
		b := make([]float32, 2*x.dim)
		rows = &b
	}
	q, scratch = (*rows)[:x.dim], (*rows)[x.dim:]
	normalisedInto(q, query)
	return rows, q, scratch
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
