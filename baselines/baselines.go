// Package baselines holds the native baselines the paper compares ArborMem
// with (paper §6.1 "Baselines", appendix C.2): full-context, recent, BM25
// and session summaries. Each is a memory.System that passes memorytest and
// hands its evidence to the shared answer step (package answer).
//
// Every item a baseline returns carries its interaction's time as a leading
// "[YYYY-MM-DD HH:MM]" line, so that an answer model sees when things were
// said (the shared template then does not repeat the time).
package baselines

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// Benchmark names that change a baseline's behaviour (the names datasets
// register under).
const (
	BranchMemEval = "branchmemeval"
	BEAM          = "beam"
)

// Chunker maps an interaction to the benchmark-defined chunk it belongs to;
// consecutive interactions with the same non-empty key form one BM25 unit
// (BEAM's turn chunks, paper appendix C.2: "The BEAM adapter uses the
// benchmark turn-chunk representation"). "" keeps the interaction on its own.
type Chunker func(in dialog.Interaction) string

// ChunkBySession groups the consecutive interactions of one session.
func ChunkBySession(in dialog.Interaction) string { return in.Session }

// Deps is what a baseline is built from.
type Deps struct {
	// Cfg holds the baselines' hyperparameters; zero fields take the
	// paper's values (config.DefaultBaselines).
	Cfg config.Baselines
	// Tokens counts evidence in answer-model tokens; required.
	Tokens tokens.Counter
	// Chat writes session summaries; nil means heuristic summaries.
	Chat llm.Client
	// Prompts holds the session_summary template; nil means the embedded set.
	Prompts *prompt.Set
	// Benchmark is the benchmark being replayed ("branchmemeval", "beam", ...).
	Benchmark string
	// Chunker groups interactions into BM25 units; nil groups them by the
	// loader's dialog.Interaction.Chunk (BEAM's turn chunks), and indexes
	// each interaction on its own where that is empty.
	Chunker Chunker
}

type constructor func(d Deps) (memory.System, error)

var registry = map[string]constructor{
	"full":    func(d Deps) (memory.System, error) { return newChrono("full", 0, d), nil },
	"recent":  newRecent,
	"bm25":    newBM25,
	"summary": newSummary,
}

// Names lists the baselines New knows, sorted.
func Names() []string {
	n := make([]string, 0, len(registry))
	for k := range registry {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// New builds a fresh instance of baseline name for one episode.
func New(name string, deps Deps) (memory.System, error) {
	c, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown baseline %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	d, err := deps.resolve()
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	return c(d)
}

// Factory returns a memory.Factory that builds baseline name with deps.
func Factory(name string, deps Deps) memory.Factory {
	return func(_ context.Context, _ string) (memory.System, error) { return New(name, deps) }
}

// Heuristic reports whether baseline name, built with deps, runs an offline
// heuristic in place of a model (the summary baseline without a chat model),
// so that tables can say so.
func Heuristic(name string, deps Deps) bool {
	if name != "summary" {
		return false
	}
	d, err := deps.resolve()
	if err != nil {
		return true
	}
	return !useChat(d)
}

func useChat(d Deps) bool {
	switch d.Cfg.Summaries {
	case "heuristic":
		return false
	case "chat":
		return true
	}
	return d.Chat != nil
}

func (d Deps) resolve() (Deps, error) {
	if d.Tokens == nil {
		return d, errors.New("no token counter (Deps.Tokens)")
	}
	def := config.DefaultBaselines()
	fill := func(v *int, key string, dv int) error {
		if *v < 0 {
			return fmt.Errorf("baselines.%s: %d must not be negative", key, *v)
		}
		if *v == 0 {
			*v = dv
		}
		return nil
	}
	for _, f := range []struct {
		v   *int
		key string
		dv  int
	}{
		{&d.Cfg.RecentTurns, "recent_turns", def.RecentTurns},
		{&d.Cfg.BM25Units, "bm25_units", def.BM25Units},
		{&d.Cfg.BM25ChunksBEAM, "bm25_chunks_beam", def.BM25ChunksBEAM},
		{&d.Cfg.SummaryEvery, "summary_every", def.SummaryEvery},
	} {
		if err := fill(f.v, f.key, f.dv); err != nil {
			return d, err
		}
	}
	for b, n := range d.Cfg.RecentTurnsByBenchmark {
		if n <= 0 {
			return d, fmt.Errorf("baselines.recent_turns_by_benchmark.%s: %d must be positive", b, n)
		}
	}
	switch d.Cfg.Summaries {
	case "":
		d.Cfg.Summaries = "auto"
	case "auto", "heuristic", "chat":
	default:
		return d, fmt.Errorf("baselines.summaries: %q is not one of auto, chat, heuristic", d.Cfg.Summaries)
	}
	if d.Prompts == nil {
		d.Prompts = prompt.Default()
	}
	d.Benchmark = strings.ToLower(strings.TrimSpace(d.Benchmark))
	return d, nil
}

// stampedText is an interaction as baselines store it: a timestamp line and
// the "speaker: content" lines.
func stampedText(in dialog.Interaction) string {
	if in.Time.IsZero() {
		return in.Text()
	}
	return "[" + dialog.FormatTime(in.Time) + "] " + in.Text()
}

func checkInteraction(in dialog.Interaction) error {
	if in.ID == "" {
		return errors.New("commit: interaction has no id (bundle items cite interaction ids)")
	}
	if len(in.Turns) == 0 {
		return fmt.Errorf("commit %s: interaction has no turns", in.ID)
	}
	return nil
}

// chrono is the full-context and recent baselines: the raw chronological
// history, newest kept under the budget and shown oldest first (appendix
// C.2, "Full-context" and "Recent").
type chrono struct {
	name string
	// limit caps the interactions considered before packing (0: no cap).
	limit int
	c     tokens.Counter
	mu    sync.RWMutex
	items []memory.Item
}

func newChrono(name string, limit int, d Deps) *chrono {
	return &chrono{name: name, limit: limit, c: d.Tokens}
}

// newRecent caps the history at the most recent baselines.recent_turns
// interactions (per-benchmark override: recent_turns_by_benchmark) on every
// benchmark, then packs them under the budget. Appendix C.2: "Recent retains
// only the latest portion of the conversation, independent of the current
// question. For BranchMemEval, it considers up to the most recent 32 turns";
// the paper gives no other figure, so 32 is the default everywhere, which
// keeps recent distinct from full-context as in Table 1 (LoCoMo 16.58 vs
// 42.09). A turn is one user–assistant interaction, as in §6.4's "12,394
// turns (247.88 per case)".
func newRecent(d Deps) (memory.System, error) {
	return newChrono("recent", d.Cfg.RecentTurnsFor(d.Benchmark), d), nil
}

func (s *chrono) Commit(_ context.Context, in dialog.Interaction) error {
	if err := checkInteraction(in); err != nil {
		return err
	}
	it := memory.NewItem(s.c, memory.ChannelLocal, stampedText(in), in.Time, in.ID)
	s.mu.Lock()
	s.items = append(s.items, it)
	s.mu.Unlock()
	return nil
}

func (s *chrono) Recall(_ context.Context, q memory.Query) (memory.Bundle, error) {
	if q.Variant != "" {
		return memory.Bundle{}, fmt.Errorf("%s: unknown variant %q", s.name, q.Variant)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	items := s.items
	if s.limit > 0 && len(items) > s.limit {
		items = items[len(items)-s.limit:]
	}
	return memory.Bundle{Items: memory.PackNewest(items, q.Budget)}, nil
}

// Heuristic reports false: full-context and recent use no model.
func (s *chrono) Heuristic() bool { return false }
