package runners

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
)

// locomoDev is the project workspace's LoCoMo development half
// (../shared/data/locomo-dev/, never copied into the repository).
func locomoDev(tb testing.TB) string {
	tb.Helper()
	for _, dir := range []string{"../../shared/data/locomo-dev", "../../../shared/data/locomo-dev", "/work/shared/data/locomo-dev"} {
		p := filepath.Join(dir, "locomo10-conv26-43.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	tb.Skip("no LoCoMo development half beside the repository (../shared/data/locomo-dev/)")
	return ""
}

// BenchmarkPlanVsRun measures `arbor plan` (Count) against the run it
// plans, offline, on the shipped BranchMemEval (the quick start's five
// systems) and on the LoCoMo development half (scripts/locomo-dev.sh's
// sweep), and prints plan time, run time and their ratio (target ≤ 5%).
// Timings on a shared machine: a benchmark, not a test; take the minimum
// of several runs.
//
//	go test ./runners -run '^$' -bench PlanVsRun -benchtime 1x
func BenchmarkPlanVsRun(b *testing.B) {
	cases := []struct {
		name string
		plan func(tb testing.TB) Plan
	}{
		{"bme", func(tb testing.TB) Plan { return Plan{Benchmark: "branchmemeval"} }},
		{"locomo-dev-sweep", func(tb testing.TB) Plan {
			return Plan{Kind: "sweep", Benchmark: "locomo", Data: locomoDev(tb), Systems: []string{"arbormem", "bm25"},
				Budgets: []int{256, 512, 1024, 4096}, Episodes: []string{"conv-26", "conv-30", "conv-41", "conv-42", "conv-43"}}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			for range b.N {
				p := c.plan(b)
				p.Config, p.Out, p.Log = benchConfig(b), io.Discard, io.Discard
				bestPlan := time.Duration(1 << 62)
				for range 3 {
					t0 := time.Now()
					if _, err := Count(ctx, p, nil, DryOptions{}); err != nil {
						b.Fatal(err)
					}
					bestPlan = min(bestPlan, time.Since(t0))
				}
				t0 := time.Now()
				if _, err := Execute(ctx, p, nil); err != nil {
					b.Fatal(err)
				}
				run := time.Since(t0)
				ratio := bestPlan.Seconds() / run.Seconds()
				fmt.Fprintf(os.Stderr, "%s: plan %s (min of 3), run %s, plan/run %.2f%%\n", c.name, bestPlan.Round(time.Millisecond), run.Round(time.Millisecond), 100*ratio)
				b.ReportMetric(bestPlan.Seconds(), "plan-s")
				b.ReportMetric(run.Seconds(), "run-s")
				b.ReportMetric(100*ratio, "plan/run-%")
			}
		})
	}
}

// benchConfig is the embedded default config as the command loads it
// (10,000 resamples in the tables), with results in a temporary folder.
func benchConfig(tb testing.TB) *config.Config {
	tb.Helper()
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Run.Results = tb.TempDir()
	cfg.Cache.Dir = filepath.Join(cfg.Run.Results, ".cache", "llm")
	cfg.Run.Progress = false
	return cfg
}

// BenchmarkCount is the plan alone on the shipped BranchMemEval.
func BenchmarkCount(b *testing.B) {
	p := Plan{Benchmark: "branchmemeval", Config: benchConfig(b), Out: io.Discard, Log: io.Discard}
	for range b.N {
		if _, err := Count(context.Background(), p, nil, DryOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
