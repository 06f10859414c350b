package cmd

import (
	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/runners"
)

func init() {
	r := &cobra.Command{
		Use:   "report <run-dir>",
		Short: "Rebuild every table of a run from its samples.jsonl alone (optionally adding judges)",
		Example: `  arbor report results/eval-branchmemeval-1a2b3c4d
  arbor report results/eval-longmemeval-1a2b3c4d --judges lexical,judges/qwen-judge.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if specs := splitList(cmd.Flags(), "judges"); len(specs) > 0 {
				cfg, err := loadConfig(cmd)
				if err != nil {
					return err
				}
				if err := runners.AddJudges(cmd.Context(), args[0], cfg, specs, cmd.ErrOrStderr(), cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			_, err := runners.Report(args[0], cmd.OutOrStdout())
			return err
		},
	}
	r.Flags().String("judges", "", `judge configurations to add before reporting: "default", "lexical" or config files (see arbor score --help)`)
	rootCmd.AddCommand(r)
	m := &cobra.Command{
		Use:     "merge <dst-run-dir> <run-dir>...",
		Short:   "Combine runs (e.g. the shards of one plan) into one and render its tables",
		Example: `  arbor merge results/lme-all results/eval-longmemeval-*-shard*`,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			force, _ := cmd.Flags().GetBool("force")
			_, err := runners.Merge(args[0], args[1:], force, cmd.OutOrStdout())
			return err
		},
	}
	m.Flags().Bool("force", false, "merge runs whose config fingerprints differ")
	rootCmd.AddCommand(m)
}
