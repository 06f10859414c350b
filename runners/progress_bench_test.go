package runners

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/progress"
)

// BenchmarkWeightedETA checks the progress bar's ETA on the seven-fake
// setup (as BenchmarkDoctorEstimate builds it: seven speaking fakes for
// chat and judge, max_inflight 8 each, an eighth for embed and rerank,
// every call taking ARBOR_ETA_LATENCY, default 500ms): the quick start's
// five systems on ARBOR_ETA_EPISODES BranchMemEval sessions (default 8),
// ArborMem's memory operations through the chat model. It samples the bar
// as the run goes and prints, at a quarter of the bar's (weighted)
// progress and at a quarter of the run's wall time, the ETA shown over the
// time that was in fact left (target: within 30%, 0.7-1.3). A timing on a
// shared machine: a benchmark, not a test. Below about 500ms the in-process
// fakes' own CPU, not the latency, sets the pace on a loaded 2-core
// machine, and ArborMem's first commits wait behind the baselines' burst.
//
//	go test ./runners -run '^$' -bench WeightedETA -benchtime 1x
func BenchmarkWeightedETA(b *testing.B) {
	lat := envDuration(b, "ARBOR_ETA_LATENCY", 500*time.Millisecond)
	episodes := 8
	if v := os.Getenv("ARBOR_ETA_EPISODES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("ARBOR_ETA_EPISODES=%q: want a positive count", v)
		}
		episodes = n
	}
	cfg := sevenFakes(b, lat)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	type sample struct {
		at time.Duration
		progress.Snapshot
	}
	for range b.N {
		cfg.Run.Results = b.TempDir()
		var (
			mu      sync.Mutex
			samples []sample
			bar     *progress.Reporter
		)
		t0 := time.Now()
		stop := make(chan struct{})
		barHook = func(r *progress.Reporter) {
			mu.Lock()
			bar = r
			mu.Unlock()
		}
		go func() {
			t := time.NewTicker(20 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					mu.Lock()
					if bar != nil {
						samples = append(samples, sample{time.Since(t0), bar.Snapshot()})
					}
					mu.Unlock()
				}
			}
		}()
		_, err := Run(ctx, Plan{Benchmark: "branchmemeval", Limit: episodes, Systems: DefaultSystems, Config: cfg, Out: io.Discard, Log: io.Discard})
		total := time.Since(t0)
		close(stop)
		barHook = nil
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		at := func(ok func(sample) bool) (sample, bool) {
			for _, s := range samples {
				if s.HasETA && ok(s) {
					return s, true
				}
			}
			return sample{}, false
		}
		for _, c := range []struct {
			name string
			ok   func(sample) bool
		}{
			{"a quarter of the bar's progress", func(s sample) bool { return 4*s.Fraction >= 1 }},
			{"a quarter of the wall time", func(s sample) bool { return 4*s.at >= total }},
		} {
			s, ok := at(c.ok)
			if !ok {
				fmt.Fprintf(os.Stderr, "%s: no ETA shown\n", c.name)
				continue
			}
			left := total - s.at
			ratio := s.ETA.Seconds() / left.Seconds()
			fmt.Fprintf(os.Stderr, "weighted ETA at %s (%d/%d units, %.0f%% weighted, %s of %s): shows %s, %s was left: ETA/left %.2f (target 0.7-1.3)\n",
				c.name, s.Done, s.Total, 100*s.Fraction, s.at.Round(time.Millisecond), total.Round(time.Millisecond), s.ETA.Round(100*time.Millisecond), left.Round(100*time.Millisecond), ratio)
			if c.name == "a quarter of the bar's progress" {
				b.ReportMetric(ratio, "eta/left@25%progress")
			} else {
				b.ReportMetric(ratio, "eta/left@25%time")
			}
		}
		mu.Unlock()
	}
}

// sevenFakes is the seven-fake setup: seven speaking fakes for chat and
// judge (max_inflight 8 each) and an eighth for embed and rerank (32),
// every call answered after lat, with the answers, ArborMem's memory
// operations and the summaries through the chat model.
func sevenFakes(b *testing.B, lat time.Duration) *config.Config {
	b.Helper()
	var chat []config.Endpoint
	start := func() string {
		sp, err := fake.New(fake.Options{})
		if err != nil {
			b.Fatal(err)
		}
		f := openaifake.New(sp.Install(openaifake.Options{RerankScale: openaifake.RerankAsAsked, FirstTokenLatency: lat}))
		b.Cleanup(f.Close)
		return f.URL
	}
	for range 7 {
		chat = append(chat, config.Endpoint{URL: start(), Model: "fake-model", MaxInflight: 8, Timeout: time.Minute})
	}
	side := []config.Endpoint{{URL: start(), Model: "fake-model", MaxInflight: 32, Timeout: time.Minute}}
	base := testConfig(b, "retry: {max_attempts: 2, base_delay: 1ms, max_delay: 5ms}\n")
	cfg := SpeakingConfig(base, chat[0].URL, base.Models.Embed.Dim, 8)
	cfg.Models.Chat.Endpoints, cfg.Models.Judge.Endpoints = chat, chat
	cfg.Models.Embed.Endpoints, cfg.Models.Rerank.Endpoints = side, side
	cfg.Run.Workers = 0
	return cfg
}

// envDuration reads a duration from the environment, def when unset.
func envDuration(tb testing.TB, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		tb.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}
