package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/runners"
)

func init() {
	sweep := &cobra.Command{Use: "sweep", Short: "Parameter sweeps (read-budget analysis)"}
	budgets := &cobra.Command{
		Use:   "budgets",
		Short: "Read-budget sweep: ingest each episode once per system, answer at every budget (paper §6.3)",
		Example: `  arbor sweep budgets --benchmark branchmemeval --subset 10
  arbor sweep budgets --benchmark longmemeval --data longmemeval_s_cleaned.json --config configs/a800.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := experimentPlan(cmd, "sweep")
			if err != nil {
				return err
			}
			if s, _ := cmd.Flags().GetString("budgets"); s != "" {
				if p.Budgets, err = runners.ParseBudgets(s); err != nil {
					return fmt.Errorf("--budgets: %w", err)
				}
			}
			_, err = runners.Sweep(cmd.Context(), p)
			return err
		},
	}
	addExperimentFlags(budgets)
	budgets.Flags().String("budgets", "256,512,1k,2k,4k,8k,16k,32k", "comma-separated budgets (32k = 30,968)")
	sweep.AddCommand(budgets)
	rootCmd.AddCommand(sweep)

	ablate := &cobra.Command{
		Use:   "ablate",
		Short: "Reference configuration and the five component ablations at 32K (paper §6.5)",
		Long: `Runs ArborMem's reference configuration and its ablations (no-localization,
no-keyword-routing, no-atomic-facts, no-structured-extraction, no-structured-evidence).
Variants that change only recall are answered from the reference instance's ingestion;
the others ingest separately. The output says which.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := experimentPlan(cmd, "ablate")
			if err != nil {
				return err
			}
			_, err = runners.Ablate(cmd.Context(), p)
			return err
		},
	}
	addExperimentFlags(ablate)
	rootCmd.AddCommand(ablate)

	latency := &cobra.Command{
		Use:     "latency",
		Short:   "Matched efficiency and cost tables: sequential runs, per-call timings (paper §6.4)",
		Example: `  arbor latency --benchmark longmemeval --data longmemeval_s_cleaned.json --config configs/efficiency.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := experimentPlan(cmd, "latency")
			if err != nil {
				return err
			}
			_, err = runners.Latency(cmd.Context(), p)
			return err
		},
	}
	addExperimentFlags(latency)
	rootCmd.AddCommand(latency)
}

func addExperimentFlags(c *cobra.Command) {
	addRunFlags(c)
	c.Flags().String("benchmark", "longmemeval", "benchmark to run: "+strings.Join([]string{"longmemeval", "locomo", "beam", "branchmemeval"}, ", "))
	c.Flags().Int("subset", runners.PaperSubset, "episodes sampled with --seed (the paper's fixed 50-question subset); 0 = all")
}

func experimentPlan(cmd *cobra.Command, kind string) (runners.Plan, error) {
	bench, _ := cmd.Flags().GetString("benchmark")
	p, err := planFromFlags(cmd, kind, bench)
	if err != nil {
		return p, err
	}
	p.Subset, _ = cmd.Flags().GetInt("subset")
	return p, nil
}
