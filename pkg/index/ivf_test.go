package index

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/internal/vecfixture"
)

// TestIVFRecall measures IVF's recall@20 against exact search on a
// clustered 1,024-d fixture of 4,000 rows added in two halves (so the
// second half joins trained groups before the retraining at doubling),
// and checks that below ApproxMin rows it is exact search.
func TestIVFRecall(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const dim, n = 1024, 4000
	vecs := vecfixture.Clustered(rng, n, dim, 60, 1.5)
	queries := vecfixture.Clustered(rng, 40, dim, 60, 1.5)
	ex, iv := NewExact(dim), NewExactWith(dim, Options{Search: IVF, Probe: 32})
	for i, v := range vecs[:ApproxMin-1] {
		ex.Add(i, v)
		iv.Add(i, v)
	}
	for _, q := range queries[:5] {
		a, b := ex.Search(q, 20), iv.Search(q, 20)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("below %d rows: IVF hit %d = %+v, exact %+v", ApproxMin, i, b[i], a[i])
			}
		}
	}
	for i, v := range vecs[ApproxMin-1:] {
		ex.Add(ApproxMin-1+i, v)
		iv.Add(ApproxMin-1+i, v)
		if i == n/2 {
			iv.Search(queries[0], 20) // trains the groups on half the rows
		}
	}
	var recall float64
	for _, q := range queries {
		recall += recallAt(iv.Search(q, 20), ex.Search(q, 20))
	}
	recall /= float64(len(queries))
	t.Logf("IVF, %d groups, probe %d: recall@20 %.3f", len(iv.ivf.centroids), iv.ivf.probe, recall)
	if recall < 0.95 {
		t.Errorf("IVF recall@20 = %.3f, want ≥ 0.95", recall)
	}
	// A removal drops the groups; the next search rebuilds them.
	iv.Remove(7)
	ex.Remove(7)
	if r := recallAt(iv.Search(queries[1], 20), ex.Search(queries[1], 20)); r < 0.5 {
		t.Errorf("after Remove: recall@20 %.2f", r)
	}
}

// BenchmarkRecallScale measures one top-20 search of the dense channels of
// an ArborMem memory of 250, 2,000 and 12,000 turns (five 1,024-d vectors
// per turn in one index: its node, about three facts and a record), on a
// clustered fixture whose queries are drawn around the rows' centres, for
// exact search over float32, int8 and int4 rows, IVF over int8 rows
// (probe 32) and the binary first stage over int8 and int4 rows (short
// list 10·k), and prints each one's growth from 250 to 12,000 turns and
// its recall@20 against exact float32 search.
//
//	go test ./pkg/index -run '^$' -bench RecallScale -benchtime 20x
func BenchmarkRecallScale(b *testing.B) {
	const dim, perTurn, k = 1024, 5, 20
	sizes := []int{250, 2000, 12000}
	rng := rand.New(rand.NewPCG(9, 10))
	all, queries := clusteredSet(rng, sizes[len(sizes)-1]*perTurn, 32, dim, 400, 1.5)
	// The exact answers at each size, from one float32 index grown in turn.
	want := map[int][][]Hit{}
	ref := NewExact(dim)
	for _, turns := range sizes {
		for i := ref.Len(); i < turns*perTurn; i++ {
			ref.Add(i, all[i])
		}
		for _, q := range queries {
			want[turns] = append(want[turns], ref.Search(q, k))
		}
	}
	ref = nil
	kinds := []struct {
		name string
		o    Options
	}{
		{"exact-float32", Options{}},
		{"exact-int8", Options{Storage: Int8}},
		{"exact-int4", Options{Storage: Int4}},
		{"ivf-int8", Options{Storage: Int8, Search: IVF, Probe: 32}},
		{"binary-int8", Options{Storage: Int8, Search: Binary, Rerank: 10}},
		{"binary-int4", Options{Storage: Int4, Search: Binary, Rerank: 10}},
	}
	for _, kd := range kinds {
		var first time.Duration
		x := NewExactWith(dim, kd.o)
		for _, turns := range sizes {
			for i := x.Len(); i < turns*perTurn; i++ {
				x.Add(i, all[i])
			}
			x.Search(queries[0], k) // trains IVF's groups
			var recall float64
			for i, q := range queries {
				recall += recallAt(x.Search(q, k), want[turns][i])
			}
			recall /= float64(len(queries))
			b.Run(fmt.Sprintf("%s/%d", kd.name, turns), func(b *testing.B) {
				t0 := time.Now()
				for i := 0; b.Loop(); i++ {
					x.Search(queries[i%len(queries)], k)
				}
				per := time.Since(t0) / time.Duration(b.N)
				if turns == sizes[0] {
					first = per
				}
				b.ReportMetric(recall, "recall@20")
				b.ReportMetric(float64(per)/float64(first), "x-of-250")
			})
		}
	}
}
