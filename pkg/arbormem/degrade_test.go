package arbormem

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// flakyEmbedder fails while down is set, like an embedding endpoint that
// stayed unreachable through every retry.
type flakyEmbedder struct {
	hashEmbedder
	down *atomic.Bool
}

func (f flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.down.Load() {
		return nil, errors.New("embed endpoint unreachable")
	}
	return f.hashEmbedder.Embed(ctx, texts)
}

// A failing embedding endpoint must not cost an interaction: the commit
// stores it (findable lexically, shown in branch context) and reports the
// failure.
func TestCommitSurvivesEmbeddingFailure(t *testing.T) {
	var down atomic.Bool
	s := newTestSystem(t, func(_ *config.ArborMem, d *Deps) {
		d.Embed = flakyEmbedder{hashEmbedder: hashEmbedder{dim: 256}, down: &down}
	})
	mustCommit(t, s, inter("a1", "I'm planning a trip to Lisbon in May.", "Lovely, May is a good time for Lisbon."))
	down.Store(true)
	err := s.Commit(context.Background(), inter("a2", "For the Lisbon trip, the hotel is Casa Azul.", "Noted: Casa Azul for the Lisbon trip."))
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "a2") {
		t.Fatalf("commit with a dead embedder: want an error naming the interaction and the cause, got %v", err)
	}
	if _, ok := s.ParentOf("a2"); !ok {
		t.Fatal("interaction a2 was dropped")
	}
	if s.Metrics().ModelErrors == 0 {
		t.Error("model errors not counted")
	}
	down.Store(false)
	mustCommit(t, s, inter("a3", "Also for Lisbon: dinner at Taberna Sal.", "Taberna Sal, got it."))
	b := mustRecall(t, s, memory.Query{Text: "Which hotel did we pick for Lisbon?", Budget: 4096})
	if !b.Sources()["a2"] {
		t.Errorf("a2 not recallable after a degraded commit; bundle sources %v", b.Sources())
	}
}
