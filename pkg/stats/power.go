package stats

import "math"

// NormalCDF is Φ, the standard normal distribution function.
func NormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// NormalQuantile is Φ⁻¹ (NaN outside (0, 1)).
func NormalQuantile(p float64) float64 {
	if p <= 0 || p >= 1 {
		return math.NaN()
	}
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// TwoProportionPower is the power of the two-sided two-proportion z-test at
// level alpha (pooled variance under the null, unpooled under the
// alternative; Fleiss, Levin & Paik 2003, §4.2) to tell accuracies p1 and p2
// apart with n independent questions per system.
func TwoProportionPower(n int, p1, p2, alpha float64) float64 {
	if n <= 0 {
		return math.NaN()
	}
	z := NormalQuantile(1 - alpha/2)
	pbar := (p1 + p2) / 2
	s0 := math.Sqrt(2 * pbar * (1 - pbar) / float64(n))
	s1 := math.Sqrt((p1*(1-p1) + p2*(1-p2)) / float64(n))
	if s1 == 0 {
		if p1 == p2 {
			return alpha
		}
		return 1
	}
	d := math.Abs(p2 - p1)
	return NormalCDF((d-z*s0)/s1) + NormalCDF((-d-z*s0)/s1)
}

// MDE is the minimum detectable difference: the smallest gap |p2 − p| in
// accuracy (as a share, 0..1) that the two-sided two-proportion z-test at
// level alpha detects with the given power when each system answers n
// questions and one of them scores p. Of the two directions (p2 above or
// below p) it returns the larger gap, so the figure holds either way; NaN
// when no gap within [0, 1] reaches the power.
func MDE(n int, p, alpha, power float64) float64 {
	if n <= 0 || p < 0 || p > 1 {
		return math.NaN()
	}
	solve := func(sign float64, room float64) float64 {
		if room <= 0 || TwoProportionPower(n, p, p+sign*room, alpha) < power {
			return math.NaN()
		}
		lo, hi := 0.0, room
		for range 100 {
			mid := (lo + hi) / 2
			if TwoProportionPower(n, p, p+sign*mid, alpha) >= power {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi
	}
	up, down := solve(1, 1-p), solve(-1, p)
	switch {
	case math.IsNaN(up):
		return down
	case math.IsNaN(down):
		return up
	}
	return math.Max(up, down)
}

// Summary describes one figure across repetitions (generated sets' seeds).
type Summary struct {
	N                  int
	Mean, SD, Min, Max float64
}

// Summarize is the mean, sample standard deviation (n − 1 in the
// denominator; 0 for fewer than two values), minimum and maximum of the
// finite values of xs (NaN figures when there are none).
func Summarize(xs []float64) Summary {
	s := Summary{Min: math.Inf(1), Max: math.Inf(-1)}
	var sum float64
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		s.N++
		sum += x
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	if s.N == 0 {
		nan := math.NaN()
		return Summary{Mean: nan, SD: nan, Min: nan, Max: nan}
	}
	s.Mean = sum / float64(s.N)
	if s.N > 1 {
		var ss float64
		for _, x := range xs {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				ss += (x - s.Mean) * (x - s.Mean)
			}
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	return s
}
