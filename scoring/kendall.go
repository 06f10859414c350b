package scoring

import "math"

// KendallTauB is Kendall's rank correlation τ_b, as scipy.stats.kendalltau
// (variant "b") computes it, which BEAM's event-ordering metric calls
// (mohammadtavakoli78/BEAM evaluation.py, event_ordering_score):
//
//	τ_b = (C − D) / sqrt((N − T_x) (N − T_y))
//
// over the N = n(n−1)/2 pairs, C concordant, D discordant, T_x pairs tied
// in x and T_y pairs tied in y (a pair tied in both counts in both). ok is
// false where τ_b is undefined — fewer than two items, or a ranking that is
// all ties — which scipy reports as NaN. x and y must have equal length.
func KendallTauB(x, y []float64) (tau float64, ok bool) {
	n := len(x)
	if n != len(y) || n < 2 {
		return 0, false
	}
	var con, dis, tx, ty int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx := sign(x[i] - x[j])
			dy := sign(y[i] - y[j])
			switch {
			case dx == 0 && dy == 0:
				tx++
				ty++
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx == dy:
				con++
			default:
				dis++
			}
		}
	}
	tot := n * (n - 1) / 2
	if tx == tot || ty == tot {
		return 0, false
	}
	tau = float64(con-dis) / math.Sqrt(float64(tot-tx)) / math.Sqrt(float64(tot-ty))
	// scipy clips rounding excursions to [-1, 1].
	return math.Max(-1, math.Min(1, tau)), true
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// NormalizedTau maps τ_b to [0, 1] as BEAM reports it, (τ+1)/2. Where τ_b is
// undefined the score is never NaN: identical rankings (one event named and
// matched) score 1, anything else (no answer lines, nothing matched) 0.
func NormalizedTau(x, y []float64) float64 {
	tau, ok := KendallTauB(x, y)
	if ok {
		return (tau + 1) / 2
	}
	if len(x) == len(y) && len(x) > 0 {
		for i := range x {
			if x[i] != y[i] {
				return 0
			}
		}
		return 1
	}
	return 0
}
