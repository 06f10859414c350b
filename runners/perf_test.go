package runners

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
)

// TestPerfRunsOnValidReplies: arbor perf's fake answers every memory prompt
// so that no operation is repaired or falls back (Perf fails otherwise),
// every row is measured, query preparation included, and the remote
// tokenizer row's verification calls are accounted. No timing is asserted.
func TestPerfRunsOnValidReplies(t *testing.T) {
	load := func(file string) func() (*config.Config, error) {
		return func() (*config.Config, error) { return config.Load(file, nil, nil) }
	}
	rows, err := Perf(context.Background(), PerfPlan{Latency: time.Millisecond, Roles: map[string]time.Duration{"embed": time.Millisecond / 2}, Turns: 6, Sessions: 1,
		Reference: load("../configs/a800.yaml"), Efficiency: load("../configs/efficiency.yaml"), Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 8", len(rows))
	}
	for _, r := range rows {
		if r.N == 0 || r.L <= 0 {
			t.Errorf("row %q measured nothing: %+v", r.Figure, r)
		}
		if !strings.HasPrefix(r.Figure, "query") && (r.Calls["chat"] == 0 || r.Calls["rerank"] == 0) {
			t.Errorf("row %q made no chat or rerank calls: %v", r.Figure, r.Calls)
		}
	}
	if rows[7].Calls["tokenizer"] == 0 {
		t.Errorf("remote tokenizer row: no verification call accounted: %v", rows[7].Calls)
	}
	// Sequential and prefetch replays make the same calls: prefetch moves
	// them earlier, it does not add or drop any.
	for _, pair := range [][2]int{{3, 4}, {5, 6}} {
		s, p := rows[pair[0]], rows[pair[1]]
		if !strings.HasSuffix(s.Figure, "sequential") || !strings.HasSuffix(p.Figure, "prefetch") || s.Calls["chat"] != p.Calls["chat"] {
			t.Errorf("rows %q and %q: calls %v and %v", s.Figure, p.Figure, s.Calls, p.Calls)
		}
	}
	md := PerfTable(rows, time.Millisecond, map[string]time.Duration{"embed": time.Millisecond / 2}).Markdown()
	if !strings.Contains(md, "ingest with a remote tokenizer") || !strings.Contains(md, "embed after 500µs") {
		t.Fatalf("table:\n%s", md)
	}
}
