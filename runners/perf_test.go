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
	rows, err := Perf(context.Background(), PerfPlan{Latency: time.Millisecond, Turns: 6, Sessions: 1,
		Reference: load("../configs/a800.yaml"), Efficiency: load("../configs/efficiency.yaml"), Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for _, r := range rows {
		if r.N == 0 || r.L <= 0 {
			t.Errorf("row %q measured nothing: %+v", r.Figure, r)
		}
		if !strings.HasPrefix(r.Figure, "query") && (r.Calls["chat"] == 0 || r.Calls["rerank"] == 0) {
			t.Errorf("row %q made no chat or rerank calls: %v", r.Figure, r.Calls)
		}
	}
	if rows[4].Calls["tokenizer"] == 0 {
		t.Errorf("remote tokenizer row: no verification call accounted: %v", rows[4].Calls)
	}
	md := PerfTable(rows, time.Millisecond).Markdown()
	if !strings.Contains(md, "ingest with a remote tokenizer") {
		t.Fatalf("table:\n%s", md)
	}
}
