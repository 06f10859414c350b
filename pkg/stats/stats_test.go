package stats

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

// binomPMF is the exact Binomial(n, p) probability of k, computed in logs.
func binomPMF(n, k int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	if p == 0 {
		if k == 0 {
			return 1
		}
		return 0
	}
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log(1-p))
}

// exactQuantile is the type-1 quantile of a discrete distribution given as
// sorted support points and their probabilities; margin is the distance of
// q from the nearest CDF step, which says whether a Monte-Carlo estimate can
// be expected to land on the same point.
func exactQuantile(xs, ps []float64, q float64) (v, margin float64) {
	cdf := 0.0
	margin = 1
	v = math.NaN()
	for i, x := range xs {
		cdf += ps[i]
		margin = math.Min(margin, math.Abs(cdf-q))
		if math.IsNaN(v) && cdf >= q-1e-12 {
			v = x
		}
	}
	return v, margin
}

// TestBootstrapBinaryMatchesExactBinomial: resampling n questions of which k
// are correct gives means distributed exactly as Binomial(n, k/n)/n, so the
// percentile interval must sit on that distribution's 2.5% and 97.5% points.
func TestBootstrapBinaryMatchesExactBinomial(t *testing.T) {
	cases := []struct{ n, k int }{{20, 14}, {30, 7}, {30, 9}, {12, 11}}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.n)+"/"+strconv.Itoa(tc.k), func(t *testing.T) {
			vals := make([]float64, tc.n)
			for i := range tc.k {
				vals[i] = 1
			}
			var xs, ps []float64
			for j := 0; j <= tc.n; j++ {
				xs = append(xs, float64(j)/float64(tc.n))
				ps = append(ps, binomPMF(tc.n, j, float64(tc.k)/float64(tc.n)))
			}
			lo, m1 := exactQuantile(xs, ps, 0.025)
			hi, m2 := exactQuantile(xs, ps, 0.975)
			o := Options{Resamples: 40000, Level: 0.95, Seed: 7}
			// Monte-Carlo error of an empirical CDF at B=40,000 is below 0.001.
			if math.Min(m1, m2) < 0.004 {
				t.Fatalf("fixture too close to a CDF step (margin %.4f); choose another", math.Min(m1, m2))
			}
			got := Bootstrap(Singletons(vals), o)
			if got.Lo != lo || got.Hi != hi {
				t.Errorf("bootstrap interval = [%v, %v], exact binomial quantiles [%v, %v]", got.Lo, got.Hi, lo, hi)
			}
		})
	}
}

// exactMeanDistribution is the exact bootstrap distribution of the mean of
// vals: every one of the n^n equally likely resamples enumerated, values
// (rounded to 1e-9) sorted with their probabilities.
func exactMeanDistribution(vals []float64) (xs, ps []float64) {
	n := len(vals)
	total := 1
	for range n {
		total *= n
	}
	count := map[float64]int{}
	for code := range total {
		s, c := 0.0, code
		for range n {
			s += vals[c%n]
			c /= n
		}
		count[math.Round(s/float64(n)*1e9)/1e9]++
	}
	for _, x := range slices.Sorted(mapKeys(count)) {
		xs = append(xs, x)
		ps = append(ps, float64(count[x])/float64(total))
	}
	return xs, ps
}

// TestBootstrapMatchesEnumeration checks a non-binary vector against the
// exact bootstrap distribution: all n^n equally likely resamples.
func TestBootstrapMatchesEnumeration(t *testing.T) {
	vals := []float64{0, 0.25, 0.5, 1, 1}
	xs, ps := exactMeanDistribution(vals)
	lo, m1 := exactQuantile(xs, ps, 0.025)
	hi, m2 := exactQuantile(xs, ps, 0.975)
	if math.Min(m1, m2) < 0.003 {
		t.Fatalf("fixture too close to a CDF step (margin %.4f)", math.Min(m1, m2))
	}
	got := Bootstrap(Singletons(vals), Options{Resamples: 100000, Level: 0.95, Seed: 3})
	if math.Abs(got.Lo-lo) > 1e-9 || math.Abs(got.Hi-hi) > 1e-9 {
		t.Errorf("bootstrap interval = [%v, %v], exact enumeration [%v, %v]", got.Lo, got.Hi, lo, hi)
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// exactSignFlip enumerates every sign pattern recursively: an independent
// implementation of the exact two-sided permutation p-value.
func exactSignFlip(d []float64) float64 {
	obs := 0.0
	for _, v := range d {
		obs += v
	}
	obs = math.Abs(obs)
	var hits, total int
	var rec func(i int, s float64)
	rec = func(i int, s float64) {
		if i == len(d) {
			total++
			if math.Abs(s) >= obs-1e-9 {
				hits++
			}
			return
		}
		rec(i+1, s+d[i])
		rec(i+1, s-d[i])
	}
	rec(0, 0)
	return float64(hits) / float64(total)
}

func TestSignFlipExact(t *testing.T) {
	cases := []struct {
		name string
		a, b []float64
		want float64 // hand-computed where noted, else from exactSignFlip
	}{
		// Six wins out of six: only the all-plus and all-minus patterns reach
		// |6|, p = 2/64.
		{"six wins", []float64{1, 1, 1, 1, 1, 1}, []float64{0, 0, 0, 0, 0, 0}, 2.0 / 64},
		// Ties contribute nothing: 3 wins, 3 ties → 2/8 of the patterns of
		// the wins (ties double both counts).
		{"wins and ties", []float64{1, 1, 1, 1, 0, 0}, []float64{0, 0, 0, 1, 0, 0}, 0.25},
		{"no difference", []float64{1, 0, 1, 0}, []float64{1, 0, 1, 0}, 1},
		{"mixed ten", []float64{1, 1, 0, 1, 1, 1, 0, 1, 1, 0}, []float64{0, 1, 0, 0, 1, 0, 1, 0, 0, 0}, -1},
		{"graded twelve", []float64{.9, .8, .5, 1, .3, .7, .6, 1, .2, .4, .9, .5}, []float64{.4, .8, .6, .2, .3, .1, .6, .5, .7, .4, .2, .5}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := make([]float64, len(tc.a))
			for i := range d {
				d[i] = tc.a[i] - tc.b[i]
			}
			want := tc.want
			if want < 0 {
				want = exactSignFlip(d)
			} else if e := exactSignFlip(d); math.Abs(e-want) > 1e-12 {
				t.Fatalf("independent enumeration %v disagrees with hand value %v", e, want)
			}
			p, exact := SignFlip(d, DefaultOptions())
			if !exact {
				t.Fatalf("n=%d: want the exact test", len(d))
			}
			if math.Abs(p-want) > 1e-12 {
				t.Errorf("p = %v, want %v", p, want)
			}
		})
	}
}

// TestSignFlipMonteCarlo: beyond the exact range the Monte-Carlo p-value is
// within four standard errors of the exact one.
func TestSignFlipMonteCarlo(t *testing.T) {
	for _, d := range [][]float64{
		{1, 1, 0, 1, -1, 1, 1, 0, 1, 1, -1, 1, 0, 1, 1, -1, 1, 0, 1, 1},                // right/wrong: popcount path
		{.5, .2, -.1, .7, .3, -.4, .6, .1, .2, -.3, .8, .05, .4, -.2, .3, .1, -.6, .2}, // graded scores
	} {
		exact := exactSignFlip(d)
		o := Options{Resamples: 20000, Level: 0.95, Seed: 11}
		p, ex := SignFlip(d, o)
		if ex {
			t.Fatalf("2^%d patterns: want Monte Carlo", len(d))
		}
		se := math.Sqrt(exact * (1 - exact) / float64(o.Resamples))
		if math.Abs(p-exact) > 4*se+1.0/float64(o.Resamples) {
			t.Errorf("Monte-Carlo p = %v, exact %v (se %v)", p, exact, se)
		}
	}
}

// TestComparePairedIntervalMatchesEnumeration: the paired interval is the
// percentile interval of the exact bootstrap distribution of the mean
// difference.
func TestComparePairedIntervalMatchesEnumeration(t *testing.T) {
	a := []float64{1, 1, 0, 1, 1, 0}
	b := []float64{0, 1, 0, 0, 1, 1}
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	xs, ps := exactMeanDistribution(d)
	lo, m1 := exactQuantile(xs, ps, 0.025)
	hi, m2 := exactQuantile(xs, ps, 0.975)
	if math.Min(m1, m2) < 0.003 {
		t.Fatalf("fixture too close to a CDF step (margin %.4f)", math.Min(m1, m2))
	}
	got := Compare(a, b, nil, Options{Resamples: 100000, Level: 0.95, Seed: 5})
	if math.Abs(got.Diff-1.0/6) > 1e-12 {
		t.Errorf("diff = %v, want 1/6", got.Diff)
	}
	if math.Abs(got.CI.Lo-lo) > 1e-9 || math.Abs(got.CI.Hi-hi) > 1e-9 {
		t.Errorf("paired interval = [%v, %v], exact [%v, %v]", got.CI.Lo, got.CI.Hi, lo, hi)
	}
	if got.Distinct() != !(lo <= 0 && 0 <= hi) {
		t.Errorf("Distinct = %v for interval [%v, %v]", got.Distinct(), lo, hi)
	}
}

// TestClusteredWiderWhenCorrelated: when the questions of an episode are
// all right or all wrong together, resampling episodes sees 10 independent
// units, not 100, and its interval must be wider.
func TestClusteredWiderWhenCorrelated(t *testing.T) {
	var vals []float64
	var ids []string
	for e := range 10 {
		v := 0.0
		if e%10 < 6 {
			v = 1
		}
		for q := range 10 {
			// One question in ten breaks ranks, so clusters are not constant.
			w := v
			if q == e%10 {
				w = 1 - v
			}
			vals = append(vals, w)
			ids = append(ids, "ep"+strconv.Itoa(e))
		}
	}
	o := DefaultOptions()
	flat := Bootstrap(Singletons(vals), o)
	clus := Bootstrap(Group(vals, ids), o)
	if Group(vals, ids).Len() != 10 || Group(vals, ids).N() != 100 {
		t.Fatalf("grouping: %d clusters of %d values", Group(vals, ids).Len(), Group(vals, ids).N())
	}
	if !(clus.Hi-clus.Lo > 1.5*(flat.Hi-flat.Lo)) {
		t.Errorf("clustered interval %v not clearly wider than per-question %v", clus, flat)
	}
	// Independent questions: clusters of one give the per-question interval.
	single := make([]string, len(vals))
	for i := range single {
		single[i] = strconv.Itoa(i)
	}
	if got := Bootstrap(Group(vals, single), o); got != flat {
		t.Errorf("singleton clusters %v differ from per-question %v", got, flat)
	}
}

func TestDeterministicWithSeed(t *testing.T) {
	vals := []float64{1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1}
	other := []float64{0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1}
	o := Options{Resamples: 2000, Level: 0.9, Seed: 99}
	a1, a2 := Bootstrap(Singletons(vals), o), Bootstrap(Singletons(vals), o)
	p1, p2 := Compare(vals, other, nil, o), Compare(vals, other, nil, o)
	if a1 != a2 || p1 != p2 {
		t.Errorf("same seed, different results: %v %v / %+v %+v", a1, a2, p1, p2)
	}
	seen := map[Paired]bool{}
	for s := range uint64(5) {
		o.Seed = s
		seen[Compare(vals, other, nil, o)] = true
	}
	if len(seen) < 2 {
		t.Error("five seeds gave identical Monte-Carlo results: the seed is not used")
	}
}

func TestEdgeCases(t *testing.T) {
	if iv := Bootstrap(Clusters{}, DefaultOptions()); !math.IsNaN(iv.Lo) {
		t.Errorf("empty: %v, want NaN", iv)
	}
	if iv := Bootstrap(Singletons([]float64{0.5}), DefaultOptions()); iv != (Interval{0.5, 0.5}) {
		t.Errorf("one value: %v", iv)
	}
	if iv := Bootstrap(Singletons([]float64{1, 1, 1}), DefaultOptions()); iv != (Interval{1, 1}) {
		t.Errorf("constant: %v", iv)
	}
	// The basic interval reflects the percentile one about the mean.
	vals := []float64{0, 0, 0, 0, 0, 0, 1, 1, 1, 1}
	o := DefaultOptions()
	pc := Bootstrap(Singletons(vals), o)
	o.Interval = Basic
	if b := Bootstrap(Singletons(vals), o); math.Abs(b.Lo-(0.8-pc.Hi)) > 1e-12 || math.Abs(b.Hi-(0.8-pc.Lo)) > 1e-12 {
		t.Errorf("basic %v, percentile %v around 0.4", b, pc)
	}
	if p := Compare(nil, nil, nil, DefaultOptions()); p.N != 0 || !math.IsNaN(p.P) || p.Distinct() {
		t.Errorf("empty comparison: %+v", p)
	}
	// One episode: the interval collapses to the point, which must not
	// count as evidence of a difference.
	if p := Compare([]float64{1, 1, 1}, []float64{0, 0, 0}, []string{"e", "e", "e"}, DefaultOptions()); p.Clusters != 1 || p.Distinct() {
		t.Errorf("one cluster: %+v", p)
	}
	if g := Singletons([]float64{1, math.NaN(), math.Inf(1), 0}); g.N() != 2 {
		t.Errorf("non-finite values kept: %+v", g)
	}
}

// exactZTestPower is the power of the two-sided pooled two-proportion z-test
// by enumerating every pair of outcomes (x1, x2) under Binomial(n, p1) ×
// Binomial(n, p2): an independent check of the normal approximation.
func exactZTestPower(n int, p1, p2, alpha float64) float64 {
	z := NormalQuantile(1 - alpha/2)
	pow := 0.0
	for x1 := 0; x1 <= n; x1++ {
		for x2 := 0; x2 <= n; x2++ {
			h1, h2 := float64(x1)/float64(n), float64(x2)/float64(n)
			pool := (h1 + h2) / 2
			se := math.Sqrt(2 * pool * (1 - pool) / float64(n))
			if se > 0 && math.Abs(h1-h2)/se > z {
				pow += binomPMF(n, x1, p1) * binomPMF(n, x2, p2)
			}
		}
	}
	return pow
}

func TestMDE(t *testing.T) {
	cases := []struct {
		n int
		p float64
	}{{50, 0.5}, {100, 0.7}, {200, 0.6}}
	for _, tc := range cases {
		d := MDE(tc.n, tc.p, 0.05, 0.8)
		// The textbook approximation with equal variances:
		// d ≈ (z₀.₉₇₅ + z₀.₈)·√(2p(1−p)/n).
		approx := (1.959964 + 0.841621) * math.Sqrt(2*tc.p*(1-tc.p)/float64(tc.n))
		if math.Abs(d-approx) > 0.02 {
			t.Errorf("n=%d p=%v: MDE %.4f, approximation %.4f", tc.n, tc.p, d, approx)
		}
		// At the MDE the exact power of the test (by enumeration) is about
		// 80% in the harder direction.
		p2 := tc.p - d
		if tc.p+d <= 1 && exactZTestPower(tc.n, tc.p, tc.p+d, 0.05) < exactZTestPower(tc.n, tc.p, p2, 0.05) {
			p2 = tc.p + d
		}
		if pw := exactZTestPower(tc.n, tc.p, p2, 0.05); math.Abs(pw-0.8) > 0.04 {
			t.Errorf("n=%d p=%v: exact power at MDE %.4f = %.3f, want ≈ 0.80", tc.n, tc.p, d, pw)
		}
	}
	if d := MDE(50, 0.5, 0.05, 0.8); d < 0.25 || d > 0.3 {
		t.Errorf("50 questions at 50%%: MDE %.3f, want about 28 points", d)
	}
	if !math.IsNaN(MDE(0, 0.5, 0.05, 0.8)) {
		t.Error("n=0 must give NaN")
	}
	if math.Abs(NormalQuantile(0.975)-1.959964) > 1e-6 || math.Abs(NormalCDF(1.959964)-0.975) > 1e-6 {
		t.Error("normal quantile/CDF disagree with tables")
	}
}

// BenchmarkBootstrap is one cell of a large table: 3,000 questions in 300
// episodes, 10,000 resamples.
func BenchmarkBootstrap(b *testing.B) {
	vals := make([]float64, 3000)
	ids := make([]string, 3000)
	for i := range vals {
		vals[i] = float64(i % 3 % 2)
		ids[i] = strconv.Itoa(i / 10)
	}
	for _, bc := range []struct {
		name string
		c    Clusters
	}{{"questions", Singletons(vals)}, {"episodes", Group(vals, ids)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Bootstrap(bc.c, DefaultOptions())
			}
		})
	}
}

// BenchmarkCompare is one paired comparison at the same size.
func BenchmarkCompare(b *testing.B) {
	x := make([]float64, 3000)
	y := make([]float64, 3000)
	for i := range x {
		x[i] = float64(i % 3 % 2)
		y[i] = float64(i % 5 % 2)
	}
	b.ReportAllocs()
	for b.Loop() {
		Compare(x, y, nil, DefaultOptions())
	}
}

func TestSummarize(t *testing.T) {
	// 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample variance 32/7.
	s := Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9, math.NaN()})
	if s.N != 8 || s.Mean != 5 || math.Abs(s.SD-math.Sqrt(32.0/7)) > 1e-12 || s.Min != 2 || s.Max != 9 {
		t.Errorf("summary %+v", s)
	}
	if s := Summarize([]float64{3}); s.SD != 0 || s.Mean != 3 {
		t.Errorf("one value: %+v", s)
	}
	if s := Summarize(nil); s.N != 0 || !math.IsNaN(s.Mean) {
		t.Errorf("empty: %+v", s)
	}
}

// TestBinomialCDF checks the recurrence tables against log-gamma
// probabilities, including sizes where p^n underflows.
func TestBinomialCDF(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{1, 0.5}, {7, 0.3}, {50, 0.7}, {3000, 0.9}, {3000, 0.01}, {5, 0}, {5, 1}} {
		cdf := binomialCDF(tc.n, tc.p)
		acc := 0.0
		for k := 0; k <= tc.n; k++ {
			acc += binomPMF(tc.n, k, tc.p)
			if tc.p > 0 && tc.p < 1 && math.Abs(cdf[k]-acc) > 1e-9 {
				t.Fatalf("Bin(%d, %v): cdf[%d] = %v, want %v", tc.n, tc.p, k, cdf[k], acc)
			}
		}
		if cdf[tc.n] != 1 {
			t.Errorf("Bin(%d, %v): cdf ends at %v", tc.n, tc.p, cdf[tc.n])
		}
	}
	if c := binomialCDF(5, 0); c[0] != 1 {
		t.Errorf("p=0: %v", c)
	}
	if c := binomialCDF(5, 1); c[4] != 0 || c[5] != 1 {
		t.Errorf("p=1: %v", c)
	}
}

// TestLevelsMatchDirectResampling: the multinomial shortcut and direct
// index resampling give the same interval up to Monte-Carlo error.
func TestLevelsMatchDirectResampling(t *testing.T) {
	var vals []float64
	for i := range 400 {
		vals = append(vals, float64(i%7%3)-1) // −1, 0, +1 in unequal shares
	}
	o := Options{Resamples: 20000, Level: 0.95, Seed: 1}
	fast := Bootstrap(Singletons(vals), o)
	// The reference: the general path's index draws, written out here.
	direct := make([]float64, 20000)
	c := Singletons(vals)
	k := uint64(len(c.Sums))
	r := o.rng()
	for b := range direct {
		s := 0.0
		for range len(c.Sums) {
			s += c.Sums[r.Uint64N(k)]
		}
		direct[b] = s / float64(len(c.Sums))
	}
	want := percentile(direct, 0.95)
	if math.Abs(fast.Lo-want.Lo) > 0.01 || math.Abs(fast.Hi-want.Hi) > 0.01 {
		t.Errorf("levels %v, direct %v", fast, want)
	}
}
