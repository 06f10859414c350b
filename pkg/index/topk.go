package index

import "math"

// topK keeps the k best hits seen so far: higher score first, ties by lower
// ID, so every index returns the same order for the same data. It is a
// binary heap with the worst kept hit at the root.
type topK struct {
	k int
	h []Hit
}

func newTopK(k int) *topK { return &topK{k: k, h: make([]Hit, 0, k)} }

// better reports whether a ranks before b.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// push offers a hit. NaN scores are treated as -Inf so they never displace
// a real score and never break the ordering.
func (t *topK) push(id int, score float64) {
	if math.IsNaN(score) {
		score = math.Inf(-1)
	}
	x := Hit{ID: id, Score: score}
	if len(t.h) < t.k {
		t.h = append(t.h, x)
		t.up(len(t.h) - 1)
		return
	}
	if t.k == 0 || !better(x, t.h[0]) {
		return
	}
	t.h[0] = x
	t.down(0)
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(t.h[p], t.h[i]) {
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.h)
	for {
		w := i
		if l := 2*i + 1; l < n && better(t.h[w], t.h[l]) {
			w = l
		}
		if r := 2*i + 2; r < n && better(t.h[w], t.h[r]) {
			w = r
		}
		if w == i {
			return
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

// sorted returns the kept hits best first; the heap is consumed.
func (t *topK) sorted() []Hit {
	out := make([]Hit, len(t.h))
	for i := len(t.h) - 1; i >= 0; i-- {
		out[i] = t.h[0]
		last := len(t.h) - 1
		t.h[0] = t.h[last]
		t.h = t.h[:last]
		t.down(0)
	}
	return out
}
