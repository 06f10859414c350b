package index

import (
	"math"
	"math/bits"

	"github.com/viterin/vek/vek32"
)

// Storage is how an Exact index keeps dense vectors (a model's
// embeddings). Sparse vectors (the offline embedder's) are stored
// losslessly whatever it says.
type Storage uint8

const (
	// Float32 keeps each unit row as float32: lossless, scored with vek's
	// AVX2 dot product.
	Float32 Storage = iota
	// Int8 keeps each unit row as int8 codes and one scale (the largest
	// magnitude over 127): a quarter of Float32; a cosine moves by about
	// 0.0002 on average (TestExactCompactCosines).
	Int8
	// Int4 keeps each unit row as 4-bit codes (two to a byte) and one
	// scale: an eighth of Float32. The step is chosen per row to keep the
	// row's direction best (the cosine of the coded row with the unit row
	// is maximised over a few steps), and the scale makes the coded row
	// unit length, so a score is the cosine of the query with the coded
	// row; a cosine moves by about 0.004 on average (TestExactInt4Cosines).
	Int4
)

// chunkRows is the number of dense rows per allocation: the store grows
// by a chunk at a time instead of doubling one array, so at most one
// chunk (64 KB of int8 rows at 1,024-d) is held beyond what the rows need,
// and no row has a slice header or allocation of its own.
const chunkRows = 64

// denseStore holds an index's dense rows in chunks, by slot: slot s is
// row s%chunkRows of chunk s/chunkRows. Freed slots (a removed or
// replaced row) are reused.
type denseStore struct {
	dim     int
	storage Storage
	// rowLen is the length of one row in its chunk: dim float32s, dim
	// int8 codes, or dim/2 bytes of int4 codes.
	rowLen int
	f32    [][]float32
	codes  [][]byte
	scale  []float32 // per slot, quantised storage
	// keepRaw (Float32 storage, Options.KeepRaw) keeps each vector as
	// given, once: a slot holds its unit row when that is the vector as
	// given bit for bit (rawScale 0), else the vector as given, whose unit
	// row is float32(float64(v)*rawScale) per slot, rebuilt where a
	// search needs it as a sparse row's is (zero when rawScale is
	// negative: a zero or non-finite vector). The unit row and the
	// vector as given differ in the last bit of a few slots for a vector
	// that was unit length already, so keeping both would double the
	// row's memory for the sake of those bits.
	keepRaw  bool
	rawScale []float64
	// signs holds each row's sign bits (bit j of a row is set when slot j
	// of its unit row is positive), words(dim) per row, for the binary
	// first stage; nil without one.
	signs [][]uint64
	n     int32
	free  []int32
}

func newDenseStore(dim int, st Storage, signs, keepRaw bool) *denseStore {
	d := &denseStore{dim: dim, storage: st, rowLen: dim, keepRaw: keepRaw && st == Float32}
	if st == Int4 {
		d.rowLen = (dim + 1) / 2
	}
	if signs {
		d.signs = [][]uint64{}
	}
	return d
}

// alloc returns a free slot, growing the store by a chunk when none is.
func (d *denseStore) alloc() int32 {
	if k := len(d.free); k > 0 {
		s := d.free[k-1]
		d.free = d.free[:k-1]
		return s
	}
	s := d.n
	d.n++
	if int(s)%chunkRows == 0 {
		if d.storage == Float32 {
			d.f32 = append(d.f32, make([]float32, chunkRows*d.rowLen))
		} else {
			d.codes = append(d.codes, make([]byte, chunkRows*d.rowLen))
		}
		if d.signs != nil {
			d.signs = append(d.signs, make([]uint64, chunkRows*words(d.dim)))
		}
	}
	if d.storage != Float32 {
		d.scale = append(d.scale, 0)
	}
	if d.keepRaw {
		d.rawScale = append(d.rawScale, 0)
	}
	return s
}

// release frees slot s for reuse.
func (d *denseStore) release(s int32) { d.free = append(d.free, s) }

// f32Row is slot s's float32 row (Float32 storage): its unit row, or in an
// index that keeps vectors as given, the vector as given.
func (d *denseStore) f32Row(s int32) []float32 {
	off := int(s) % chunkRows * d.rowLen
	return d.f32[s/chunkRows][off : off+d.rowLen : off+d.rowLen]
}

// unitOf is slot s's unit row (Float32 storage): the row itself, or, for
// a row kept as given that differs from its unit row, the unit row
// rebuilt into scratch (of the row's length, every slot written), bit for
// bit as store computed it; rebuilt says which.
func (d *denseStore) unitOf(s int32, scratch []float32) (u []float32, rebuilt bool) {
	row := d.f32Row(s)
	if !d.keepRaw || d.rawScale[s] == 0 {
		return row, false
	}
	scratch = scratch[:len(row)]
	if sc := d.rawScale[s]; sc > 0 {
		for i, f := range row {
			scratch[i] = float32(float64(f) * sc)
		}
	} else {
		clear(scratch)
	}
	return scratch, true
}

// codeRow is slot s's codes (quantised storage).
func (d *denseStore) codeRow(s int32) []byte {
	off := int(s) % chunkRows * d.rowLen
	return d.codes[s/chunkRows][off : off+d.rowLen : off+d.rowLen]
}

// signRow is slot s's sign bits.
func (d *denseStore) signRow(s int32) []uint64 {
	w := words(d.dim)
	off := int(s) % chunkRows * w
	return d.signs[s/chunkRows][off : off+w : off+w]
}

// put stores unit (a unit row, or zero) in slot s; raw is the vector as
// given and scale the factor unit was computed with
// (float32(float64(v)*scale) per slot), for an index that keeps vectors
// as given.
func (d *denseStore) put(s int32, unit, raw []float32, scale float64) {
	switch d.storage {
	case Float32:
		row := d.f32Row(s)
		if !d.keepRaw || sameBits(unit, raw) {
			copy(row, unit)
			if d.keepRaw {
				d.rawScale[s] = 0
			}
			break
		}
		copy(row, raw)
		d.rawScale[s] = scale
		if scale == 0 {
			d.rawScale[s] = -1 // its unit row is zero
		}
	case Int8:
		d.scale[s] = quantiseInt8(unit, d.codeRow(s))
	case Int4:
		d.scale[s] = quantiseInt4(unit, d.codeRow(s))
	}
	if d.signs != nil {
		signBits(unit, d.signRow(s))
	}
}

// putCodes stores in slot s (quantised storage) codes and scale already
// computed for unit, as put would have stored them.
func (d *denseStore) putCodes(s int32, codes []byte, scale float32, unit []float32) {
	copy(d.codeRow(s), codes)
	d.scale[s] = scale
	if d.signs != nil {
		signBits(unit, d.signRow(s))
	}
}

// decode writes slot s's unit row (dequantised) into dst.
func (d *denseStore) decode(s int32, dst []float32) {
	if d.storage == Float32 {
		if u, rebuilt := d.unitOf(s, dst); !rebuilt {
			copy(dst, u)
		}
		return
	}
	decodeCodes(d.storage, d.codeRow(s), d.scale[s], dst)
}

// decodeCodes writes the row that quantised storage st's codes and scale
// stand for into dst: shared by decode and by Exact.coded, which checks a
// row against its own codes without a slot to hold them.
func decodeCodes(st Storage, codes []byte, scale float32, dst []float32) {
	switch st {
	case Int8:
		for i, c := range codes {
			dst[i] = float32(int8(c)) * scale
		}
	case Int4:
		for i, b := range codes {
			lo, hi := nibbles(b)
			dst[2*i] = float32(lo) * scale
			if 2*i+1 < len(dst) {
				dst[2*i+1] = float32(hi) * scale
			}
		}
	}
}

// score is slot s's score against the unit query q; scratch (of q's
// length) is a working row, which dirty says was written.
func (d *denseStore) score(s int32, q, scratch []float32) (score float64, dirty bool) {
	switch d.storage {
	case Int8:
		return float64(dotInt8(q, d.codeRow(s), d.scale[s], scratch)), true
	case Int4:
		return float64(dotInt4(q, d.codeRow(s), d.scale[s], scratch)), true
	}
	u, rebuilt := d.unitOf(s, scratch)
	return float64(vek32.Dot(q, u)), rebuilt
}

// quantiseInt8 writes unit's int8 codes, round(u/scale) with scale the
// largest magnitude over 127 (so the largest slot is coded exactly), into
// codes and returns the scale.
func quantiseInt8(unit []float32, codes []byte) float32 {
	var m float32
	for _, f := range unit {
		m = max(m, float32(math.Abs(float64(f))))
	}
	if m == 0 {
		clear(codes)
		return 0
	}
	inv := 127 / float64(m)
	for i, f := range unit {
		codes[i] = byte(int8(max(-127, min(127, math.Round(float64(f)*inv)))))
	}
	return m / 127
}

// int4Steps are the multiples of 1/max|u| tried as int4 steps' inverse: 7
// codes the largest slot exactly; larger ones give a finer step and clip
// the few largest slots, which keeps a Gaussian-like row's direction
// better. 7 and 8 come first, so a row read back (Vector) and stored
// again (a snapshot) gets its own codes back.
var int4Steps = [...]float64{7, 8, 9, 10, 11, 12}

// quantiseInt4 writes unit's 4-bit codes (−8..7, two to a byte, the even
// slot in the low nibble) into codes and returns the scale that makes the
// coded row unit length. Of int4Steps, the step whose coded row has the
// largest cosine with unit is kept.
func quantiseInt4(unit []float32, codes []byte) float32 {
	var m float64
	for _, f := range unit {
		m = max(m, math.Abs(float64(f)))
	}
	clear(codes)
	if m == 0 {
		return 0
	}
	best, bestCos := 0.0, math.Inf(-1)
	for _, t := range int4Steps {
		inv := t / m
		var dot, cc float64
		for _, f := range unit {
			c := int4Code(float64(f) * inv)
			dot += float64(c) * float64(f)
			cc += float64(c) * float64(c)
		}
		if cc == 0 {
			continue
		}
		if cos := dot / math.Sqrt(cc); cos > bestCos+1e-12 {
			best, bestCos = inv, cos
		}
	}
	var cc float64
	for i, f := range unit {
		c := int4Code(float64(f) * best)
		cc += float64(c) * float64(c)
		codes[i/2] |= byte(c&0xF) << (4 * (i % 2))
	}
	if cc == 0 {
		return 0
	}
	return float32(1 / math.Sqrt(cc))
}

// int4Code is v rounded and clipped to −8..7.
func int4Code(v float64) int8 { return int8(max(-8, min(7, math.Round(v)))) }

// nibbles returns the two signed codes packed in b, low nibble first.
func nibbles(b byte) (lo, hi int8) { return int8(b<<4) >> 4, int8(b) >> 4 }

// int4Pairs maps a byte of int4 codes to its two codes as float32.
var int4Pairs = func() (t [256][2]float32) {
	for b := range 256 {
		lo, hi := nibbles(byte(b))
		t[b] = [2]float32{float32(lo), float32(hi)}
	}
	return t
}()

// dotInt4 is q·(codes·scale): the codes are looked up as float32 pairs
// into scratch and multiplied with vek's dot product. Four bytes a step,
// each pair copied whole through array pointers: one bounds check a step
// rather than two a byte, which halved an int4 search (the fact
// channel's on the model path).
func dotInt4(q []float32, codes []byte, scale float32, scratch []float32) float32 {
	scratch = scratch[:len(q)]
	n := len(q) / 2
	codes = codes[:(len(q)+1)/2]
	i := 0
	for ; i+4 <= n; i += 4 {
		c, o := (*[4]byte)(codes[i:i+4]), (*[8]float32)(scratch[2*i:2*i+8])
		*(*[2]float32)(o[0:2]) = int4Pairs[c[0]]
		*(*[2]float32)(o[2:4]) = int4Pairs[c[1]]
		*(*[2]float32)(o[4:6]) = int4Pairs[c[2]]
		*(*[2]float32)(o[6:8]) = int4Pairs[c[3]]
	}
	for ; i < n; i++ {
		*(*[2]float32)(scratch[2*i : 2*i+2]) = int4Pairs[codes[i]]
	}
	if len(q)%2 == 1 {
		scratch[len(q)-1] = int4Pairs[codes[n]][0]
	}
	return vek32.Dot(q, scratch) * scale
}

// signBits sets bit j of out when u[j] > 0.
func signBits(u []float32, out []uint64) {
	clear(out)
	for j, f := range u {
		if f > 0 {
			out[j/64] |= 1 << (j % 64)
		}
	}
}

// hamming16 is hamming for sixteen words (a 1,024-d row), unrolled in
// four independent sums.
func hamming16(a, b *[16]uint64) int {
	s0 := bits.OnesCount64(a[0]^b[0]) + bits.OnesCount64(a[4]^b[4]) + bits.OnesCount64(a[8]^b[8]) + bits.OnesCount64(a[12]^b[12])
	s1 := bits.OnesCount64(a[1]^b[1]) + bits.OnesCount64(a[5]^b[5]) + bits.OnesCount64(a[9]^b[9]) + bits.OnesCount64(a[13]^b[13])
	s2 := bits.OnesCount64(a[2]^b[2]) + bits.OnesCount64(a[6]^b[6]) + bits.OnesCount64(a[10]^b[10]) + bits.OnesCount64(a[14]^b[14])
	s3 := bits.OnesCount64(a[3]^b[3]) + bits.OnesCount64(a[7]^b[7]) + bits.OnesCount64(a[11]^b[11]) + bits.OnesCount64(a[15]^b[15])
	return s0 + s1 + s2 + s3
}

// hamming is the number of bits that differ between a and b.
func hamming(a, b []uint64) int {
	b = b[:len(a)]
	n := 0
	for i, w := range a {
		n += bits.OnesCount64(w ^ b[i])
	}
	return n
}
