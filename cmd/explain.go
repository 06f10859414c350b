package cmd

import (
	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/runners"
)

func init() {
	c := &cobra.Command{
		Use:   "explain <run> <episode> [question]",
		Short: "Print ArborMem's forest for an episode and, for a question, how it was localized and what filled the budget",
		Long: `Rebuilds ArborMem's memory for one episode of a recorded run (a folder, or a bare run
id under --results) by replaying it with the run's own config, dataset and response cache,
all read from its manifest (--config and --data override; model calls come from the cache), and
prints the forest as an indented tree (branch topic, node summaries, turn ids). With a
question id it stops before that question and prints the chosen parent, every candidate with
its score parts (s_ce, s_key, s_rec, s_topic), the rules that decided, and the tokens each
evidence channel filled. --html FILE also draws the forest as a tree (the drawing of arbor
serve's page), the question's chosen parent circled.`,
		Example: `  arbor explain eval-branchmemeval-5ece2c7a-2844b3 s03
  arbor explain results/eval-branchmemeval-5ece2c7a-2844b3 s03 s03-q02
  arbor explain eval-branchmemeval-5ece2c7a-2844b3 s03 s03-q02 --html s03.html`,
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, cfg, err := loadRunConfig(cmd, args[0])
			if err != nil {
				return err
			}
			q := ""
			if len(args) == 3 {
				q = args[2]
			}
			data, _ := cmd.Flags().GetString("data")
			html, _ := cmd.Flags().GetString("html")
			return runners.Explain(cmd.Context(), dir, cfg, data, args[1], q, html, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	c.Flags().String("data", "", "dataset file or folder (default: the run's, from its manifest)")
	c.Flags().String("html", "", "also write the forest drawn as a tree to this HTML file (the question's parent circled)")
	rootCmd.AddCommand(c)
}
