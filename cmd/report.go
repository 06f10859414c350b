package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/runners"
)

func init() {
	r := &cobra.Command{
		Use:   "report <run-dir> [<run-dir>...]",
		Short: "Rebuild every table of a run from its samples alone; with several runs, the combined Table 1",
		Long: `With one run, rebuilds every table of the run from samples.jsonl and episodes.jsonl
alone (optionally adding judges first). With several runs — one eval run per benchmark —
renders the paper's Table 1 (one row per benchmark, one column per system) and each
benchmark's own table into --out. With --html DIR, also writes one static site of
all the given runs (open DIR/index.html from disk; no server or network).`,
		Example: `  arbor report results/eval-branchmemeval-1a2b3c4d
  arbor report results/eval-longmemeval-1a2b3c4d --judges lexical,judges/qwen-judge.yaml
  arbor report results/eval-locomo-1a2b3c4d --ci pm --compare arbormem,mem0
  arbor report results/eval-longmemeval-* results/eval-locomo-* results/eval-beam-* results/eval-branchmemeval-* --out results/table1
  arbor report results/eval-branchmemeval-1a2b3c4d --html results/site`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			ro, err := runners.ReportOptionsFrom(cfg)
			if err != nil {
				return err
			}
			cmp, _ := cmd.Flags().GetString("compare")
			if ro.Compare, err = runners.ParseCompare(cmp); err != nil {
				return err
			}
			if specs := splitList(cmd.Flags(), "judges"); len(specs) > 0 {
				for _, dir := range args {
					if err := runners.AddJudges(cmd.Context(), dir, cfg, specs, cmd.ErrOrStderr(), cmd.ErrOrStderr()); err != nil {
						return err
					}
				}
			}
			if htmlDir, _ := cmd.Flags().GetString("html"); htmlDir != "" {
				if _, err := runners.ReportHTML(args, htmlDir, cmd.OutOrStdout()); err != nil {
					return err
				}
				if outDir, _ := cmd.Flags().GetString("out"); outDir == "" || len(args) == 1 {
					return nil
				}
			}
			if len(args) > 1 {
				outDir, _ := cmd.Flags().GetString("out")
				if outDir == "" {
					return fmt.Errorf("several runs: give --out DIR for the combined tables")
				}
				return runners.Combine(args, outDir, cmd.OutOrStdout(), ro)
			}
			_, err = runners.Report(args[0], cmd.OutOrStdout(), ro)
			return err
		},
	}
	addCIFlags(r)
	r.Flags().String("compare", "", "two systems to compare in detail on the same questions, per benchmark and category, e.g. arbormem,mem0")
	r.Flags().String("judges", "", `judge configurations to add before reporting: "default", "lexical" or config files (see arbor score --help)`)
	r.Flags().String("out", "", "folder for the combined tables when several runs are given")
	r.Flags().String("html", "", "write a static HTML report (tables, plots, manifest, degraded counts, question browser) into this folder; open DIR/index.html")
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

// addCIFlags registers the table-statistics flags of commands that print
// tables (config keys report.ci and report.resamples).
func addCIFlags(c *cobra.Command) {
	c.Flags().String("ci", "off", "confidence intervals in Markdown/LaTeX tables: off, pm (68.4 ± 4.1) or interval (68.4 [64.2, 72.6]); JSON/CSV always carry them")
	c.Flags().Int("resamples", 10000, "bootstrap resamples and Monte-Carlo permutations per cell or comparison")
}
