package runners

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/internal/benchinput"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// BenchmarkMainJob runs what `arbor eval branchmemeval` runs on a fresh
// results folder: the embedded default config (offline, 10,000 resamples),
// the shipped BranchMemEval set, every default system, the tables rendered
// and written. Each iteration is a fresh run id, so nothing is resumed. The
// process's start (package init, the command's flag parsing) is not in it:
// time the built binary for that. Reported: wall and CPU seconds per run.
// Run with -benchtime 5x and read the minimum under load; -cpuprofile
// profiles the command's path.
func BenchmarkMainJob(b *testing.B) {
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Run.Results = b.TempDir()
	cfg.Cache.Dir = "" // as the command: under the results folder
	var wall, cpu time.Duration
	i := 0
	for b.Loop() {
		i++
		textmemo.ResetAll() // a fresh process sees every text for the first time
		t0, c0 := time.Now(), benchinput.ProcessCPU()
		out, err := Run(context.Background(), Plan{Kind: "eval", Benchmark: "branchmemeval", Config: cfg,
			RunID: fmt.Sprintf("main-%d", i), Out: io.Discard, Log: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
		cpu += benchinput.ProcessCPU() - c0
		if len(out.Samples) != 500 {
			b.Fatalf("%d samples, want 500 (100 questions × 5 systems)", len(out.Samples))
		}
	}
	b.ReportMetric(wall.Seconds()/float64(i), "s/run")
	b.ReportMetric(cpu.Seconds()/float64(i), "cpu-s/run")
}
