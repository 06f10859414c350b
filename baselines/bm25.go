package baselines

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// bm25 indexes raw interactions, or benchmark-defined chunks of them, and
// returns the best-scoring units for the question (appendix C.2, "BM25":
// "Up to 50 retrieved units are considered before final packing. The BEAM
// adapter ... retrieves up to 32 chunks"). The retrieved units are packed in
// rank order, skipping any that no longer fit, and then shown in
// chronological order so that the answer model reads a timeline.
type bm25 struct {
	c       tokens.Counter
	chunker Chunker
	k       int

	mu    sync.RWMutex
	units []*unit
	// idx holds one document per unit under the unit's position. A chunk
	// that takes in another interaction grows its document by the new
	// interaction's terms only (index.BM25.AppendTerms), so committing a
	// long session costs time linear in its length.
	idx *index.BM25
}

// unit is one retrievable piece: an interaction, or a chunk of consecutive
// interactions sharing a chunk key. A chunk's joined text and token count
// are made when it is first retrieved after growing, not at every commit.
type unit struct {
	key     string
	texts   []string
	sources []string
	time    time.Time

	mu    sync.Mutex
	item  memory.Item // valid for the first built texts
	built int
}

// materialize returns the unit as an evidence item, joining and counting
// its text if it grew since it was last built.
func (u *unit) materialize(c tokens.Counter) memory.Item {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.built != len(u.texts) {
		u.item = memory.NewItem(c, memory.ChannelTurn, strings.Join(u.texts, "\n\n"), u.time, u.sources...)
		u.built = len(u.texts)
	}
	it := u.item
	it.Sources = append([]string(nil), it.Sources...)
	return it
}

func newBM25(d Deps) (memory.System, error) {
	k := d.Cfg.BM25Units
	if d.Benchmark == BEAM {
		k = d.Cfg.BM25ChunksBEAM
	}
	return &bm25{c: d.Tokens, chunker: d.Chunker, k: k, idx: index.NewBM25()}, nil
}

func (s *bm25) Commit(_ context.Context, in dialog.Interaction) error {
	if err := checkInteraction(in); err != nil {
		return err
	}
	key := in.Chunk
	if s.chunker != nil {
		key = s.chunker(in)
	}
	text := stampedText(in)
	s.mu.Lock()
	defer s.mu.Unlock()
	terms := index.Analyze(text)
	if n := len(s.units); key != "" && n > 0 && s.units[n-1].key == key {
		u := s.units[n-1]
		u.mu.Lock()
		u.texts = append(u.texts, text)
		u.sources = append(u.sources, in.ID)
		u.time = in.Time
		u.mu.Unlock()
		s.idx.AppendTerms(n-1, terms)
		return nil
	}
	s.units = append(s.units, &unit{key: key, texts: []string{text}, sources: []string{in.ID}, time: in.Time})
	s.idx.AddTerms(len(s.units)-1, terms)
	return nil
}

func (s *bm25) Recall(_ context.Context, q memory.Query) (memory.Bundle, error) {
	if q.Variant != "" {
		return memory.Bundle{}, fmt.Errorf("bm25: unknown variant %q", q.Variant)
	}
	if q.Budget <= 0 {
		return memory.Bundle{}, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	hits := s.idx.Search(q.Text, s.k)
	ranked := make([]memory.Item, 0, len(hits))
	// A unit's first source is unique to it: it orders the kept units.
	order := make(map[string]int, len(hits))
	for _, h := range hits {
		if h.ID < 0 || h.ID >= len(s.units) {
			return memory.Bundle{}, fmt.Errorf("bm25: index returned unknown unit %d (have %d)", h.ID, len(s.units))
		}
		it := s.units[h.ID].materialize(s.c)
		ranked = append(ranked, it)
		order[it.Sources[0]] = h.ID
	}
	kept := memory.PackInOrder(ranked, q.Budget)
	sort.Slice(kept, func(a, b int) bool { return order[kept[a].Sources[0]] < order[kept[b].Sources[0]] })
	return memory.Bundle{Items: kept}, nil
}

// Heuristic reports false: BM25 is the method itself, not a stand-in.
func (s *bm25) Heuristic() bool { return false }
