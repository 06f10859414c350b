// Package vecfixture makes the dense-vector fixtures that the vector-search
// tests of several packages share (pkg/index, and runners' perf recall,
// which cannot import pkg/index's test files).
package vecfixture

import "math/rand/v2"

// Clustered is n dense dim-d vectors around centres random centres, each
// slot the centre's plus spread·N(0,1), as sentence embeddings of one
// conversation sit. The draws' order is part of the contract: fixtures
// built from a seed stay the same.
func Clustered(rng *rand.Rand, n, dim, centres int, spread float64) [][]float32 {
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
