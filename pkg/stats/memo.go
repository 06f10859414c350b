package stats

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// The memo's bounds: a report asks for a few hundred cells at most (the
// quick start's asked for 136, 46 of them distinct, when this was written);
// a full memo is dropped whole (a cold memo costs time, never a different
// number). A key holds 16 bytes a cluster, so the memo is bounded in bytes
// too, and a cell of more clusters than memoKeyMax allows (a run of
// 65,536 questions clustered by question) is resampled every time rather
// than remembered.
var (
	resampleMemoMax  = 4096
	resampleMemoSize = 64 << 20 // bytes of keys
	memoKeyMax       = 1 << 20
)

// resampleMemo remembers Resample's estimates by their exact inputs (every
// cluster's sum and count, bit for bit, and the normalised options). A
// cell asked for again while it is being resampled waits for that result
// rather than resampling it too (the report builds its tables side by
// side).
var resampleMemo = estimateMemo{m: map[string]*memoEntry{}}

type estimateMemo struct {
	sync.Mutex
	m     map[string]*memoEntry
	bytes int // of the keys in m
}

// memoEntry is one cell's estimate; mu is held while it is computed, so
// that a second asker waits. done is set only once compute has returned:
// a compute that panics leaves the entry to be computed again, never an
// empty estimate that reads as a result.
type memoEntry struct {
	mu   sync.Mutex
	done bool
	est  Estimate
}

// Benchmarks of the report empty the memo with the text memos
// (textmemo.ResetAll), so that each run resamples as a process does.
func init() {
	textmemo.OnReset(func() {
		resampleMemo.Lock()
		clear(resampleMemo.m)
		resampleMemo.bytes = 0
		resampleMemo.Unlock()
	})
}

// get returns the estimate remembered for (c, o), or compute's.
func (mm *estimateMemo) get(c Clusters, o Options, compute func() Estimate) Estimate {
	if 8*(len(c.Sums)+len(c.Counts)) > memoKeyMax {
		return compute()
	}
	key := memoKey(c, o)
	mm.Lock()
	e, ok := mm.m[key]
	if !ok {
		if len(mm.m) >= resampleMemoMax || mm.bytes+len(key) > resampleMemoSize {
			clear(mm.m)
			mm.bytes = 0
		}
		e = &memoEntry{}
		mm.m[key] = e
		mm.bytes += len(key)
	}
	mm.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.done {
		e.est = compute()
		e.done = true
	}
	return e.est
}

// memoKey encodes every input of resampleEstimate: the options and each
// cluster's sum and count as their bits (so that -0 and 0, or two NaNs,
// never share a key with a different input).
func memoKey(c Clusters, o Options) string {
	b := make([]byte, 0, 32+len(o.Interval)+16*len(c.Sums))
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Resamples))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(o.Level))
	b = binary.LittleEndian.AppendUint64(b, o.Seed)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(o.Interval)))
	b = append(b, o.Interval...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(c.Sums)))
	for _, s := range c.Sums {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(c.Counts)))
	for _, n := range c.Counts {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(n))
	}
	return string(b)
}

// orderStat returns what xs[k] would be after slices.Sort(xs), reordering
// xs: an interval needs one or two order statistics of the resamples, which
// selection finds in linear time where sorting all ten thousand took most
// of the interval's time after the draws. Selection compares with <, which
// cannot tell -0 from 0 and misplaces NaN, so xs holding either is sorted
// as before.
func orderStat(xs []float64, k int) float64 {
	for _, x := range xs {
		if x == 0 && math.Signbit(x) || x != x {
			slices.Sort(xs)
			return xs[k]
		}
	}
	lo, hi := 0, len(xs) // the k-th smallest lies in xs[lo:hi]
	for hi-lo > 16 {
		// Median of three as the pivot; a three-way partition keeps the
		// many ties of discrete scores from degrading it.
		a, b, c := xs[lo], xs[lo+(hi-lo)/2], xs[hi-1]
		p := max(min(a, b), min(max(a, b), c))
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch x := xs[i]; {
			case x < p:
				xs[lt], xs[i] = xs[i], xs[lt]
				lt++
				i++
			case x > p:
				gt--
				xs[gt], xs[i] = xs[i], xs[gt]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return p
		}
	}
	slices.Sort(xs[lo:hi])
	return xs[k]
}
