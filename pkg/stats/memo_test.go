package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// TestOrderStat: every order statistic of slices with ties, infinities,
// signed zeros and NaN is the sorted slice's.
func TestOrderStat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	levels := []float64{0, 1, 2, 2.5, math.Inf(1), -3}
	cases := map[string][]float64{
		"empty-ish": {7},
		"two":       {2, 1},
		"ties":      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		"neg zero":  {0, math.Copysign(0, -1), 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		"nan":       {3, math.NaN(), 1, 2, 5, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19},
		"sorted":    make([]float64, 100),
		"reversed":  make([]float64, 100),
	}
	for i := range 100 {
		cases["sorted"][i] = float64(i)
		cases["reversed"][i] = float64(100 - i)
	}
	for n := range 30 {
		few, many := make([]float64, 10+n*37), make([]float64, 10+n*37)
		for i := range few {
			few[i] = levels[r.IntN(len(levels))]
			many[i] = r.NormFloat64()
		}
		cases["levels"+string(rune('a'+n))] = few
		cases["normal"+string(rune('a'+n))] = many
	}
	for name, xs := range cases {
		want := slices.Clone(xs)
		slices.Sort(want)
		for k := range xs {
			got := orderStat(slices.Clone(xs), k)
			if math.Float64bits(got) != math.Float64bits(want[k]) && !(got != got && want[k] != want[k]) {
				t.Fatalf("%s: orderStat(k=%d) = %v, sorted %v", name, k, got, want[k])
			}
		}
	}
}

// TestResampleMemo: a remembered estimate, asked for from many goroutines
// at once and again after a reset, is the one resampling gives.
func TestResampleMemo(t *testing.T) {
	c := Clusters{Sums: []float64{1, 0, 2, 1, 3, 0, 1}, Counts: []float64{1, 1, 3, 2, 3, 1, 2}}
	for _, iv := range []string{Studentized, Percentile, Basic} {
		o := Options{Resamples: 2000, Level: 0.9, Seed: 5, Interval: iv}
		want := resampleEstimate(c, o.norm())
		var wg sync.WaitGroup
		got := make([]Estimate, 8)
		for i := range got {
			wg.Go(func() { got[i] = Resample(c, o) })
		}
		wg.Wait()
		textmemo.ResetAll()
		got = append(got, Resample(c, o))
		for _, g := range got {
			if g != want {
				t.Fatalf("%s: Resample = %+v, want %+v", iv, g, want)
			}
		}
		// Other inputs are other entries.
		o.Seed++
		if Resample(c, o) == want {
			t.Fatalf("%s: another seed gave the remembered estimate", iv)
		}
	}
}

// TestOrderStatTwice: an interval reads two order statistics off one
// slice, the second from the order the first left.
func TestOrderStatTwice(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 40 {
		xs := make([]float64, 20+n*53)
		for i := range xs {
			xs[i] = float64(r.IntN(7)) + r.Float64()*float64(n%2)
		}
		want := slices.Clone(xs)
		slices.Sort(want)
		lo, hi := r.IntN(len(xs)), r.IntN(len(xs))
		if got := orderStat(xs, lo); got != want[lo] {
			t.Fatalf("n %d: first orderStat(%d) = %v, want %v", len(xs), lo, got, want[lo])
		}
		if got := orderStat(xs, hi); got != want[hi] {
			t.Fatalf("n %d: second orderStat(%d) = %v, want %v", len(xs), hi, got, want[hi])
		}
	}
}

// TestResampleMemoBounds: whichever bound drops or skips the memo (entries,
// key bytes, a key too large to keep), every estimate is resampling's, and
// inputs that differ only in their counts are other cells.
func TestResampleMemoBounds(t *testing.T) {
	defer func(n, size, key int) { resampleMemoMax, resampleMemoSize, memoKeyMax = n, size, key }(resampleMemoMax, resampleMemoSize, memoKeyMax)
	o := Options{Resamples: 500, Level: 0.9, Seed: 2, Interval: Percentile}
	cells := []Clusters{
		{Sums: []float64{1, 0, 2, 1}, Counts: []float64{1, 1, 3, 2}},
		{Sums: []float64{1, 0, 2, 1}, Counts: []float64{2, 1, 3, 2}}, // counts differ only
		{Sums: []float64{0, 0, 1, 1, 1}, Counts: []float64{1, 1, 1, 1, 1}},
	}
	if memoKey(cells[0], o.norm()) == memoKey(cells[1], o.norm()) {
		t.Fatal("cells differing in counts share a key")
	}
	for name, set := range map[string]func(){
		"entries":  func() { resampleMemoMax = 2 },
		"bytes":    func() { resampleMemoSize = 200 },
		"key size": func() { memoKeyMax = 16 },
	} {
		textmemo.ResetAll()
		resampleMemoMax, resampleMemoSize, memoKeyMax = 4096, 64<<20, 1<<20
		set()
		for range 3 {
			for i, c := range cells {
				if got, want := Resample(c, o), resampleEstimate(c, o.norm()); got != want {
					t.Fatalf("%s: cell %d: %+v, want %+v", name, i, got, want)
				}
			}
		}
		resampleMemo.Lock()
		n, b := len(resampleMemo.m), resampleMemo.bytes
		resampleMemo.Unlock()
		if n > resampleMemoMax || b > resampleMemoSize || (name == "key size" && n != 0) {
			t.Errorf("%s: memo holds %d entries, %d bytes", name, n, b)
		}
	}
}

// TestResampleMemoPanic: a computation that panics leaves its cell to be
// computed again, not an empty estimate.
func TestResampleMemoPanic(t *testing.T) {
	textmemo.ResetAll()
	c := Clusters{Sums: []float64{1, 2}, Counts: []float64{2, 2}}
	o := Options{Resamples: 100, Level: 0.9, Seed: 9, Interval: Percentile}.norm()
	func() {
		defer func() { _ = recover() }()
		resampleMemo.get(c, o, func() Estimate { panic("resampling failed") })
	}()
	want := resampleEstimate(c, o)
	if got := resampleMemo.get(c, o, func() Estimate { return want }); got != want {
		t.Fatalf("after a panic the cell reads %+v, want %+v", got, want)
	}
}
