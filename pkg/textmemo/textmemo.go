// Package textmemo remembers the results of pure functions of a text for
// the last texts seen. The offline heuristics analyse the same text several
// times in one commit (ArborMem's extractors each look at the user text and
// at each sentence; the lexical reranker sees the same candidate documents
// commit after commit); a memo does that work once, without changing any
// result.
package textmemo

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// Memo is a direct-mapped memo of f: a new text evicts the one in its slot,
// so memory stays bounded by the slot count. Safe for concurrent use, and
// lock-free (a slot is swapped whole), since some memos are consulted once
// per word. The values it returns are shared between callers, who must not
// change them (copy before changing).
type Memo[T any] struct {
	f     func(string) T
	seed  maphash.Seed
	slots []atomic.Pointer[slot[T]]
}

type slot[T any] struct {
	key string
	val T
}

// New returns a memo of f with n slots (n > 0); f may be nil for a memo
// used only through GetWith.
func New[T any](n int, f func(string) T) *Memo[T] {
	m := &Memo[T]{f: f, seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[slot[T]], n)}
	registry.Lock()
	registry.memos = append(registry.memos, m)
	registry.Unlock()
	return m
}

// registry lists every memo, and every other cache registered with
// OnReset, for ResetAll.
var registry struct {
	sync.Mutex
	memos []interface{ reset() }
}

// resetFunc is a cache's own reset, registered with OnReset.
type resetFunc func()

func (f resetFunc) reset() { f() }

// OnReset registers f, which empties a cache kept outside a Memo (one
// with a layout of its own, such as the Qwen3 counter's packed table), to
// be called by every ResetAll from then on; like a Memo, it stays
// registered for the life of the program.
func OnReset(f func()) {
	registry.Lock()
	registry.memos = append(registry.memos, resetFunc(f))
	registry.Unlock()
}

// ResetAll forgets every memo's texts: benchmarks call it between runs over
// the same texts, so that they measure a first sight of each text, as in a
// real run, not the memo.
func ResetAll() {
	registry.Lock()
	defer registry.Unlock()
	for _, m := range registry.memos {
		m.reset()
	}
}

func (m *Memo[T]) reset() {
	for i := range m.slots {
		m.slots[i].Store(nil)
	}
}

// Get returns f(text), computing it only when text is not remembered.
func (m *Memo[T]) Get(text string) T {
	return m.GetWith(text, func() T { return m.f(text) })
}

// GetWith returns the value remembered for key, or compute's, which it
// remembers: for callers that hold what the value is computed from in a
// better form than the key (the key must still determine the value). A
// memo used only this way may be made with a nil f.
func (m *Memo[T]) GetWith(key string, compute func() T) T {
	sl := &m.slots[maphash.String(m.seed, key)%uint64(len(m.slots))]
	if e := sl.Load(); e != nil && e.key == key {
		return e.val
	}
	v := compute()
	// A copy of the key: a text cut from a larger one would otherwise keep
	// the whole of that alive for as long as it is remembered.
	sl.Store(&slot[T]{key: strings.Clone(key), val: v})
	return v
}

// GetShared is Get for keys that are whole strings their callers keep
// anyway (evidence texts), not cut from larger ones: the key is
// remembered as it is, without GetWith's copy, so a long text costs no
// second allocation of its length.
func (m *Memo[T]) GetShared(key string) T {
	sl := &m.slots[maphash.String(m.seed, key)%uint64(len(m.slots))]
	if e := sl.Load(); e != nil && e.key == key {
		return e.val
	}
	v := m.f(key)
	sl.Store(&slot[T]{key: key, val: v})
	return v
}

// InternBytes returns the key as the memo holds it and the value
// remembered for it; for a key not remembered it makes the memo's copy,
// computes compute(copy) and remembers both. Callers that would otherwise
// make a string of the key for every use share the memo's (which is only
// as long as the key), and compute can build the value from that copy,
// as the memo keeps it anyway.
func (m *Memo[T]) InternBytes(key []byte, compute func(owned string) T) (string, T) {
	sl, e := m.lookupBytes(key)
	if e != nil {
		return e.key, e.val
	}
	owned := string(key)
	v := compute(owned)
	sl.Store(&slot[T]{key: owned, val: v})
	return owned, v
}

// lookupBytes returns key's slot and its entry when that entry is key's
// (nil otherwise). The slot is GetWith's for the same key as a string
// (maphash.Bytes of a key is maphash.String of it).
func (m *Memo[T]) lookupBytes(key []byte) (*atomic.Pointer[slot[T]], *slot[T]) {
	sl := &m.slots[maphash.Bytes(m.seed, key)%uint64(len(m.slots))]
	if e := sl.Load(); e != nil && e.key == string(key) {
		return sl, e
	}
	return sl, nil
}
