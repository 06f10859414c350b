package arbormem

import (
	"slices"
	"strings"
	"testing"
)

// intern is the vocabulary term by term, as it was before the batch forms:
// t's number and the vocabulary's copy of t, adding t if new.
func (v *vocab) intern(t string) (uint32, string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	id := v.addLocked(t)
	return id, v.terms[id]
}

// TestVocabBatch: the batch forms (internAll, idsOf, known, hasID) give
// what their term-by-term reference (intern, has) gives: the same copies,
// the same numbers in the same order, the same membership.
func TestVocabBatch(t *testing.T) {
	batches := [][]string{
		strings.Fields("garden plan tomato garden basil"),
		strings.Fields("basil fenc garden kitchen"),
		nil,
		strings.Fields("kitchen kitchen new term new"),
	}
	ref, got := newVocab(), newVocab()
	for _, b := range batches {
		want := slices.Clone(b)
		var wantIDs []uint32
		for i, term := range want {
			var id uint32
			id, want[i] = ref.intern(term)
			wantIDs = append(wantIDs, id)
		}
		ids := got.idsOf(nil, b)
		ts := slices.Clone(b)
		got.internAll(ts)
		if !slices.Equal(ts, want) || !slices.Equal(ids, wantIDs) {
			t.Fatalf("batch %q: internAll %q ids %v, term by term %q ids %v", b, ts, ids, want, wantIDs)
		}
		for i, term := range ts {
			if id, _ := got.intern(term); id != wantIDs[i] {
				t.Fatalf("%q numbered %d after the batch, %d by it", term, id, wantIDs[i])
			}
		}
	}
	set := got.list(strings.Fields("garden basil new"))
	probe := strings.Fields("garden kitchen unknown basil new zebra")
	known := got.known(probe)
	n := 0
	for _, term := range probe {
		if _, ok := got.ids[term]; ok {
			if id := known[n]; got.terms[id] != term || set.hasID(id) != set.has(term) {
				t.Fatalf("%q: known id %d (%q), hasID %v, has %v", term, id, got.terms[id], set.hasID(id), set.has(term))
			}
			n++
		}
	}
	if n != len(known) {
		t.Fatalf("known(%q) = %v: %d numbers for %d known terms", probe, known, len(known), n)
	}
}
