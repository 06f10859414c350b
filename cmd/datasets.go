package cmd

import (
	"encoding/json"
	"fmt"
	"github.com/arbor-eval/arbor/pkg/progress"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/datasets"
	_ "github.com/arbor-eval/arbor/datasets/beam"
	_ "github.com/arbor-eval/arbor/datasets/locomo"
	_ "github.com/arbor-eval/arbor/datasets/longmemeval"
)

func init() {
	c := &cobra.Command{Use: "datasets", Short: "Inspect benchmark files"}
	inspect := &cobra.Command{
		Use:   "inspect <benchmark> --data PATH",
		Short: "Count episodes, sessions, turns and questions per category, and check the file's sha256 against the official release",
		Long: `inspect loads an official benchmark file (nothing is downloaded) and prints
episodes, sessions, interactions, turns, questions per category or type, and the
sha256 of what was read, warning when it differs from a known official release.

  arbor datasets inspect longmemeval --data longmemeval_s_cleaned.json
  arbor datasets inspect locomo --data locomo10.json
  arbor datasets inspect beam --data BEAM/chats/100K
  arbor datasets inspect longmemeval --data longmemeval_m_cleaned.json --limit 1

Episodes are decoded and counted one at a time, so memory stays flat in the
file's size; with --limit or --episodes decoding stops after the last selected
episode (the sha256 still covers the whole file).`,
		Args: oneBenchmark,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, _ := cmd.Flags().GetString("data")
			cats, _ := cmd.Flags().GetStringSlice("categories")
			opt := datasets.Options{Categories: cats}
			if np, _ := cmd.Flags().GetBool("no-progress"); !np {
				bar := progress.NewBytes(cmd.ErrOrStderr(), "read "+args[0], true)
				defer bar.Finish()
				opt.Progress = bar.Update
			}
			var sel datasets.Selection
			sel.Limit, _ = cmd.Flags().GetInt("limit")
			sel.Episodes, _ = cmd.Flags().GetStringSlice("episodes")
			s, err := datasets.InspectSelected(cmd.Context(), args[0], path, opt, sel)
			if err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			return s.Render(cmd.OutOrStdout())
		},
	}
	inspect.Flags().String("data", "", "official benchmark file or directory")
	inspect.Flags().StringSlice("categories", []string{"all"}, `categories to count ("all", or e.g. 1,2,3,4 for LoCoMo's default set)`)
	inspect.Flags().Bool("json", false, "print the summary as JSON")
	inspect.Flags().Int("limit", 0, "count only the first N (selected) episodes; decoding stops after them")
	inspect.Flags().StringSlice("episodes", nil, "count only these episode ids; decoding stops after the last")
	c.AddCommand(inspect)
	c.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the benchmarks that can be loaded",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), strings.Join(datasets.Names(), "\n"))
			return err
		},
	})
	rootCmd.AddCommand(c)
}
