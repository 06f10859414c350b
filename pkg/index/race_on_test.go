//go:build race

package index

// raceEnabled: the race detector slows analysis tenfold and changes what
// the heap holds, so heap bounds are measured without it.
const raceEnabled = true
