package arbormem

// The episode's term vocabulary, which nodes, facts and turns keep as
// numbers (for §4.2's keyword channel and §4.3's retrieval).

import (
	"slices"
	"sync"
)

// vocab numbers the distinct terms of an episode, so that what a node, a
// fact or a turn keeps for the life of the episode is a list of 4-byte
// term numbers, not of strings (a string header is 16 bytes, a map entry
// more), and each term's text is stored once. Safe for concurrent use
// (commits add terms while recalls look them up).
type vocab struct {
	mu    sync.RWMutex
	ids   map[string]uint32
	terms []string
}

func newVocab() *vocab { return &vocab{ids: map[string]uint32{}} }

// internAll replaces each term of ts, in place, by the vocabulary's copy,
// adding the new ones, and returns their numbers.
func (v *vocab) internAll(ts []string) []uint32 {
	ids := v.idsOf(make([]uint32, 0, len(ts)), ts)
	v.mu.RLock()
	defer v.mu.RUnlock()
	for i, id := range ids {
		ts[i] = v.terms[id]
	}
	return ids
}

// distinct returns the terms of ts, whose numbers are ids, each once, in
// order of first occurrence: a set over the numbers, cheaper than one of
// the strings. The set is a bitmap up to the largest number, unless that
// would be much longer than the list (a large vocabulary, a short text).
func (v *vocab) distinct(ts []string, ids []uint32) []string {
	var most uint32
	for _, id := range ids {
		most = max(most, id)
	}
	out := make([]string, 0, len(ts))
	if words := int(most/64) + 1; words > 4*len(ids) {
		seen := make(map[uint32]struct{}, len(ids))
		for i, id := range ids {
			if _, ok := seen[id]; !ok {
				seen[id] = struct{}{}
				out = append(out, ts[i])
			}
		}
		return out
	}
	seen := make([]uint64, most/64+1)
	for i, id := range ids {
		if w, b := id/64, uint64(1)<<(id%64); seen[w]&b == 0 {
			seen[w] |= b
			out = append(out, ts[i])
		}
	}
	return out
}

// idsOf appends to ids the numbers of the given terms, adding the new ones
// in order: under one read lock for the terms already known (most of a
// text's) and one write lock for the rest, not a lock per term.
func (v *vocab) idsOf(ids []uint32, terms []string) []uint32 {
	start := len(ids)
	var miss []int
	v.mu.RLock()
	for _, t := range terms {
		id, ok := v.ids[t]
		if !ok {
			miss = append(miss, len(ids))
		}
		ids = append(ids, id)
	}
	v.mu.RUnlock()
	if len(miss) == 0 {
		return ids
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, i := range miss {
		ids[i] = v.addLocked(terms[i-start])
	}
	return ids
}

// addLocked returns t's number, adding t if new; v.mu is held for writing.
func (v *vocab) addLocked(t string) uint32 {
	id, ok := v.ids[t]
	if !ok {
		id = uint32(len(v.terms))
		v.ids[t] = id
		v.terms = append(v.terms, t)
	}
	return id
}

// known returns the numbers of the terms already in the vocabulary, in
// order; a term it drops is in no termList, so has is false for it.
func (v *vocab) known(terms []string) []uint32 {
	out := make([]uint32, 0, len(terms))
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, t := range terms {
		if id, ok := v.ids[t]; ok {
			out = append(out, id)
		}
	}
	return out
}

// list returns the set of the given terms.
func (v *vocab) list(terms ...[]string) termList {
	n := 0
	for _, ts := range terms {
		n += len(ts)
	}
	ids := make([]uint32, 0, n)
	for _, ts := range terms {
		ids = v.idsOf(ids, ts)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) < cap(ids) {
		ids = slices.Clone(ids)
	}
	return termList{v: v, ids: ids}
}

// termList is a set of analyzed terms: their numbers in the episode's
// vocabulary, sorted.
type termList struct {
	v   *vocab
	ids []uint32
}

// termList is the set of the given terms in the episode's vocabulary.
func (s *System) termList(terms ...[]string) termList { return s.vocab.list(terms...) }

// interned replaces each term of ts, in place, by the episode's copy of it
// and returns ts.
func (s *System) interned(ts []string) []string {
	s.vocab.internAll(ts)
	return ts
}

func (s termList) has(t string) bool {
	if s.v == nil || len(s.ids) == 0 {
		return false
	}
	s.v.mu.RLock()
	id, ok := s.v.ids[t]
	s.v.mu.RUnlock()
	if !ok {
		return false
	}
	_, ok = slices.BinarySearch(s.ids, id)
	return ok
}

// hasID reports whether the set holds the term numbered id.
func (s termList) hasID(id uint32) bool {
	_, ok := slices.BinarySearch(s.ids, id)
	return ok
}

// len is the number of terms.
func (s termList) len() int { return len(s.ids) }

// terms returns the terms, in no particular order.
func (s termList) terms() []string {
	if len(s.ids) == 0 {
		return nil
	}
	out := make([]string, len(s.ids))
	s.v.mu.RLock()
	defer s.v.mu.RUnlock()
	for i, id := range s.ids {
		out[i] = s.v.terms[id]
	}
	return out
}

// sorted returns the terms in order.
func (s termList) sorted() []string {
	out := s.terms()
	slices.Sort(out)
	return out
}
