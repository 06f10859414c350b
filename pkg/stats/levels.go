package stats

import (
	"math"
	"math/rand/v2"
	"sort"
)

// levels are clusters of one observation each whose values take at most
// three distinct levels: right/wrong scores (two) and their paired
// differences (−1, 0, +1). Resampling k such clusters with replacement
// draws the level counts from a multinomial, so instead of k index draws a
// resample needs one or two binomial draws, each by inversion of an exact
// cumulative table: the same distribution, thousands of times fewer draws.
type levels struct {
	k     int
	vals  []float64
	count []int
	// first is the table of Binomial(k, count[0]/k); rest caches the tables
	// of Binomial(n, count[1]/(count[1]+count[2])) by n.
	first []float64
	rest  map[int][]float64
}

// unitLevels reports whether c qualifies and gathers its levels.
func unitLevels(c Clusters) (*levels, bool) {
	lv := &levels{k: len(c.Sums)}
	for i, s := range c.Sums {
		if c.Counts[i] != 1 {
			return nil, false
		}
		j := 0
		for j < len(lv.vals) && lv.vals[j] != s {
			j++
		}
		if j == len(lv.vals) {
			if j == 3 {
				return nil, false
			}
			lv.vals = append(lv.vals, s)
			lv.count = append(lv.count, 0)
		}
		lv.count[j]++
	}
	return lv, lv.k > 0
}

// resample fills means (and ses, when not nil) as the general resample
// does, from level counts drawn from the multinomial.
func (lv *levels) resample(r *rand.Rand, means, ses []float64) {
	k := float64(lv.k)
	set := func(b int, n0, n1, n2 float64) {
		m := (n0*lv.vals[0] + n1*lv.level(1) + n2*lv.level(2)) / k
		means[b] = m
		if ses != nil {
			d0, d1, d2 := lv.vals[0]-m, lv.level(1)-m, lv.level(2)-m
			ss := n0*d0*d0 + n1*d1*d1 + n2*d2*d2
			ses[b] = math.Sqrt(k/(k-1)*ss) / k
		}
	}
	switch len(lv.vals) {
	case 1:
		for b := range means {
			set(b, k, 0, 0)
		}
		return
	case 2:
		lv.first = binomialCDF(lv.k, float64(lv.count[0])/k)
		for b := range means {
			n0 := float64(draw(r, lv.first))
			set(b, n0, k-n0, 0)
		}
		return
	}
	lv.first = binomialCDF(lv.k, float64(lv.count[0])/k)
	lv.rest = map[int][]float64{}
	p1 := float64(lv.count[1]) / float64(lv.count[1]+lv.count[2])
	for b := range means {
		n0 := draw(r, lv.first)
		m := lv.k - n0
		t, ok := lv.rest[m]
		if !ok {
			t = binomialCDF(m, p1)
			lv.rest[m] = t
		}
		n1 := draw(r, t)
		set(b, float64(n0), float64(n1), float64(m-n1))
	}
}

// level is the i-th level's value, 0 beyond the levels present (its count
// is then 0).
func (lv *levels) level(i int) float64 {
	if i < len(lv.vals) {
		return lv.vals[i]
	}
	return 0
}

// binomialCDF is the cumulative distribution of Binomial(n, p) at 0..n,
// from log-space probabilities (no underflow of p^n for large n).
func binomialCDF(n int, p float64) []float64 {
	cdf := make([]float64, n+1)
	switch {
	case p <= 0:
		for i := range cdf {
			cdf[i] = 1
		}
		return cdf
	case p >= 1:
		cdf[n] = 1
		return cdf
	}
	// The probability at the mode from log-gamma, the others by the ratio
	// P(i+1)/P(i) = (n−i)/(i+1) · p/(1−p) outward from it: three log-gamma
	// calls per table instead of one per entry.
	mode := min(int(float64(n+1)*p), n)
	lgn, _ := math.Lgamma(float64(n) + 1)
	lgm, _ := math.Lgamma(float64(mode) + 1)
	lgr, _ := math.Lgamma(float64(n-mode) + 1)
	pmf := make([]float64, n+1)
	pmf[mode] = math.Exp(lgn - lgm - lgr + float64(mode)*math.Log(p) + float64(n-mode)*math.Log1p(-p))
	odds := p / (1 - p)
	for i := mode; i < n; i++ {
		pmf[i+1] = pmf[i] * float64(n-i) / float64(i+1) * odds
	}
	for i := mode; i > 0; i-- {
		pmf[i-1] = pmf[i] * float64(i) / float64(n-i+1) / odds
	}
	var acc float64
	for i, v := range pmf {
		acc += v
		cdf[i] = acc
	}
	for i := range cdf {
		cdf[i] /= acc
	}
	cdf[n] = 1
	return cdf
}

// draw inverts a cumulative table: the smallest i with cdf[i] > u.
func draw(r *rand.Rand, cdf []float64) int {
	u := r.Float64()
	return sort.Search(len(cdf), func(i int) bool { return cdf[i] > u })
}
