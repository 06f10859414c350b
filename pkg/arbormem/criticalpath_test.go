package arbormem

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// callChain records model calls and how deep each sits in the callChain of calls
// that had to finish before it started: a call's depth is one more than the
// deepest call (of the counted kinds) that ended before it began. With a
// latency per call, calls issued together start before any ends, so depth
// counts sequential round trips, not calls.
type callChain struct {
	latency time.Duration
	// indexLatency is the latency of embed and rerank calls (latency when 0).
	indexLatency time.Duration
	mu           sync.Mutex
	done         []chainCall
}

type chainCall struct {
	kind       string
	start, end time.Time
	depth      int // over every kind
	chatDepth  int // over chat calls only
}

func (c *callChain) call(ctx context.Context, kind string) error {
	start := time.Now()
	c.mu.Lock()
	depth, chatDepth := 0, 0
	for _, d := range c.done {
		if !d.end.After(start) {
			depth = max(depth, d.depth)
			if d.kind == "chat" {
				chatDepth = max(chatDepth, d.chatDepth)
			}
		}
	}
	c.mu.Unlock()
	wait := c.latency
	if kind != "chat" && c.indexLatency > 0 {
		wait = c.indexLatency
	}
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return ctx.Err()
	}
	cc := chainCall{kind: kind, start: start, end: time.Now(), depth: depth + 1}
	if kind == "chat" {
		cc.chatDepth = chatDepth + 1
	}
	c.mu.Lock()
	c.done = append(c.done, cc)
	c.mu.Unlock()
	return nil
}

// count returns how many calls of kind were recorded since the last reset.
func (c *callChain) count(kind string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, d := range c.done {
		if d.kind == kind {
			n++
		}
	}
	return n
}

// reset forgets recorded calls and returns the deepest chains so far.
func (c *callChain) reset() (depth, chatDepth int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.done {
		depth, chatDepth = max(depth, d.depth), max(chatDepth, d.chatDepth)
	}
	c.done = nil
	return depth, chatDepth
}

// chainChat answers every memory prompt with valid JSON after the callChain's
// latency, so that no repair retry adds a round.
type chainChat struct{ c *callChain }

func (m chainChat) Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	if err := m.c.call(ctx, "chat"); err != nil {
		return llm.ChatResponse{}, err
	}
	return llm.ChatResponse{Content: chainReplies[req.Purpose]}, nil
}

// chainReplies is a valid reply to each memory prompt, by purpose.
var chainReplies = map[string]string{
	"node_metadata":                `{"summary": "The user discussed the garden plan.", "entities": ["garden"]}`,
	"path_evolution":               "Topic: garden | Progress: planning",
	"atomic_fact_miner":            `[{"fact": "User plans a garden.", "attribute_tag": "3.1", "entities": ["garden"]}]`,
	"fact_collision_auditor_batch": `[]`,
	"assistant_artifact_miner":     `[]`,
	"event_miner":                  `[]`,
	"state_slot_miner":             `[{"key": "hobby", "value": "gardening", "attribute_tag": "2.6", "entities": []}]`,
	"attribute_tag_predictor":      `["3.1"]`,
}

type chainEmbed struct {
	c *callChain
	hashEmbedder
}

func (e chainEmbed) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := e.c.call(ctx, "embed"); err != nil {
		return nil, err
	}
	return e.hashEmbedder.Embed(ctx, texts)
}

type chainRerank struct{ c *callChain }

func (r chainRerank) Rerank(ctx context.Context, q string, docs []string) ([]float64, error) {
	if err := r.c.call(ctx, "rerank"); err != nil {
		return nil, err
	}
	return overlapReranker{}.Rerank(ctx, q, docs)
}

func chainSystem(t testing.TB, latency, indexLatency time.Duration) (*System, *callChain) {
	return chainSystemFor(t, latency, indexLatency, false)
}

// chainSystemFor is chainSystem, on BranchMemEval's path (attribute-tag
// filtering of facts) when bme.
func chainSystemFor(t testing.TB, latency, indexLatency time.Duration, bme bool) (*System, *callChain) {
	c := &callChain{latency: latency, indexLatency: indexLatency}
	cfg := config.DefaultArborMem()
	cfg.Extractors = "chat"
	s, err := New(cfg, Deps{Chat: chainChat{c}, Embed: chainEmbed{c, hashEmbedder{dim: 64}}, Rerank: chainRerank{c},
		Tokens: testDeps().Tokens, ModelReranker: true, Routing: RoutingPaper, BranchMemEval: bme})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func chainTurn(i int) dialog.Interaction {
	return inter(fmt.Sprintf("t%03d", i), fmt.Sprintf("Turn %d: what should go in the north bed of garden %d?", i, i%3),
		"Tomatoes and basil would do well there.")
}

// TestCommitCriticalPath: a commit makes at most two sequential chat round
// trips (round 1 of the extractors, then path evolution and the audit),
// and localization (embed → rerank) overlaps round 1, so the longest chain
// of calls is three deep (§4.4 runs every extractor after generation;
// only path evolution needs the parent).
func TestCommitCriticalPath(t *testing.T) {
	// Latencies far above scheduling jitter (which could only add depth).
	// Embed and rerank are faster than chat, as they are on real servers,
	// so that path evolution (waiting for localization) does not start at
	// the very moment the audit ends and count as following it.
	s, c := chainSystem(t, 60*time.Millisecond, 35*time.Millisecond)
	for i := range 4 {
		if err := s.Commit(context.Background(), chainTurn(i)); err != nil {
			t.Fatal(err)
		}
		depth, chatDepth := c.reset()
		if chatDepth > 2 {
			t.Errorf("commit %d: %d sequential chat round trips, want at most 2", i, chatDepth)
		}
		if i > 0 && depth > 3 {
			t.Errorf("commit %d: a callChain of %d sequential model calls, want at most 3 (localization overlaps round 1)", i, depth)
		}
	}
	if m := s.Metrics(); m.Fallbacks != 0 || m.BadReplies != 0 {
		t.Fatalf("every reply must parse: %+v", m)
	}
}

// BenchmarkCommitLatency reports the wall time of one commit in units of
// the per-call model latency L (ingest per turn ÷ L), with every model call
// taking L, the paper's model path and the reference configuration.
func BenchmarkCommitLatency(b *testing.B) {
	const latency = 20 * time.Millisecond
	s, c := chainSystem(b, latency, 0)
	for i := range 10 { // a forest to localize against
		if err := s.Commit(context.Background(), chainTurn(i)); err != nil {
			b.Fatal(err)
		}
	}
	next := 10 // turns committed so far (benchmarks run several times)
	for _, prefetch := range []bool{false, true} {
		b.Run(fmt.Sprintf("prefetch=%v", prefetch), func(b *testing.B) {
			var total time.Duration
			for range b.N {
				if prefetch {
					// As the runner does: the next turn's first round
					// starts while this one commits.
					s.Prefetch(context.Background(), chainTurn(next+1))
				}
				t0 := time.Now()
				err := s.Commit(context.Background(), chainTurn(next))
				next++
				if err != nil {
					b.Fatal(err)
				}
				total += time.Since(t0)
				c.reset()
			}
			b.ReportMetric(float64(total)/float64(b.N)/float64(latency), "L/commit")
		})
	}
}

// TestRecallCriticalPath: on BranchMemEval's path, query preparation's
// attribute-tag prediction (one chat call, which needs only the question)
// runs beside localization's embed → rerank, so the longest chain of model
// calls of a recall is two deep, not three.
func TestRecallCriticalPath(t *testing.T) {
	s, c := chainSystemFor(t, 60*time.Millisecond, 35*time.Millisecond, true)
	for i := range 4 {
		if err := s.Commit(context.Background(), chainTurn(i)); err != nil {
			t.Fatal(err)
		}
	}
	c.reset()
	b, err := s.Recall(context.Background(), memory.Query{ID: "q1", Text: "Which plants did we choose for the garden beds?", Budget: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 {
		t.Fatal("empty bundle")
	}
	if n := c.count("chat"); n != 1 {
		t.Fatalf("recall made %d chat calls, want 1 (the attribute-tag predictor)", n)
	}
	if n := c.count("rerank"); n != 1 {
		t.Fatalf("recall made %d rerank calls, want 1 (scored localization)", n)
	}
	if depth, _ := c.reset(); depth > 2 {
		t.Errorf("recall: a chain of %d sequential model calls, want at most 2 (tag prediction overlaps embed → rerank)", depth)
	}
}

// TestPrefetchKeepsResults: prefetching each next turn (as the runner
// does) commits the same forest and facts with the same model calls as
// committing without it, and a prefetch whose interaction differs from
// the one committed under its ID is ignored.
func TestPrefetchKeepsResults(t *testing.T) {
	type snapshot struct {
		nodes []string
		facts []string
		calls int64
	}
	run := func(prefetch bool) snapshot {
		s, _ := chainSystem(t, time.Millisecond, 0)
		for i := range 6 {
			if prefetch && i < 5 {
				next := chainTurn(i + 1)
				if i == 2 {
					next.Turns[0].Content = "a different interaction under the same ID"
				}
				s.Prefetch(context.Background(), next)
			}
			if err := s.Commit(context.Background(), chainTurn(i)); err != nil {
				t.Fatal(err)
			}
		}
		var sn snapshot
		for _, n := range s.forest.Nodes {
			sn.nodes = append(sn.nodes, fmt.Sprintf("%s parent=%d %q %q %d", n.ID(), n.Parent, n.Summary, n.PathSummary, n.rawTokens))
		}
		for _, f := range s.store.Facts {
			sn.facts = append(sn.facts, fmt.Sprintf("%s %s %d", f.Text, f.Tag, f.SupersededBy))
		}
		sn.calls = s.metrics.ModelCalls.Load()
		return sn
	}
	want, got := run(false), run(true)
	if fmt.Sprint(got.nodes) != fmt.Sprint(want.nodes) || fmt.Sprint(got.facts) != fmt.Sprint(want.facts) {
		t.Fatalf("prefetching changed the memory:\n got %v\n%v\nwant %v\n%v", got.nodes, got.facts, want.nodes, want.facts)
	}
	// The mismatching prefetch of turn 3 costs its own five calls; every
	// other prefetched round is used, not repeated.
	if extra := got.calls - want.calls; extra != 5 {
		t.Fatalf("prefetching made %d extra chat calls, want 5 (the ignored prefetch)", extra)
	}
}
