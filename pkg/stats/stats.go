// Package stats says how sure a table's numbers are: percentile bootstrap
// confidence intervals of a mean (Efron & Tibshirani 1993, ch. 13), with
// whole clusters resampled where questions share an episode (the cluster
// bootstrap: Field & Welsh 2007), paired comparisons of two systems on the
// same questions (a paired bootstrap interval of the difference and a
// sign-flip permutation test, exact when every sign pattern can be
// enumerated), and the smallest difference a run of n questions can detect.
//
// Everything is deterministic given Options.Seed: every call draws from its
// own generator seeded with it, so a table's numbers do not depend on the
// order its cells were computed in.
package stats

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Options are a resampling procedure's settings.
type Options struct {
	// Resamples is the number of bootstrap resamples and of Monte-Carlo
	// permutations (report.resamples, default 10,000).
	Resamples int
	// Level is the confidence level of intervals (report.level, 0.95).
	Level float64
	// Seed seeds every generator (run.seed).
	Seed uint64
	// Interval is the bootstrap interval type (report.interval): Percentile
	// (the default) or Basic.
	Interval string
}

// Interval types.
const (
	// Percentile takes the resampled statistic's quantiles as the interval.
	Percentile = "percentile"
	// Basic reflects them about the estimate, [2θ̂ − q_hi, 2θ̂ − q_lo]
	// (Davison & Hinkley 1997, §5.2), correcting a skewed bootstrap
	// distribution's shift.
	Basic = "basic"
)

// DefaultOptions are 10,000 resamples at 95% with seed 42.
func DefaultOptions() Options { return Options{Resamples: 10000, Level: 0.95, Seed: 42} }

// norm fills zero fields with the defaults.
func (o Options) norm() Options {
	d := DefaultOptions()
	if o.Resamples <= 0 {
		o.Resamples = d.Resamples
	}
	if o.Level <= 0 || o.Level >= 1 {
		o.Level = d.Level
	}
	return o
}

func (o Options) rng() *rand.Rand {
	return rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
}

// Interval is a confidence interval [Lo, Hi].
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Contains reports whether x lies in the closed interval.
func (iv Interval) Contains(x float64) bool { return iv.Lo <= x && x <= iv.Hi }

// HalfWidth is half the interval's width (the "± 4.1" of a symmetric reading).
func (iv Interval) HalfWidth() float64 { return (iv.Hi - iv.Lo) / 2 }

// Clusters holds observations grouped into resampling units: each unit's
// sum and count. A unit is a question (independent questions) or an episode
// whose questions share one conversation and are resampled together.
type Clusters struct {
	Sums   []float64
	Counts []float64
}

// Group gathers values into clusters by id, in first-seen order. Values and
// ids pair up by index; non-finite values are skipped.
func Group(values []float64, ids []string) Clusters {
	at := make(map[string]int, len(values))
	var c Clusters
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		id := ""
		if i < len(ids) {
			id = ids[i]
		}
		k, ok := at[id]
		if !ok {
			k = len(c.Sums)
			at[id] = k
			c.Sums = append(c.Sums, 0)
			c.Counts = append(c.Counts, 0)
		}
		c.Sums[k] += v
		c.Counts[k]++
	}
	return c
}

// Singletons puts every value in a cluster of its own (resampling questions).
func Singletons(values []float64) Clusters {
	c := Clusters{Sums: make([]float64, 0, len(values)), Counts: make([]float64, 0, len(values))}
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			c.Sums = append(c.Sums, v)
			c.Counts = append(c.Counts, 1)
		}
	}
	return c
}

// Len is the number of clusters.
func (c Clusters) Len() int { return len(c.Sums) }

// N is the number of observations.
func (c Clusters) N() int {
	n := 0.0
	for _, k := range c.Counts {
		n += k
	}
	return int(n)
}

// Mean is the mean over all observations (NaN when empty).
func (c Clusters) Mean() float64 {
	var s, n float64
	for i := range c.Sums {
		s += c.Sums[i]
		n += c.Counts[i]
	}
	if n == 0 {
		return math.NaN()
	}
	return s / n
}

// Bootstrap is the bootstrap interval of the mean: clusters are drawn with
// replacement, as many as there are, and the percentile interval's ends are
// the (1−Level)/2 and (1+Level)/2 quantiles (inverse empirical CDF) of the
// resampled means (reflected about the mean for Basic). One observation or none gives a zero-width interval at
// the mean (NaN when empty).
func Bootstrap(c Clusters, o Options) Interval {
	o = o.norm()
	k := c.Len()
	m := c.Mean()
	if k <= 1 {
		return Interval{m, m}
	}
	means := make([]float64, o.Resamples)
	resampleMeans(c, o.rng(), means)
	iv := percentile(means, o.Level)
	if o.Interval == Basic {
		iv = Interval{2*m - iv.Hi, 2*m - iv.Lo}
	}
	return iv
}

// resampleMeans fills out with the means of len(out) cluster resamples,
// allocating nothing per resample. Each 64-bit draw yields two cluster
// indices by Lemire's multiply-shift on its 32-bit halves (bias below k/2³²,
// immaterial next to Monte-Carlo error); when every cluster holds one
// observation the count is known and is not summed.
func resampleMeans(c Clusters, r *rand.Rand, out []float64) {
	if lv, ok := unitLevels(c); ok {
		lv.resampleMeans(r, out)
		return
	}
	k := len(c.Sums)
	uk := uint64(k)
	unit := true
	for _, n := range c.Counts {
		unit = unit && n == 1
	}
	sums, counts := c.Sums, c.Counts
	for b := range out {
		var s, n float64
		for i := 0; i < k; i += 2 {
			x := r.Uint64()
			j1 := ((x >> 32) * uk) >> 32
			s += sums[j1]
			if !unit {
				n += counts[j1]
			}
			if i+1 < k {
				j2 := ((x & 0xffffffff) * uk) >> 32
				s += sums[j2]
				if !unit {
					n += counts[j2]
				}
			}
		}
		if unit {
			n = float64(k)
		}
		out[b] = s / n
	}
}

// percentile sorts xs and returns its central level interval by type-1
// quantiles (the smallest value whose empirical CDF reaches q).
func percentile(xs []float64, level float64) Interval {
	slices.Sort(xs)
	a := (1 - level) / 2
	return Interval{quantile1(xs, a), quantile1(xs, 1-a)}
}

// quantile1 is the type-1 quantile of sorted xs: xs[⌈qB⌉−1]. A tiny
// tolerance keeps q·B that is an integer in exact arithmetic from rounding
// up to the next order statistic.
func quantile1(xs []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(xs))-1e-9)) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// Paired is the comparison of two systems on the same questions.
type Paired struct {
	// N is the number of questions both systems answered; Clusters the
	// resampling units they fall into.
	N, Clusters int
	// Diff is mean(a) − mean(b) over those questions.
	Diff float64
	// CI is the paired bootstrap interval of Diff.
	CI Interval
	// P is the two-sided p-value of the sign-flip permutation test of "no
	// difference", exact when every sign pattern was enumerated (Exact).
	P     float64
	Exact bool
}

// Distinct reports whether the interval of the difference excludes zero.
// A single resampling unit gives no interval to speak of (every resample is
// the unit itself), so it never tells two systems apart.
func (p Paired) Distinct() bool { return p.Clusters >= 2 && !p.CI.Contains(0) }

// Compare tests a against b, paired by index (a[i] and b[i] are the two
// systems' scores on question i, which belongs to cluster ids[i]; nil ids
// make every question its own cluster). The interval resamples clusters of
// differences; the permutation test flips the sign of each cluster's summed
// difference (the systems' labels are exchangeable per cluster under the
// null), enumerating all 2^K patterns when that is no more than
// o.Resamples, else drawing o.Resamples of them (p = (1+hits)/(1+draws)).
func Compare(a, b []float64, ids []string, o Options) Paired {
	o = o.norm()
	n := min(len(a), len(b))
	d := make([]float64, n)
	for i := range n {
		d[i] = a[i] - b[i]
	}
	var c Clusters
	if ids == nil {
		c = Singletons(d)
	} else {
		c = Group(d, ids)
	}
	out := Paired{N: c.N(), Clusters: c.Len(), Diff: c.Mean()}
	if out.N == 0 {
		out.P = math.NaN()
		out.CI = Interval{math.NaN(), math.NaN()}
		return out
	}
	out.CI = Bootstrap(c, o)
	out.P, out.Exact = SignFlip(c.Sums, o)
	return out
}

// SignFlip is the two-sided p-value of the sign-flip permutation test on
// per-unit summed differences: the share of sign patterns whose |Σ±s| is at
// least the observed |Σs|. It enumerates every pattern when 2^len(s) ≤
// o.Resamples (exact), else draws o.Resamples patterns.
func SignFlip(s []float64, o Options) (p float64, exact bool) {
	o = o.norm()
	var obs, scale float64
	for _, v := range s {
		obs += v
		scale += math.Abs(v)
	}
	obs = math.Abs(obs)
	tol := 1e-9 * max(scale, 1)
	k := len(s)
	if k == 0 {
		return 1, true
	}
	if k < 62 && uint64(1)<<k <= uint64(o.Resamples) {
		hits := 0
		total := 1 << k
		for mask := range total {
			var t float64
			for j, v := range s {
				if mask&(1<<j) != 0 {
					t -= v
				} else {
					t += v
				}
			}
			if math.Abs(t) >= obs-tol {
				hits++
			}
		}
		return float64(hits) / float64(total), true
	}
	r := o.rng()
	hits := 0
	if c, m, ok := equalMagnitudes(s); ok {
		// Every nonzero difference is ±c (right/wrong scores): a pattern's
		// sum is c·(m − 2·minus), minus being the set bits of m random bits.
		for range o.Resamples {
			minus := 0
			for left := m; left > 0; left -= 64 {
				x := r.Uint64()
				if left < 64 {
					x &= 1<<left - 1
				}
				minus += bits.OnesCount64(x)
			}
			if math.Abs(c*float64(m-2*minus)) >= obs-tol {
				hits++
			}
		}
		return float64(hits+1) / float64(o.Resamples+1), false
	}
	for range o.Resamples {
		var t float64
		var word uint64
		for j, v := range s {
			if j%64 == 0 {
				word = r.Uint64()
			}
			if word&1 != 0 {
				t -= v
			} else {
				t += v
			}
			word >>= 1
		}
		if math.Abs(t) >= obs-tol {
			hits++
		}
	}
	return float64(hits+1) / float64(o.Resamples+1), false
}

// equalMagnitudes reports whether every nonzero value of s has the same
// magnitude c, and how many (m) are nonzero. Zeros never change a sign
// pattern's sum, so they can be left out.
func equalMagnitudes(s []float64) (c float64, m int, ok bool) {
	for _, v := range s {
		if v == 0 {
			continue
		}
		a := math.Abs(v)
		if m == 0 {
			c = a
		} else if a != c {
			return 0, 0, false
		}
		m++
	}
	return c, m, true
}
