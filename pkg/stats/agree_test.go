package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestIntervalAgreesWithTest: on a table of paired comparisons (few and
// many clusters, binary and graded scores, every interval type, several
// levels and resample counts), the interval of the difference excludes zero
// exactly when the p-value read off the same resamples is below 1 − Level,
// and below 0.05 at 95%. Among them is the case: a few clusters
// with a clearly positive but noisy difference.
func TestIntervalAgreesWithTest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type tc struct {
		name string
		a, b []float64
		ids  []string
		o    Options
	}
	var cases []tc
	for _, kind := range []string{Percentile, Basic, Studentized} {
		for _, clusters := range []int{2, 3, 5, 7, 13, 40} {
			for _, shift := range []float64{0, 0.1, 0.2, 0.4} {
				for _, level := range []float64{0.9, 0.95} {
					for _, b := range []int{400, 999, 10000} {
						var a, bb []float64
						var ids []string
						for c := range clusters {
							n := 1 + r.IntN(8)
							for range n {
								x := float64(r.IntN(2))
								y := x
								if r.Float64() < 0.3+shift {
									y = 1 - x
									if r.Float64() < 0.5+shift {
										x, y = 1, 0
									}
								}
								if kind == Basic {
									x, y = r.Float64(), r.Float64()*(1-shift)
								}
								a, bb, ids = append(a, x), append(bb, y), append(ids, fmt.Sprint("e", c))
							}
						}
						cases = append(cases, tc{fmt.Sprintf("%s/k%d/shift%.1f/L%.2f/B%d", kind, clusters, shift, level, b), a, bb, ids,
							Options{Resamples: b, Level: level, Seed: uint64(len(cases)), Interval: kind}})
					}
				}
			}
		}
	}
	distinct := 0
	for _, c := range cases {
		p := Compare(c.a, c.b, c.ids, c.o)
		excl := !p.CI.Contains(0)
		if excl != (p.P < 1-c.o.Level) && p.Clusters >= 2 {
			t.Errorf("%s: interval [%v, %v] excludes zero: %v, but p = %v", c.name, p.CI.Lo, p.CI.Hi, excl, p.P)
		}
		if c.o.Level == 0.95 && excl != (p.P < 0.05) {
			t.Errorf("%s: interval [%v, %v] excludes zero: %v, but p = %v (want p < 0.05 iff excluded)", c.name, p.CI.Lo, p.CI.Hi, excl, p.P)
		}
		// The studentized interval is made to agree with P at the end; that
		// may only mend rounding, or an interval cut to the range of the
		// cluster means, or the agreement above proves nothing.
		d := make([]float64, len(c.a))
		for i := range d {
			d[i] = c.a[i] - c.b[i]
		}
		if e := Resample(Group(d, c.ids), c.o.norm()); e.moved > 1e-9 && !e.clipped {
			t.Errorf("%s: the interval was moved by %v to agree with p = %v: interval and test disagree", c.name, e.moved, e.P)
		}
		if p.Distinct() != excl {
			t.Errorf("%s: Distinct %v, excluded %v", c.name, p.Distinct(), excl)
		}
		if excl {
			distinct++
		}
	}
	if distinct == 0 || distinct == len(cases) {
		t.Fatalf("%d of %d cases distinct: the table does not exercise both outcomes", distinct, len(cases))
	}
}

// TestStudentizedCoverageFewClusters: with 8 clusters of unequal size, the
// percentile interval of a mean covers the truth less often than its
// nominal 90%, and the studentized one does better (the reason it is the
// default). Simulated with a fixed seed: a behaviour check, not a timing.
func TestStudentizedCoverageFewClusters(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const trials, k = 400, 8
	cover := map[string]int{}
	truth := expectedMean()
	for trial := range trials {
		var vals []float64
		var ids []string
		for c := range k {
			// Cluster effects make the questions of an episode agree.
			pc := math.Min(1, math.Max(0, 0.3+0.4*r.NormFloat64()))
			for range 1 + r.IntN(12) {
				v := 0.0
				if r.Float64() < pc {
					v = 1
				}
				vals, ids = append(vals, v), append(ids, fmt.Sprint(c))
			}
		}
		for _, kind := range []string{Percentile, Studentized} {
			iv := Bootstrap(Group(vals, ids), Options{Resamples: 999, Level: 0.9, Seed: uint64(trial), Interval: kind})
			if iv.Contains(truth) {
				cover[kind]++
			}
		}
	}
	pc, st := float64(cover[Percentile])/trials, float64(cover[Studentized])/trials
	t.Logf("coverage at 90%%: percentile %.3f, studentized %.3f", pc, st)
	if pc >= 0.9 {
		t.Logf("percentile covered %.3f: not anti-conservative on this fixture", pc)
	}
	if st <= pc {
		t.Errorf("studentized coverage %.3f is not above percentile's %.3f with %d clusters", st, pc, k)
	}
}

// expectedMean is E[clip(0.3 + 0.4 Z, 0, 1)], the mean the coverage test's
// clusters are drawn around, by numerical integration.
func expectedMean() float64 {
	var s, w float64
	for i := -6000; i <= 6000; i++ {
		z := float64(i) / 1000
		d := math.Exp(-z * z / 2)
		s += d * math.Min(1, math.Max(0, 0.3+0.4*z))
		w += d
	}
	return s / w
}

// TestFewClustersNeverDistinct: with five clusters or fewer, even a pair
// that differs the same way in every cluster is not called distinguishable
// at 95% (no sign-flip test of five units reaches p < 0.05); with seven,
// it is.
func TestFewClustersNeverDistinct(t *testing.T) {
	for _, kind := range []string{Studentized, Percentile, Basic} {
		for k := 2; k <= 7; k++ {
			var a, b []float64
			var ids []string
			for c := range k {
				for q := range 3 {
					a, b, ids = append(a, 1), append(b, float64(q%2)), append(ids, fmt.Sprint(c))
				}
			}
			p := Compare(a, b, ids, Options{Resamples: 2000, Level: 0.95, Seed: 1, Interval: kind})
			if want := k > 5; p.Distinct() != want || (p.P < 0.05) != want {
				t.Errorf("%s, %d clusters: distinct %v, p %v, interval %+v; want distinct %v", kind, k, p.Distinct(), p.P, p.CI, want)
			}
		}
	}
}
