package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/runners"
)

func init() {
	var (
		p                 runners.PerfPlan
		reference, effcfg string
	)
	c := &cobra.Command{
		Use:   "perf",
		Short: "Measure ArborMem's ingest and query critical paths against a fake model server (in units of the call latency L)",
		Long: `Starts a fake OpenAI-compatible server on loopback that answers every memory
prompt with valid JSON after --latency, points the reference and efficiency
configurations' endpoints at it (keeping their per-endpoint limits), and replays
a BranchMemEval episode and a synthetic LongMemEval-shaped one through ArborMem
with one worker. Prints ingest per committed turn and query preparation in units
of L: the number of sequential model round trips on the critical path. No GPU,
no network, no files beyond the two configs.`,
		Example: `  arbor perf
  arbor perf --latency 50ms --turns 12`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.Reference = func() (*config.Config, error) { return config.Load(reference, nil, nil) }
			p.Efficiency = func() (*config.Config, error) { return config.Load(effcfg, nil, nil) }
			p.Log = cmd.ErrOrStderr()
			rows, err := runners.Perf(cmd.Context(), p)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), runners.PerfTable(rows, p.Latency).Markdown())
			return nil
		},
	}
	f := c.Flags()
	f.DurationVar(&p.Latency, "latency", 200_000_000, "latency L of every fake model call")
	f.IntVar(&p.Turns, "turns", 24, "committed turns measured per row")
	f.StringVar(&reference, "reference", "configs/a800.yaml", "reference configuration (per-endpoint limits)")
	f.StringVar(&effcfg, "efficiency", "configs/efficiency.yaml", "matched efficiency configuration")
	rootCmd.AddCommand(c)
}
