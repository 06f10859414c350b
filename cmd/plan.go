package cmd

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/runners"
)

// plannable are the commands `arbor plan` and --dry-run know.
var plannable = []string{"eval", "sweep", "ablate", "latency"}

// addDryRunFlags registers --dry-run and the estimate's inputs.
func addDryRunFlags(c *cobra.Command) {
	f := c.Flags()
	f.Bool("dry-run", false, "count episodes, interactions, questions, model calls and tokens by role from the data; run nothing, call no endpoint")
	f.Bool("replay", false, "with --dry-run: count exactly by replaying the run against in-process fakes (as long as an offline run)")
	f.String("throughput", "", "with --dry-run: calls per second each role's endpoints sustain together, e.g. chat=20,judge=40 (a bare number sets chat and judge)")
	f.Bool("probe", false, "with --dry-run: estimate time from the latency of `arbor endpoints check` probes (a lower bound)")
	f.Float64("assume-accuracy", 0.5, "with --dry-run: accuracy (0..1) from which the smallest detectable difference is computed when the run has endpoints (report.assumed_accuracy)")
}

// dryRunIfAsked runs p as a dry run when --dry-run is set and reports
// whether it did.
func dryRunIfAsked(cmd *cobra.Command, p runners.Plan, models []runners.Model) (bool, error) {
	f := cmd.Flags()
	if dry, _ := f.GetBool("dry-run"); !dry {
		return false, nil
	}
	var opt runners.DryOptions
	if s, _ := f.GetString("throughput"); s != "" {
		t, err := runners.ParseThroughput(s)
		if err != nil {
			return true, err
		}
		opt.Throughput = t
	}
	opt.Probe, _ = f.GetBool("probe")
	count := runners.Count
	if replay, _ := f.GetBool("replay"); replay {
		count = runners.DryRun
	}
	rep, err := count(cmd.Context(), p, models, opt)
	if err != nil {
		return true, err
	}
	return true, rep.Write(cmd.OutOrStdout())
}

func init() {
	c := &cobra.Command{
		Use:   "plan <eval|sweep|ablate|latency> [arguments and flags of that command]",
		Short: "Count what a run will do and estimate its wall time, calling no endpoint",
		Long: `Counts what the named command will do (the same as adding --dry-run to it) from the
data alone: it reads the episodes once, selects them as the run would, and multiplies
each system's model calls per interaction and per answer by what they hold. It prints
the episodes, interactions and questions selected, each role's model calls and tokens
(split into ingestion and questions; figures that depend on memory state are estimated
from measured ratios and marked so), and an estimate of the wall time: calls over
--throughput (or --probe) for remote roles, measured per-unit costs when every role
is local. --replay counts exactly instead, by running the real pipeline with every
role that has endpoints answered at once by an in-process fake (as long as an offline
run).`,
		Example: `  arbor plan eval longmemeval --data longmemeval_s_cleaned.json --config configs/a800.yaml --throughput chat=60,judge=120
  arbor plan sweep --benchmark longmemeval --data longmemeval_s_cleaned.json --config configs/a800.yaml --probe
  arbor plan latency --data longmemeval_s_cleaned.json --config configs/efficiency.yaml --systems arbormem
  arbor plan eval branchmemeval --config configs/a800.yaml --replay`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				return cmd.Help()
			}
			if !slices.Contains(plannable, args[0]) {
				return fmt.Errorf("plan: %q is not one of %v", args[0], plannable)
			}
			path, rest := args[:1], args[1:]
			if args[0] == "sweep" {
				if len(rest) > 0 && rest[0] == "budgets" {
					rest = rest[1:]
				}
				path = []string{"sweep", "budgets"}
			}
			target, _, err := rootCmd.Find(path)
			if err != nil {
				return err
			}
			target.InitDefaultHelpFlag()
			if err := target.ParseFlags(rest); err != nil {
				return fmt.Errorf("plan %s: %w", args[0], err)
			}
			if help, _ := target.Flags().GetBool("help"); help {
				return target.Help()
			}
			if err := target.Flags().Set("dry-run", "true"); err != nil {
				return err
			}
			// Flags outlive a command's run in cobra; leave the target as found.
			defer target.Flags().Set("dry-run", "false")
			pos := target.Flags().Args()
			if err := target.ValidateArgs(pos); err != nil {
				return fmt.Errorf("plan %s: %w", args[0], err)
			}
			target.SetContext(cmd.Context())
			return target.RunE(target, pos)
		},
	}
	rootCmd.AddCommand(c)
}
