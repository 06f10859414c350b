package index

import (
	"math"
	"math/rand/v2"
	"testing"
)

// clusteredVecs makes dense vectors around a few centres, as sentence
// embeddings of one conversation sit: n rows of dim, spread the noise.
func clusteredVecs(rng *rand.Rand, n, dim, centres int, spread float64) [][]float32 {
	cs := make([][]float64, centres)
	for i := range cs {
		cs[i] = make([]float64, dim)
		for j := range cs[i] {
			cs[i][j] = rng.NormFloat64()
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := cs[rng.IntN(centres)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(c[j] + spread*rng.NormFloat64())
		}
		out[i] = v
	}
	return out
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

// TestExactCompactCosines measures what int8 storage changes on dense
// 1,024-d rows: every cosine within 0.01 of the exact one, recall@20
// against exact search at least 0.95, Raw the dequantised unit row; sparse
// rows score bit for bit as in NewExact.
func TestExactCompactCosines(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim, n = 1024, 2000
	vecs := clusteredVecs(rng, n, dim, 40, 1.5)
	ex, cp := NewExact(dim), NewExactCompact(dim)
	for i, v := range vecs {
		ex.Add(i, v)
		cp.Add(i, v)
	}
	var worst, sum float64
	var recall float64
	queries := clusteredVecs(rng, 50, dim, 40, 1.5)
	for _, q := range queries {
		want, got := ex.Search(q, n), cp.Search(q, n)
		exact := map[int]float64{}
		for _, h := range want {
			exact[h.ID] = h.Score
		}
		for _, h := range got {
			d := math.Abs(h.Score - exact[h.ID])
			worst = max(worst, d)
			sum += d
		}
		recall += recallAt(cp.Search(q, 20), ex.Search(q, 20))
	}
	recall /= float64(len(queries))
	t.Logf("int8 rows: |Δcos| mean %.5f max %.5f; recall@20 %.3f", sum/float64(len(queries)*n), worst, recall)
	if worst > 0.01 || recall < 0.95 {
		t.Errorf("int8 rows: max |Δcos| %.4f (want ≤ 0.01), recall@20 %.3f (want ≥ 0.95)", worst, recall)
	}
	u, r := denseUnit(vecs[5]), cp.Raw(5)
	for i := range u {
		if math.Abs(float64(u[i]-r[i])) > 0.01 {
			t.Fatalf("Raw slot %d = %v, unit row %v", i, r[i], u[i])
		}
	}

	sp := sparseVecs(rng, 200, dim, 280, 12)
	es, cs := NewExact(dim), NewExactCompact(dim)
	for i, v := range sp {
		es.Add(i, v)
		cs.Add(i, v)
	}
	for _, q := range sp[:20] {
		a, b := es.Search(q, 30), cs.Search(q, 30)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("sparse rows: compact hit %d = %+v, exact %+v", i, b[i], a[i])
			}
		}
	}
}
