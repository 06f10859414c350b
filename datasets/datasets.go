// Package datasets turns benchmark files into episodes: isolated replays of
// interactions and the questions asked along the way. Each benchmark lives in
// its own subpackage and registers a Loader here.
package datasets

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
)

// Episode is one isolated memory instance's worth of input: a LongMemEval
// question with its haystack, a LoCoMo or BEAM conversation with its questions
// at the end, or a BranchMemEval session with questions inside the dialogue.
type Episode struct {
	ID        string `json:"id"`
	Benchmark string `json:"benchmark"`
	// Steps are in time order: commit each interaction; answer each question
	// from what was committed before it.
	Steps []Step `json:"steps"`
	// Latent holds construction-time labels (BranchMemEval branches) that no
	// memory system ever sees; runners use it only for analysis.
	Latent *Latent `json:"-"`
}

// Step is either an interaction to commit or a question to answer.
type Step struct {
	Interaction *dialog.Interaction `json:"interaction,omitempty"`
	Question    *Question           `json:"question,omitempty"`
}

// Question is one question with everything scoring needs.
type Question struct {
	ID   string    `json:"id"`
	Text string    `json:"text"`
	Time time.Time `json:"time"`
	// Gold is the reference answer as text (numbers are formatted).
	Gold string `json:"gold"`
	// Confounder is the plausible wrong answer (BranchMemEval).
	Confounder string `json:"confounder,omitempty"`
	// Category is the benchmark's type, category or dimension
	// ("temporal-reasoning", "2", "B3", "event_ordering").
	Category string `json:"category"`
	// Labels carries further benchmark labels (BranchMemEval family; LoCoMo
	// category name; BEAM index).
	Labels map[string]string `json:"labels,omitempty"`
	// Abstention marks questions whose right answer is that the information
	// is not available (LongMemEval `_abs`, LoCoMo category 5).
	Abstention bool `json:"abstention,omitempty"`
	// Evidence lists interaction IDs that hold the evidence (LoCoMo evidence
	// dia_ids mapped to their interactions, LongMemEval has_answer turns).
	Evidence []string `json:"evidence,omitempty"`
	// Rubric holds grading items (BEAM rubric, LongMemEval preference rubric).
	Rubric []string `json:"rubric,omitempty"`
	// Extra holds benchmark-specific fields the scorer needs (BEAM ordering).
	Extra map[string]any `json:"extra,omitempty"`
	// Canonical is committed after the question is answered (BranchMemEval
	// online protocol, paper §5): the question turn with the dataset's
	// canonical response, never the system's prediction.
	Canonical *dialog.Interaction `json:"canonical,omitempty"`
}

// Latent holds BranchMemEval's hidden annotations.
type Latent struct {
	// Branch maps interaction IDs and question IDs to their latent branch.
	Branch map[string]string
}

// Questions returns the episode's questions in order.
func (e Episode) Questions() []*Question {
	var qs []*Question
	for _, s := range e.Steps {
		if s.Question != nil {
			qs = append(qs, s.Question)
		}
	}
	return qs
}

// Loader reads a benchmark file (or directory) into episodes. path "" means
// the benchmark's embedded default, for benchmarks that ship one.
type Loader func(ctx context.Context, path string, opt Options) ([]Episode, error)

// Options narrow what a loader returns.
type Options struct {
	// Categories keeps only these question categories (empty: the
	// benchmark's default set).
	Categories []string
	// Progress, when set, receives bytes read so far for large files.
	Progress func(done, total int64)
}

// Streamer decodes a benchmark file one episode at a time, for files too
// large to hold (LongMemEval _m is 2.7 GB).
type Streamer func(ctx context.Context, path string, opt Options, fn func(Episode) error) error

var (
	mu        sync.RWMutex
	loaders   = map[string]Loader{}
	streamers = map[string]Streamer{}
)

// RegisterStreamer makes a streaming decoder available under a benchmark
// name, beside its Loader.
func RegisterStreamer(name string, s Streamer) {
	mu.Lock()
	defer mu.Unlock()
	streamers[name] = s
}

// ErrStop, returned by Each's fn, ends the walk early without error: a
// streaming decoder stops reading the file there.
var ErrStop = errors.New("stop")

// Each calls fn for every episode of benchmark name in file order. With a
// registered Streamer only one decoded episode is held at a time (plus what
// fn keeps); otherwise the file is loaded whole first. fn returning ErrStop
// ends the walk (Each then returns nil).
func Each(ctx context.Context, name, path string, opt Options, fn func(Episode) error) error {
	name = strings.ToLower(name)
	mu.RLock()
	s, ok := streamers[name]
	mu.RUnlock()
	if ok {
		if err := s(ctx, path, opt, fn); err != nil && !errors.Is(err, ErrStop) {
			return err
		}
		return nil
	}
	eps, err := Load(ctx, name, path, opt)
	if err != nil {
		return err
	}
	for _, e := range eps {
		if err := fn(e); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// Streams reports whether benchmark name decodes one episode at a time.
func Streams(name string) bool {
	name = strings.ToLower(name)
	mu.RLock()
	defer mu.RUnlock()
	_, ok := streamers[name]
	return ok
}

// Register makes a loader available under a benchmark name.
func Register(name string, l Loader) {
	mu.Lock()
	defer mu.Unlock()
	loaders[name] = l
}

// Load reads benchmark name from path.
func Load(ctx context.Context, name, path string, opt Options) ([]Episode, error) {
	name = strings.ToLower(name)
	mu.RLock()
	l, ok := loaders[name]
	mu.RUnlock()
	if !ok {
		return nil, unknownBenchmark(name)
	}
	return l(ctx, path, opt)
}

// Canonical returns the registered spelling of a benchmark name, which is
// matched case-insensitively ("LoCoMo" is locomo), or an error listing the
// known names.
func Canonical(name string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	mu.RLock()
	_, ok := loaders[n]
	mu.RUnlock()
	if !ok {
		return "", unknownBenchmark(name)
	}
	return n, nil
}

func unknownBenchmark(name string) error {
	return fmt.Errorf("unknown benchmark %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the registered benchmarks.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	var n []string
	for k := range loaders {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}
