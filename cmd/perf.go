package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/runners"
)

func init() {
	var (
		p                          runners.PerfPlan
		reference, effcfg, latency string
	)
	c := &cobra.Command{
		Use:   "perf",
		Short: "Measure ArborMem's ingest and query critical paths against a fake model server (in units of the call latency L)",
		Long: `Starts a fake OpenAI-compatible server on loopback that answers every memory
prompt with valid JSON after --latency, points the reference and efficiency
configurations' endpoints at it (keeping their per-endpoint limits), and replays
a BranchMemEval episode and a synthetic LongMemEval-shaped one through ArborMem
with one worker. Prints ingest per committed turn and query preparation in units
of L: the number of sequential model round trips on the critical path. Each
ingest figure is given sequential (each turn commits before the next starts, as
the efficiency run) and with prefetch (the next turn's extractors start while
this one commits, an accuracy run's option). --latency gives every call one
latency, or each role its own (L is the chat latency). No GPU, no network, no
files beyond the two configs.`,
		Example: `  arbor perf
  arbor perf --latency 50ms --turns 12
  arbor perf --latency chat=200ms,embed=20ms,rerank=30ms`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if p.Latency, p.Roles, err = runners.ParseLatencies(latency, 200*time.Millisecond); err != nil {
				return err
			}
			p.Reference = func() (*config.Config, error) { return config.Load(reference, nil, nil) }
			p.Efficiency = func() (*config.Config, error) { return config.Load(effcfg, nil, nil) }
			p.Log = cmd.ErrOrStderr()
			rows, err := runners.Perf(cmd.Context(), p)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), runners.PerfTable(rows, p.Latency, p.Roles).Markdown())
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&latency, "latency", "200ms", "latency of every fake model call (L), or per role: chat=200ms,embed=20ms,rerank=30ms (L = chat's; roles not named take L)")
	f.IntVar(&p.Turns, "turns", 24, "committed turns measured per row")
	f.StringVar(&reference, "reference", "configs/a800.yaml", "reference configuration (per-endpoint limits)")
	f.StringVar(&effcfg, "efficiency", "configs/efficiency.yaml", "matched efficiency configuration")
	rootCmd.AddCommand(c)
}

// perfCommand is arbor perf, for the files that extend it (perf_recall.go,
// perf_trace.go); their init functions run after this file's, which
// registers it, since files initialise in name order.
func perfCommand() *cobra.Command {
	for _, c := range rootCmd.Commands() {
		if c.Name() == "perf" {
			return c
		}
	}
	panic("cmd: no perf command to extend")
}
