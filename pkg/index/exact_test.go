package index

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/viterin/vek/vek32"
)

// denseUnit is the unit row the dense-only index stored (its arithmetic,
// written out again so that the test does not share code with Exact).
func denseUnit(v []float32) []float32 {
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

// sparseVecs makes vectors shaped like the offline embedder's: nnz of dim
// slots set, values drawn from distinct magnitudes with random signs.
func sparseVecs(rng *rand.Rand, n, dim, nnz, distinct int) [][]float32 {
	mags := make([]float32, distinct)
	for i := range mags {
		mags[i] = float32(rng.Float64()*0.2 + 0.01)
	}
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		for range nnz {
			m := mags[rng.IntN(distinct)]
			if rng.IntN(2) == 0 {
				m = -m
			}
			v[rng.IntN(dim)] = m
		}
		out[i] = v
	}
	return out
}

// TestExactSparseBitIdentical checks that every storage form scores, reads
// back (Vector) and returns as given (Raw) bit for bit what dense storage
// of the unit row gives: sparse with a palette, sparse with its values, dense
// vectors, zero and non-finite vectors, after AddUnit, replacement and
// Remove.
func TestExactSparseBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const dim = 1024
	var vecs [][]float32
	vecs = append(vecs, sparseVecs(rng, 40, dim, 280, 12)...)   // palette
	vecs = append(vecs, sparseVecs(rng, 20, dim, 30, 3)...)     // very sparse
	vecs = append(vecs, sparseVecs(rng, 20, dim, 400, 1000)...) // > 256 distinct values
	vecs = append(vecs, randomVecs(rng, 20, dim)...)            // dense
	nan := make([]float32, dim)
	nan[3], nan[9] = float32(math.NaN()), 1
	inf := make([]float32, dim)
	inf[5] = float32(math.Inf(-1))
	negZero := make([]float32, dim)
	negZero[1], negZero[2], negZero[700] = float32(math.Copysign(0, -1)), 0.5, -0.25
	vecs = append(vecs, make([]float32, dim), nan, inf, negZero)
	queries := append(sparseVecs(rng, 8, dim, 200, 10), randomVecs(rng, 8, dim)...)

	x := NewExactRaw(dim)
	for i, v := range vecs {
		x.Add(i, v)
	}
	kinds := map[string]int{}
	for _, r := range x.rows {
		_, dense := r.slot()
		switch {
		case !dense && x.sparseRowOf(r).npal > 0:
			kinds["palette"]++
		case !dense:
			kinds["values"]++
		default:
			kinds["dense"]++
		}
	}
	if kinds["palette"] < 60 || kinds["values"] == 0 || kinds["dense"] < 20 {
		t.Fatalf("storage forms %v: the test does not cover each form", kinds)
	}
	check := func(name string, x *Exact, vecs [][]float32, unit func(int) []float32) {
		t.Helper()
		for qi, q := range queries {
			want := map[int]float32{}
			for i := range vecs {
				want[i] = vek32.Dot(denseUnit(q), unit(i))
			}
			hits := x.Search(q, len(vecs))
			if len(hits) != len(vecs) {
				t.Fatalf("%s: query %d: %d hits, want %d", name, qi, len(hits), len(vecs))
			}
			for _, h := range hits {
				if math.Float64bits(h.Score) != math.Float64bits(float64(want[h.ID])) {
					t.Fatalf("%s: query %d, vector %d: score %v, dense storage %v", name, qi, h.ID, h.Score, want[h.ID])
				}
			}
		}
	}
	check("Add", x, vecs, func(i int) []float32 { return denseUnit(vecs[i]) })
	for i, v := range vecs {
		if got, want := x.Vector(i), denseUnit(v); !sameBits(got, want) {
			t.Fatalf("Vector(%d) differs from the dense unit row", i)
		}
		if got := x.Raw(i); !sameBits(got, v) {
			t.Fatalf("Raw(%d) differs from the vector given", i)
		}
	}
	// A reloaded index (AddUnit of Vector) scores as the original.
	y := NewExact(dim)
	for i := range vecs {
		y.AddUnit(i, x.Vector(i))
	}
	check("AddUnit", y, vecs, func(i int) []float32 { return denseUnit(vecs[i]) })
	// Replacement and removal keep the other rows intact.
	x.Add(0, vecs[1])
	x.Remove(2)
	rest := append([][]float32{vecs[1], vecs[1], make([]float32, dim)}, vecs[3:]...)
	x.Add(2, rest[2])
	check("replace/remove", x, rest, func(i int) []float32 { return denseUnit(rest[i]) })
}

// TestExactRawDense checks Raw on dense rows: an index from NewExactRaw
// returns the vector as given, one from NewExact its unit row.
func TestExactRawDense(t *testing.T) {
	v := []float32{3, 4, 0.5, 1, 2, 7, 1, 1}
	x, y := NewExactRaw(len(v)), NewExact(len(v))
	x.Add(1, v)
	y.Add(1, v)
	if !sameBits(x.Raw(1), v) {
		t.Errorf("NewExactRaw: Raw = %v, want %v", x.Raw(1), v)
	}
	if !sameBits(y.Raw(1), denseUnit(v)) {
		t.Errorf("NewExact: Raw = %v, want the unit row %v", y.Raw(1), denseUnit(v))
	}
	if x.Raw(2) != nil {
		t.Error("Raw of a missing id is not nil")
	}
}

// TestExactRawStoredOnce checks that an index keeping vectors as given
// (NewExactRaw) keeps a dense one once: model embeddings come unit length
// already, so a vector as given and its unit row differ in the last bit
// of a few slots, and keeping both would double the row's memory. Such
// rows (normalised in float32 arithmetic, as a model's float32 output is,
// about a quarter of which differ from their unit row, and vectors of
// any length, which all do) must come back as given from Raw, as the unit row
// from Vector, score bit for bit as in an index that keeps unit rows
// only, and allocate about what that index does.
func TestExactRawStoredOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const dim, n = 256, 300
	vecs := randomVecs(rng, n, dim)
	differ := 0
	for i, v := range vecs[:n/2] {
		var ss float64
		for _, f := range v {
			ss += float64(f) * float64(f)
		}
		norm := float32(math.Sqrt(ss))
		for j := range v {
			v[j] /= norm
		}
		if !sameBits(denseUnit(v), v) {
			differ++
		}
		vecs[i] = v
	}
	for _, v := range vecs[n/2:] {
		if !sameBits(denseUnit(v), v) {
			differ++
		}
	}
	if differ < n/2+n/10 {
		t.Fatalf("only %d of %d rows differ from their unit row: the test does not cover the rebuilt form", differ, n)
	}
	alloc := func(x *Exact) uint64 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		for i, v := range vecs {
			x.Add(i, v)
		}
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	raw, unit := NewExactRaw(dim), NewExact(dim)
	ar, au := alloc(raw), alloc(unit)
	if float64(ar) > 1.05*float64(au) {
		t.Errorf("keeping vectors as given allocates %d bytes for %d rows, unit rows alone %d", ar, n, au)
	}
	for i, v := range vecs {
		if !sameBits(raw.Raw(i), v) || !sameBits(raw.Vector(i), unit.Vector(i)) {
			t.Fatalf("row %d: Raw or Vector differs", i)
		}
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	cr, cu := make([]float64, n), make([]float64, n)
	var worst float64
	for qi, q := range randomVecs(rng, 5, dim) {
		a, b := raw.Search(q, n), unit.Search(q, n)
		for j := range a {
			if a[j].ID != b[j].ID || math.Float64bits(a[j].Score) != math.Float64bits(b[j].Score) {
				t.Fatalf("query %d, hit %d: %+v kept as given, %+v unit rows", qi, j, a[j], b[j])
			}
		}
		// An index of unit rows takes the cosine of the unit row (the
		// model path's records): within float32 rounding of the given
		// vector's.
		raw.Cosines(q, ids, cr)
		unit.Cosines(q, ids, cu)
		for i := range ids {
			worst = max(worst, math.Abs(cr[i]-cu[i]))
		}
	}
	t.Logf("cosine of the unit row against the vector as given: %.2g at most", worst)
	if worst > 1e-6 {
		t.Errorf("cosine of the unit row moves by %g", worst)
	}
}

// scaledNeg is the reference of palette's negative entries: the negative
// value scaled as normalised scales it.
func scaledNeg(mag uint32, scale float64) float32 {
	return float32(float64(math.Float32frombits(mag|1<<31)) * scale)
}

// checkPaletteSign fails unless palette's sign flip of a scaled magnitude
// is the scaled negative value, bit for bit.
func checkPaletteSign(t *testing.T, mag uint32, scale float64) {
	t.Helper()
	mag &^= 1 << 31
	v := float32(float64(math.Float32frombits(mag)) * scale)
	if got, want := math.Float32bits(v)^1<<31, math.Float32bits(scaledNeg(mag, scale)); got != want && !math.IsNaN(float64(v)) {
		t.Fatalf("magnitude %#x scale %v: flipped %#x, scaled negative %#x", mag, scale, got, want)
	}
}

// TestPaletteSignSymmetric: normal, subnormal, underflowing and
// overflowing products, as unitScale's scales (positive, or 0) make them.
func TestPaletteSignSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	scales := []float64{0, 1, 0.5, 1 / math.Sqrt(3), 1e-30, 1e30, math.SmallestNonzeroFloat64, math.MaxFloat64}
	mags := []uint32{0, 1, 0x7f7fffff, 0x00800000, 0x3f800000, 0x007fffff}
	for range 2000 {
		scales = append(scales, math.Exp(rng.NormFloat64()*20))
		mags = append(mags, rng.Uint32()&0x7f7fffff)
	}
	for _, s := range scales {
		for _, m := range mags[:50] {
			checkPaletteSign(t, m, s)
		}
	}
	for i, m := range mags {
		checkPaletteSign(t, m, scales[i%len(scales)])
	}
}

func FuzzPaletteSign(f *testing.F) {
	f.Add(uint32(0x3f800000), 0.5)
	f.Add(uint32(1), 1e-30)
	f.Fuzz(func(t *testing.T, mag uint32, scale float64) {
		if !(scale >= 0) || math.IsInf(scale, 0) {
			return // unitScale's scales are finite and not negative
		}
		checkPaletteSign(t, mag, scale)
	})
}

// TestExactRowFormsReplaced replaces and removes rows across the two
// forms (a dense slot, a sparse row held apart) in each storage, ids
// added in order and not: each id must then hold its last vector, and
// the index must search as one built afresh from those vectors, whose
// freed slots and sparse rows the later adds reuse.
func TestExactRowFormsReplaced(t *testing.T) {
	const dim = 256
	rng := rand.New(rand.NewPCG(7, 9))
	dense, sparse := randomVecs(rng, 12, dim), sparseVecs(rng, 12, dim, 40, 6)
	type put struct {
		id  int
		vec []float32 // nil: remove
	}
	steps := []struct {
		name string
		puts []put
	}{
		{"dense over sparse", []put{{1, dense[1]}}},
		{"sparse over dense", []put{{2, sparse[2]}}},
		{"sparse over sparse", []put{{3, sparse[4]}}},
		{"remove sparse", []put{{5, nil}}},
		{"remove dense", []put{{6, nil}}},
		{"new ids reuse", []put{{40, sparse[7]}, {41, dense[8]}, {42, sparse[9]}, {43, dense[9]}}},
	}
	for _, st := range []Storage{Float32, Int8, Int4} {
		for _, inOrder := range []bool{true, false} {
			x := NewExactWith(dim, Options{Storage: st})
			want := map[int][]float32{}
			apply := func(p put) {
				if p.vec == nil {
					x.Remove(p.id)
					delete(want, p.id)
					return
				}
				x.Add(p.id, p.vec)
				want[p.id] = p.vec
			}
			for i := range 10 {
				p := put{i, dense[i]}
				if i%2 == 1 {
					p.vec = sparse[i]
				}
				if !inOrder {
					p.id = 9 - i
				}
				apply(p)
			}
			for _, s := range steps {
				for _, p := range s.puts {
					apply(p)
				}
				ref := NewExactWith(dim, Options{Storage: st})
				for id, v := range want {
					ref.Add(id, v)
				}
				if x.Len() != len(want) {
					t.Fatalf("%v in order %v, %s: %d rows for %d ids", st, inOrder, s.name, x.Len(), len(want))
				}
				for id := range want {
					if !sameBits(x.Vector(id), ref.Vector(id)) {
						t.Fatalf("%v in order %v, %s: id %d holds another vector", st, inOrder, s.name, id)
					}
				}
				for _, q := range dense[10:] {
					a, b := x.Search(q, 8), ref.Search(q, 8)
					if len(a) != len(b) {
						t.Fatalf("%v in order %v, %s: %d hits, afresh %d", st, inOrder, s.name, len(a), len(b))
					}
					for i := range a {
						if a[i] != b[i] {
							t.Fatalf("%v in order %v, %s: hit %d %+v, afresh %+v", st, inOrder, s.name, i, a[i], b[i])
						}
					}
				}
			}
		}
	}
}
