package runners

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// gate serves a fake model endpoint that can be taken down and brought back
// on the same address: while down, every connection is dropped unanswered,
// as a crashed server's would be.
type gate struct {
	fake *openaifake.Server
	hs   *httptest.Server
	down atomic.Bool
	seen atomic.Int64 // chat requests that reached the fake
}

func newGate(opts openaifake.Options) *gate {
	g := &gate{fake: openaifake.New(opts)}
	g.hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.down.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			g.seen.Add(1)
		}
		g.fake.ServeHTTP(w, r)
	}))
	return g
}

func (g *gate) close() { g.hs.Close(); g.fake.Close() }

// sevenGates starts seven gated fakes answering with slow, scripted replies
// and returns them with a config that spreads answers over all seven.
func sevenGates(t *testing.T) ([]*gate, string) {
	t.Helper()
	var gates []*gate
	var eps strings.Builder
	for range 7 {
		g := newGate(openaifake.Options{FirstTokenLatency: 15 * time.Millisecond, Reply: func(openaifake.Request) string { return "No idea." }})
		t.Cleanup(g.close)
		gates = append(gates, g)
		fmt.Fprintf(&eps, "      - {url: %s, model: fake-model, max_inflight: 1, timeout: 5s}\n", g.hs.URL)
	}
	yaml := "models:\n  chat:\n    endpoints:\n" + eps.String() +
		"answer: {answerer: chat}\narbormem: {extractors: heuristic}\nretry: {max_attempts: 3, base_delay: 1ms, max_delay: 5ms}\n"
	return gates, yaml
}

// whenAnswered runs f once the gates have together received n chat requests.
func whenAnswered(gates []*gate, n int64, f func()) {
	go func() {
		for {
			var total int64
			for _, g := range gates {
				total += g.seen.Load()
			}
			if total >= n {
				f()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
}

// TestOneEndpointOfSevenKilled: an answer endpoint that dies mid-run costs
// nothing: the run finishes on the other six with no error sample.
func TestOneEndpointOfSevenKilled(t *testing.T) {
	gates, yaml := sevenGates(t)
	cfg := testConfig(t, yaml)
	whenAnswered(gates, 10, func() { gates[3].down.Store(true) })
	res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 4, Systems: []string{"bm25", "full"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if !gates[3].down.Load() {
		t.Fatal("the endpoint was never taken down; the run was too short")
	}
	for _, s := range res.Samples {
		if s.Error != "" {
			t.Errorf("%s: error sample %q; the other six endpoints should have answered", s.Key(), s.Error)
		}
	}
}

// TestAllEndpointsKilledThenRetried: when every answer endpoint dies mid-run
// the remaining questions become error samples (the run does not hang), and
// once the endpoints are back, the same run with --retry-errors completes
// them: no error sample is left and every question has exactly one sample.
func TestAllEndpointsKilledThenRetried(t *testing.T) {
	gates, yaml := sevenGates(t)
	cfg := testConfig(t, yaml)
	whenAnswered(gates, 4, func() {
		for _, g := range gates {
			g.down.Store(true)
		}
	})
	plan := Plan{Benchmark: "branchmemeval", Limit: 6, Systems: []string{"bm25"}, Config: cfg, Out: io.Discard, Log: io.Discard,
		Integrity: Integrity{AllowErrors: true}}
	res, err := Run(deadline(t), plan)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, s := range res.Samples {
		if s.Error != "" {
			failed++
		}
	}
	if failed == 0 || failed == len(res.Samples) {
		t.Fatalf("%d of %d samples failed; the test needs answers before and errors after the outage", failed, len(res.Samples))
	}
	retryAfterRecovery(t, plan, gates, len(res.Samples))
}

// retryAfterRecovery brings the gated endpoints back and runs plan again
// with --retry-errors: every one of the want questions must now be answered,
// none twice.
func retryAfterRecovery(t *testing.T, plan Plan, gates []*gate, want int) {
	t.Helper()
	for _, g := range gates {
		g.down.Store(false)
	}
	plan.RetryErrors = true
	res, err := Run(deadline(t), plan)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, s := range res.Samples {
		seen[s.Key()]++
		if s.Error != "" {
			t.Errorf("%s: still an error after --retry-errors: %s", s.Key(), s.Error)
		}
	}
	if len(seen) != want {
		t.Errorf("%d questions after the retry, %d before", len(seen), want)
	}
}
