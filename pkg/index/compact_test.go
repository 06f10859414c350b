package index

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-eval/arbor/internal/vecfixture"
	"github.com/viterin/vek/vek32"
)

// clusteredSet is vecfixture.Clustered with queries drawn around the same
// centres as the rows, so that a query has true neighbours (two
// Clustered calls draw different centres: a query of the second is
// near none of the first's rows, whose top cosines are then about 0.1 and
// their order mere noise).
func clusteredSet(rng *rand.Rand, n, nq, dim, centres int, spread float64) (rows, queries [][]float32) {
	all := vecfixture.Clustered(rng, n+nq, dim, centres, spread)
	return all[:n], all[n:]
}

// recallAt is the share of want's ids found in got.
func recallAt(got, want []Hit) float64 {
	in := map[int]bool{}
	for _, h := range got {
		in[h.ID] = true
	}
	n := 0
	for _, h := range want {
		if in[h.ID] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// cosineShift adds vecs to x (empty) and to an exact float32 index and
// returns how far x moves each cosine (mean and largest |Δ| over every row
// and query) and its recall@20 against the exact index.
func cosineShift(vecs, queries [][]float32, x *Exact) (mean, worst, recall float64) {
	ex := NewExact(x.Dim())
	for i, v := range vecs {
		ex.Add(i, v)
		x.Add(i, v)
	}
	n := len(vecs)
	var sum float64
	for _, q := range queries {
		exact := map[int]float64{}
		for _, h := range ex.Search(q, n) {
			exact[h.ID] = h.Score
		}
		for _, h := range x.Search(q, n) {
			d := math.Abs(h.Score - exact[h.ID])
			worst = max(worst, d)
			sum += d
		}
		recall += recallAt(x.Search(q, 20), ex.Search(q, 20))
	}
	return sum / float64(len(queries)*n), worst, recall / float64(len(queries))
}

// TestExactCompactCosines measures what int8 storage changes on dense
// 1,024-d rows: every cosine within 0.01 of the exact one, recall@20
// against exact search at least 0.95 (a clustered fixture whose queries
// have true neighbours), Raw the dequantised unit row; sparse
// rows score bit for bit as in NewExact.
func TestExactCompactCosines(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim, n = 1024, 2000
	vecs, queries := clusteredSet(rng, n, 50, dim, 40, 1.5)
	cp := NewExactCompact(dim)
	mean, worst, recall := cosineShift(vecs, queries, cp)
	t.Logf("int8 rows: |Δcos| mean %.5f max %.5f; recall@20 %.3f", mean, worst, recall)
	if worst > 0.01 || recall < 0.95 {
		t.Errorf("int8 rows: max |Δcos| %.4f (want ≤ 0.01), recall@20 %.3f (want ≥ 0.95)", worst, recall)
	}
	u, r := denseUnit(vecs[5]), cp.Raw(5)
	for i := range u {
		if math.Abs(float64(u[i]-r[i])) > 0.01 {
			t.Fatalf("Raw slot %d = %v, unit row %v", i, r[i], u[i])
		}
	}

	sparseAsExact(t, rng, 200, Options{Storage: Int8})
}

// sparseAsExact checks that an index with options o returns exactly the
// hits of NewExact over n sparse rows (the offline embedder's kind), for
// 20 of them as queries.
func sparseAsExact(t *testing.T, rng *rand.Rand, n int, o Options) {
	t.Helper()
	const dim = 1024
	sp := sparseVecs(rng, n, dim, 280, 12)
	ex, x := NewExact(dim), NewExactWith(dim, o)
	for i, v := range sp {
		ex.Add(i, v)
		x.Add(i, v)
	}
	for _, q := range sp[:20] {
		a, b := ex.Search(q, 30), x.Search(q, 30)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("sparse rows, %+v: hit %d = %+v, exact %+v", o, i, b[i], a[i])
			}
		}
	}
}

// TestExactInt4Cosines measures what int4 storage changes on dense
// 1,024-d rows, as TestExactCompactCosines does for int8: every cosine
// within 0.03 of the exact one, recall@20 against exact search at least
// 0.95 on a clustered fixture with true neighbours; a row read back and
// stored again (a snapshot) keeps its codes; sparse rows score bit for bit
// as in NewExact.
func TestExactInt4Cosines(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim, n = 1024, 2000
	vecs, queries := clusteredSet(rng, n, 50, dim, 40, 1.5)
	cp := NewExactWith(dim, Options{Storage: Int4})
	mean, worst, recall := cosineShift(vecs, queries, cp)
	t.Logf("int4 rows: |Δcos| mean %.5f max %.5f; recall@20 %.3f", mean, worst, recall)
	if worst > 0.03 || recall < 0.95 {
		t.Errorf("int4 rows: max |Δcos| %.4f (want ≤ 0.03), recall@20 %.3f (want ≥ 0.95)", worst, recall)
	}
	// Reloaded as a snapshot reloads it (AddUnit of Vector), an int8 or
	// int4 index holds the same codes as dense rows and scores as before.
	i8 := NewExactCompact(dim)
	for i, v := range vecs {
		i8.Add(i, v)
	}
	for _, x := range []*Exact{cp, i8} {
		re := NewExactWith(dim, Options{Storage: x.dense.storage})
		for i := range vecs {
			re.AddUnit(i, x.Vector(i))
		}
		for i := range vecs {
			if re.rows[i] <= 0 {
				t.Fatalf("storage %d: reloaded row %d stored sparse", x.dense.storage, i)
			}
		}
		for _, q := range queries[:5] {
			a, b := x.Search(q, 50), re.Search(q, 50)
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("storage %d: reloaded index hit %d = %+v, before %+v", x.dense.storage, i, b[i], a[i])
				}
			}
		}
	}
	sparseAsExact(t, rng, 200, Options{Storage: Int4})
}

// TestCosinesAsRaw checks Cosines for every storage and row form (sparse,
// dense, zero, missing ids): bit for bit the plain float64 cosine of Raw
// for sparse rows and float32 ones, the search score for quantised ones
// (within 1e-6 of that cosine; 1e-3 for int8 rows, whose score is not
// renormalised); and scoreOf against Search's score.
func TestCosinesAsRaw(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const dim = 256
	vecs := append(sparseVecs(rng, 30, dim, 70, 12), randomVecs(rng, 30, dim)...)
	vecs = append(vecs, make([]float32, dim))
	// plain is the float64 cosine ArborMem took of Raw (arbormem's
	// cosine, assemble.go), the reference for sparse rows.
	plain := func(a, b []float32) float64 {
		if len(a) != len(b) || len(a) == 0 {
			return 0
		}
		var dot, na, nb float64
		for i := range a {
			dot += float64(a[i]) * float64(b[i])
			na += float64(a[i]) * float64(a[i])
			nb += float64(b[i]) * float64(b[i])
		}
		if na == 0 || nb == 0 {
			return 0
		}
		return dot / math.Sqrt(na*nb)
	}
	for _, o := range []Options{{}, {KeepRaw: true}, {Storage: Int8}, {Storage: Int4}, {Storage: Int8, Search: Binary, Rerank: 2}} {
		x := NewExactWith(dim, o)
		for i, v := range vecs {
			x.Add(i, v)
		}
		ids := []int{len(vecs) + 5} // missing
		for i := range vecs {
			ids = append(ids, i)
		}
		got := make([]float64, len(ids))
		for qi, q := range randomVecs(rng, 4, dim) {
			x.Cosines(q, ids, got)
			for j, id := range ids {
				want := plain(q, x.Raw(id))
				if s, ok := scoreOf(x, q, id); ok && x.rows[id] > 0 && o.Storage != Float32 {
					// A dense row: its search score, within float32
					// rounding of the cosine (int8's score is not
					// renormalised by the dequantised row's length).
					if tol := map[Storage]float64{Int8: 1e-3, Int4: 1e-6}[o.Storage]; math.Abs(want-s) > tol {
						t.Fatalf("%+v: id %d: score %v, cosine of Raw %v", o, id, s, want)
					}
					want = s
				}
				if math.Float64bits(got[j]) != math.Float64bits(want) {
					t.Fatalf("%+v: query %d, id %d: Cosines %v, want %v", o, qi, id, got[j], want)
				}
			}
			for _, h := range x.Search(q, len(vecs)) {
				if s, ok := scoreOf(x, q, h.ID); !ok || math.Float64bits(s) != math.Float64bits(h.Score) {
					t.Fatalf("%+v: scoreOf(%d) = %v, %v; Search %v", o, h.ID, s, ok, h.Score)
				}
			}
		}
	}
}

// scoreOf is the score of the vector stored under id against query, as
// Search would give it (false when there is none): the cosine of one
// stored row without copying it out. Only tests need one row's score, so
// it lives here rather than in Exact's API.
func scoreOf(x *Exact, query []float32, id int) (float64, bool) {
	x.checkDim("scoreOf", query)
	rows, q, scratch := x.workRows(query)
	defer x.searchRows.Put(rows)
	x.mu.RLock()
	defer x.mu.RUnlock()
	i, ok := x.rowOf(id)
	if !ok {
		return 0, false
	}
	return x.rowScore(q, scratch, i), true
}

// TestDotInt4Reference checks the unrolled int4 dot product against the
// codes decoded one slot at a time, bit for bit, at dimensions that end
// inside and outside a four-byte step, odd ones included.
func TestDotInt4Reference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for _, dim := range []int{1, 2, 7, 8, 9, 15, 16, 17, 1023, 1024} {
		u := randomVecs(rng, 1, dim)[0]
		q := randomVecs(rng, 1, dim)[0]
		normalisedInto(u, u)
		normalisedInto(q, q)
		codes := make([]byte, (dim+1)/2)
		scale := quantiseInt4(u, codes)
		ref := make([]float32, dim)
		decodeCodes(Int4, codes, 1, ref)
		want := vek32.Dot(q, ref) * scale
		if got := dotInt4(q, codes, scale, make([]float32, dim)); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("dim %d: dotInt4 %v, decoded %v", dim, got, want)
		}
	}
}
