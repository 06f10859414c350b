package baselines

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

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
	units []unit
	// idx holds one document per unit under the unit's position. A chunk
	// that takes in another interaction is re-added under the same id, which
	// index.BM25 treats as a replacement (and updates its statistics).
	idx *index.BM25
}

// unit is one retrievable piece: an interaction, or a chunk of consecutive
// interactions sharing a chunk key.
type unit struct {
	key   string
	texts []string
	item  memory.Item
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
	if n := len(s.units); key != "" && n > 0 && s.units[n-1].key == key {
		u := &s.units[n-1]
		u.texts = append(u.texts, text)
		u.item.Text = strings.Join(u.texts, "\n\n")
		u.item.Tokens = s.c.Count(u.item.Text)
		u.item.Sources = append(u.item.Sources, in.ID)
		u.item.Time = in.Time
		s.idx.Add(n-1, u.item.Text)
		return nil
	}
	s.units = append(s.units, unit{key: key, texts: []string{text}, item: memory.NewItem(s.c, memory.ChannelTurn, text, in.Time, in.ID)})
	s.idx.Add(len(s.units)-1, text)
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
		it := s.units[h.ID].item
		it.Sources = append([]string(nil), it.Sources...)
		ranked = append(ranked, it)
		order[it.Sources[0]] = h.ID
	}
	kept := memory.PackInOrder(ranked, q.Budget)
	sort.Slice(kept, func(a, b int) bool { return order[kept[a].Sources[0]] < order[kept[b].Sources[0]] })
	return memory.Bundle{Items: kept}, nil
}

// Heuristic reports false: BM25 is the method itself, not a stand-in.
func (s *bm25) Heuristic() bool { return false }
