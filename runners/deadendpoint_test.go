package runners

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
	"github.com/arbor-eval/arbor/pkg/record"
)

// deadYAML is a chat role over gates with the default retry settings but
// for retry.dead_after.
func deadYAML(gates []*gate, deadAfter string) string {
	var eps strings.Builder
	for _, g := range gates {
		fmt.Fprintf(&eps, "      - {url: %s, model: fake-model, max_inflight: 2}\n", g.hs.URL)
	}
	y := "models:\n  chat:\n    endpoints:\n" + eps.String() + "answer: {answerer: chat}\n"
	if deadAfter != "" {
		y += "retry: {dead_after: " + deadAfter + "}\n"
	}
	return y
}

// syncLog is a log writer several goroutines may write.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDeadEndpointFailsFast: with the default retry settings (6 attempts,
// backoff to 10 s, ejection for 10 s), a chat role whose endpoints all die
// mid-run is given up after retry.dead_after: the remaining questions
// become error samples that say so, the log names the endpoint and
// --retry-errors, and the run ends within dead_after plus the retries in
// flight, far inside the bound of its context (without the rule it crawls
// through every question's retries for many minutes). Once the endpoints
// are back, --retry-errors completes every question.
func TestDeadEndpointFailsFast(t *testing.T) {
	gates := []*gate{
		newGate(openaifake.Options{FirstTokenLatency: 10 * time.Millisecond, Reply: func(openaifake.Request) string { return "No idea." }}),
		newGate(openaifake.Options{FirstTokenLatency: 10 * time.Millisecond, Reply: func(openaifake.Request) string { return "No idea." }}),
	}
	for _, g := range gates {
		t.Cleanup(g.close)
	}
	cfg := testConfig(t, deadYAML(gates, "2s"))
	whenAnswered(gates, 4, func() {
		for _, g := range gates {
			g.down.Store(true)
		}
	})
	var log syncLog
	plan := Plan{Benchmark: "branchmemeval", Limit: 6, Systems: []string{"bm25", "full"}, Config: cfg, Out: io.Discard, Log: &log,
		Integrity: Integrity{AllowErrors: true}}
	// The bound: dead_after, then what a call already retrying may still
	// spend (backoff of at most 10 s between its 6 attempts), with slack
	// for a loaded machine. Without the rule the run takes many minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := Run(ctx, plan)
	if err != nil {
		t.Fatalf("the run did not end on its own within the bound: %v", err)
	}
	dead, failed := 0, 0
	for _, s := range res.Samples {
		if s.Error == "" {
			continue
		}
		failed++
		if strings.Contains(s.Error, llm.ErrDead.Error()) {
			dead++
		}
	}
	if failed == 0 || failed == len(res.Samples) {
		t.Fatalf("%d of %d samples failed; the test needs answers before the outage and errors after it", failed, len(res.Samples))
	}
	if dead == 0 {
		t.Errorf("no error sample says the role was given up (%d errors)", failed)
	}
	if !strings.Contains(log.String(), "--retry-errors") || !strings.Contains(log.String(), "127.0.0.1") {
		t.Errorf("the log does not name the dead endpoint and --retry-errors:\n%s", log.String())
	}
	eps, err := record.ReadLog[record.EpisodeStat](res.Dir + "/episodes.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) == 0 {
		t.Fatal("no episode records")
	}

	plan.Log = io.Discard
	retryAfterRecovery(t, plan, gates, len(res.Samples))
}

// BenchmarkDeadEndpoint measures how long a run takes to record its
// remaining questions as errors after every chat endpoint dies, with every
// retry setting at its default (retry.dead_after 60s unless
// ARBOR_DEAD_AFTER says otherwise). Run it once:
// go test ./runners -run '^$' -bench DeadEndpoint -benchtime 1x
func BenchmarkDeadEndpoint(b *testing.B) {
	for range b.N {
		gates := []*gate{
			newGate(openaifake.Options{FirstTokenLatency: 10 * time.Millisecond, Reply: func(openaifake.Request) string { return "No idea." }}),
			newGate(openaifake.Options{FirstTokenLatency: 10 * time.Millisecond, Reply: func(openaifake.Request) string { return "No idea." }}),
		}
		cfg := testConfig(b, deadYAML(gates, envOr("ARBOR_DEAD_AFTER", "")))
		var downAt time.Time
		var once sync.Once
		whenAnswered(gates, 4, func() {
			once.Do(func() { downAt = time.Now() })
			for _, g := range gates {
				g.down.Store(true)
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		res, err := Run(ctx, Plan{Benchmark: "branchmemeval", Limit: 6, Systems: []string{"bm25", "full"}, Config: cfg, Out: io.Discard,
			Log: io.Discard, Integrity: Integrity{AllowErrors: true}})
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			b.Fatal(err)
		}
		failed := 0
		for _, s := range res.Samples {
			if s.Error != "" {
				failed++
			}
		}
		b.ReportMetric(time.Since(downAt).Seconds(), "s-after-outage")
		b.ReportMetric(float64(failed), "error-samples")
		b.ReportMetric(float64(len(res.Samples)), "samples")
		for _, g := range gates {
			g.close()
		}
	}
}

// envOr is the environment variable name, or def when it is unset.
func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// TestBarShowsFailingRole: while every endpoint of a role fails, the bar's
// status says so (a stalled run otherwise shows its last ETA); a role with
// a healthy endpoint adds nothing.
func TestBarShowsFailingRole(t *testing.T) {
	g := newGate(openaifake.Options{})
	t.Cleanup(g.close)
	cfg := testConfig(t, deadYAML([]*gate{g}, ""))
	cfg.Retry.MaxAttempts = 1
	cfg.Cache.Enabled = false // every ask must reach the endpoint
	set, err := provider.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{plan: &Plan{Systems: []string{"bm25"}, Config: cfg, Log: io.Discard}, acc: map[string]*runningAcc{}, d: &deps{models: set}}
	ask := func() error {
		_, err := set.Chat.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
		return err
	}
	if err := ask(); err != nil {
		t.Fatal(err)
	}
	if got := r.status(); strings.Contains(got, "failing") {
		t.Errorf("healthy endpoint: status %q", got)
	}
	g.down.Store(true)
	if err := ask(); err == nil {
		t.Fatal("a down endpoint answered")
	}
	if got := r.status(); !strings.Contains(got, "chat endpoints failing for") {
		t.Errorf("every chat endpoint down: status %q does not say so", got)
	}
}
