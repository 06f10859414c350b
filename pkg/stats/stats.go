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
	// (the zero value), Basic or Studentized (configs/default.yaml's).
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
	// Studentized is the bootstrap-t interval: each resample's mean is
	// standardised by its own cluster-robust standard error (see Resample).
	Studentized = "studentized"
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

// Bootstrap is the bootstrap interval of the mean (Resample's interval).
func Bootstrap(c Clusters, o Options) Interval { return Resample(c, o).CI }

// Estimate is a mean with its interval and the p-value of "the mean is
// zero", both read off the same resamples.
type Estimate struct {
	Mean     float64
	CI       Interval
	P        float64
	Clusters int
	// moved is how far the studentized interval's ends were moved to agree
	// with P, and clipped whether the interval m ± q·se was cut to the range
	// of the cluster means: a move beyond rounding happens only after a cut
	// (with two or three clusters), which the tests hold it to.
	moved   float64
	clipped bool
}

// Resample draws o.Resamples cluster resamples (as many clusters as there
// are, with replacement) and reads the interval and the test of "the mean is
// zero" off the same draws, so that they cannot disagree: with two clusters
// or more the interval excludes zero exactly when P < 1 − Level.
//
// Percentile and Basic take the resampled means m*_b (reflected about the
// mean, 2m − m*_b, for Basic) as points u_b, kept within the range of the
// cluster means, which no resampled mean can leave; with j the smallest count
// for which 2j/B ≥ α (α = 1 − Level) the interval is [u_(j), u_(B−j+1)] and
// P = min(1, 2·min(#{u ≤ 0}, #{u ≥ 0})/B), the p-value that inverts it.
//
// Studentized is the symmetric bootstrap-t (Hall 1988; Davison & Hinkley
// 1997, §5.2.1): each resample's t*_b = (m*_b − m)/se*_b, se being the
// cluster-robust standard error of the ratio mean Σs/Σn; with q the
// smallest |t*| such that fewer than αB resamples lie beyond it, the
// interval is m ± q·se and P = #{|t*_b| ≥ |m|/se}/B. Standardising each
// resample is what the percentile interval lacks with few clusters (it is
// too narrow by about the t-quantile's excess over the normal); a
// resample whose standard error is zero (all its clusters alike) has an
// infinite |t*|, which makes the interval wider, never narrower. The
// interval is clipped to the cluster means' range unless that would change
// whether it holds zero.
//
// One cluster gives a zero-width interval at the mean and P = 1;
// no observation gives NaN.
//
// Resample is a pure function of c and o, and tables ask for the same
// cell more than once (a system's overall accuracy is in the main, the
// category and the BranchMemEval tables), so results are remembered
// (resampleMemo).
func Resample(c Clusters, o Options) Estimate {
	o = o.norm()
	return resampleMemo.get(c, o, func() Estimate { return resampleEstimate(c, o) })
}

// floorP keeps a comparison's p-value at or above 2^(1−K): no test of K
// exchangeable clusters can be surer than when every cluster lies on one
// side (the sign-flip bound), so with five clusters or fewer a 95% interval
// of a difference always holds zero. Where the floor reaches α the interval
// is widened to hold zero, keeping the two one condition.
func floorP(est Estimate, o Options) Estimate {
	if k := est.Clusters; k >= 2 && k < 64 {
		floor := math.Ldexp(1, 1-k)
		if est.P < floor {
			est.P = floor
			if est.P >= o.alpha() {
				est.CI.Lo, est.CI.Hi = min(est.CI.Lo, 0), max(est.CI.Hi, 0)
			}
		}
	}
	return est
}

// resampleEstimate is Resample without the floor on P.
func resampleEstimate(c Clusters, o Options) Estimate {
	k := c.Len()
	m := c.Mean()
	est := Estimate{Mean: m, Clusters: k, CI: Interval{m, m}, P: 1}
	if k == 0 {
		est.P = math.NaN()
		return est
	}
	if k == 1 {
		return est
	}
	B := o.Resamples
	alpha := o.alpha()
	lo, hi := c.hull()
	u := make([]float64, B)
	if o.Interval != Studentized {
		resample(c, o.rng(), u, nil)
		for b, mb := range u {
			if o.Interval == Basic {
				mb = 2*m - mb
			}
			u[b] = min(max(mb, lo), hi)
		}
		le, ge := 0, 0
		for _, x := range u {
			if x <= 0 {
				le++
			}
			if x >= 0 {
				ge++
			}
		}
		j := tail(B, alpha, 2)
		est.CI = Interval{orderStat(u, j-1), orderStat(u, B-j)}
		est.P = min(1, 2*float64(min(le, ge))/float64(B))
		return est
	}
	se := clusterSE(c, m)
	if se == 0 {
		// Every cluster sits at the mean: so does every resample.
		if m != 0 {
			est.P = 0
		}
		return est
	}
	ses := make([]float64, B)
	resample(c, o.rng(), u, ses)
	t0 := math.Abs(m) / se
	beyond := 0
	for b, mb := range u {
		t := 0.0
		switch {
		case ses[b] > 0:
			t = math.Abs(mb-m) / ses[b]
		case mb != m:
			t = math.Inf(1)
		}
		u[b] = t
		if t >= t0 {
			beyond++
		}
	}
	j := tail(B, alpha, 1)
	q := orderStat(u, B-j)
	est.P = float64(beyond) / float64(B)
	est.CI = Interval{max(m-q*se, lo), min(m+q*se, hi)}
	est.clipped = m-q*se < lo || m+q*se > hi
	// The interval and the test are one condition on the same |t*|s;
	// rounding in m ± q·se and the clipping must not part them.
	excluded := est.P < alpha
	before := est.CI
	if !excluded {
		est.CI.Lo, est.CI.Hi = min(est.CI.Lo, 0), max(est.CI.Hi, 0)
	} else if est.CI.Contains(0) {
		if m > 0 {
			est.CI.Lo = math.Nextafter(0, 1)
		} else {
			est.CI.Hi = math.Nextafter(0, -1)
		}
	}
	est.moved = max(math.Abs(est.CI.Lo-before.Lo), math.Abs(est.CI.Hi-before.Hi))
	return est
}

// alpha is 1 − Level rounded to 12 decimals, so that 0.95 gives the 0.05
// a reader compares p-values with, not 0.050000000000000044.
func (o Options) alpha() float64 { return math.Round((1-o.Level)*1e12) / 1e12 }

// tail is the smallest j ≥ 1 with sides·j/B ≥ alpha, computed as P is, so
// that "fewer than j resamples beyond" and "P < alpha" are one condition
// (sides is 2 for an equal-tailed interval, 1 for a symmetric one).
func tail(b int, alpha float64, sides int) int {
	f := float64(sides)
	j := max(1, int(alpha*float64(b)/f)-2)
	for j > 1 && f*float64(j-1)/float64(b) >= alpha {
		j--
	}
	for f*float64(j)/float64(b) < alpha {
		j++
	}
	return min(j, b)
}

// clusterSE is the cluster-robust standard error of the ratio mean m =
// Σs/Σn: sqrt(K/(K−1) · Σ(s_i − m·n_i)²) / Σn (the linearisation of the
// ratio estimator with the usual small-sample factor).
func clusterSE(c Clusters, m float64) float64 {
	k := float64(c.Len())
	var ss, n float64
	for i, s := range c.Sums {
		r := s - m*c.Counts[i]
		ss += r * r
		n += c.Counts[i]
	}
	if k < 2 || n == 0 {
		return 0
	}
	return math.Sqrt(k/(k-1)*ss) / n
}

// hull is the range of the cluster means: every resampled mean lies in it.
func (c Clusters) hull() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, s := range c.Sums {
		if c.Counts[i] > 0 {
			lo, hi = min(lo, s/c.Counts[i]), max(hi, s/c.Counts[i])
		}
	}
	return lo, hi
}

// resample fills means with the means of len(means) cluster resamples and,
// when ses is not nil, ses with each resample's cluster-robust standard
// error, allocating nothing per resample. Each 64-bit draw yields two
// cluster indices by Lemire's multiply-shift on its 32-bit halves (bias
// below k/2³², immaterial next to Monte-Carlo error); when every cluster
// holds one observation the count is known and is not summed.
func resample(c Clusters, r *rand.Rand, means, ses []float64) {
	if lv, ok := unitLevels(c); ok {
		lv.resample(r, means, ses)
		return
	}
	k := len(c.Sums)
	uk := uint64(k)
	unit := true
	for _, n := range c.Counts {
		unit = unit && n == 1
	}
	sums, counts := c.Sums, c.Counts
	fk := float64(k)
	for b := range means {
		// s, n: Σs and Σn; q, x, nn: Σs², Σs·n, Σn² for the standard error.
		var s, n, q, x, nn float64
		add := func(j uint64) {
			sj := sums[j]
			s += sj
			if ses != nil {
				q += sj * sj
			}
			if !unit {
				nj := counts[j]
				n += nj
				if ses != nil {
					x += sj * nj
					nn += nj * nj
				}
			}
		}
		for i := 0; i < k; i += 2 {
			v := r.Uint64()
			add(((v >> 32) * uk) >> 32)
			if i+1 < k {
				add(((v & 0xffffffff) * uk) >> 32)
			}
		}
		if unit {
			n, x, nn = fk, s, fk
		}
		m := s / n
		means[b] = m
		if ses != nil {
			ss := max(q-2*m*x+m*m*nn, 0)
			ses[b] = math.Sqrt(fk/(fk-1)*ss) / n
		}
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
	// P is the two-sided bootstrap p-value of "no difference", read off the
	// resamples that made CI (Resample): CI excludes zero exactly when
	// P < 1 − Level.
	P float64
	// Exact is kept for readers of older tables; the bootstrap p-value is
	// never exact.
	Exact bool
}

// Distinct reports whether the interval of the difference excludes zero.
// A single resampling unit gives no interval to speak of (every resample is
// the unit itself), so it never tells two systems apart.
func (p Paired) Distinct() bool { return p.Clusters >= 2 && !p.CI.Contains(0) }

// Compare tests a against b, paired by index (a[i] and b[i] are the two
// systems' scores on question i, which belongs to cluster ids[i]; nil ids
// make every question its own cluster). Clusters of differences are
// resampled once, and the interval and the p-value both come from those
// resamples (Resample), so the two cannot disagree; P is never below
// 2^(1−K) (floorP). Clusters are taken in
// the order of ids' first appearance: callers that want results independent
// of their input's order sort it first.
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
	e := floorP(Resample(c, o), o)
	out.CI, out.P = e.CI, e.P
	return out
}

// SignFlip is the two-sided p-value of the sign-flip permutation test on
// per-unit summed differences (kept as an independent check of Compare; the
// tables use the bootstrap p-value, which cannot disagree with their
// intervals): the share of sign patterns whose |Σ±s| is at
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
