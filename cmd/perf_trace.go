package cmd

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/runners"
)

// init adds --trace to arbor perf (after perf.go's init, which registers
// the command: files initialise in name order): instead of the table, the
// model calls of each sequentially committed turn on a timeline.
func init() {
	perf := perfCommand()
	var trace bool
	perf.Flags().BoolVar(&trace, "trace", false, "print each sequentially committed turn's model calls on a timeline (reference config, prefetch off) instead of the table")
	table := perf.RunE
	perf.RunE = func(cmd *cobra.Command, args []string) error {
		if !trace {
			return table(cmd, args)
		}
		f := cmd.Flags()
		latency, err := f.GetString("latency")
		if err != nil {
			return err
		}
		lat, roles, err := runners.ParseLatencies(latency, 200*time.Millisecond)
		if err != nil {
			return err
		}
		turns, err := f.GetInt("turns")
		if err != nil {
			return err
		}
		ref, err := f.GetString("reference")
		if err != nil {
			return err
		}
		p := runners.PerfPlan{Latency: lat, Roles: roles, Turns: turns, Reference: func() (*config.Config, error) { return config.Load(ref, nil, nil) }}
		return runners.PerfTrace(cmd.Context(), p, cmd.OutOrStdout())
	}
}
