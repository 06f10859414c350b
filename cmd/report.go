package cmd

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/runners"
)

func init() {
	r := &cobra.Command{
		Use:   "report <run> [<run>...]",
		Short: "Rebuild every table of a run from its samples alone; with several runs, the combined Table 1",
		Long: `A run is its folder or a bare run id under --results. With one run, rebuilds every
table of the run from samples.jsonl and episodes.jsonl alone (optionally adding judges
first, with the run's own config from its manifest unless --config is given). With several runs — one eval run per benchmark —
renders the paper's Table 1 (one row per benchmark, one column per system) and each
benchmark's own table into --out. With --html DIR, also writes one static site of
all the given runs (open DIR/index.html from disk; no server or network).`,
		Example: `  arbor report eval-branchmemeval-5ece2c7a-05bb03 --tables all
  arbor report eval-branchmemeval-5ece2c7a-05bb03 --out /tmp/tables
  arbor report paper-main-longmemeval --judges lexical,configs/a800-4b.yaml
  arbor report paper-main-locomo --ci pm --compare arbormem,mem0
  arbor report results/paper-main-* --out results/table1
  arbor report eval-branchmemeval-5ece2c7a-05bb03 --html results/site`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			results, _ := cmd.Flags().GetString("results")
			for i, a := range args {
				dir, err := runners.ResolveRun(a, results)
				if err != nil {
					return err
				}
				args[i] = dir
				// Reading a run an eval is still writing is allowed (the
				// logs are append-only), but its tables are partial.
				if who, held := record.Holder(dir); held {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s is still being written by %s; the tables cover only the samples recorded so far\n", dir, who)
				}
			}
			// The first run's own config (from its manifest) unless
			// --config names another; report.* flags apply on top.
			_, cfg, err := loadRunConfig(cmd, args[0])
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
			if ro.Tables, err = runners.ParseTables(mustString(cmd, "tables")); err != nil {
				return err
			}
			ro.Union, _ = cmd.Flags().GetBool("union")
			if specs := splitList(cmd.Flags(), "judges"); len(specs) > 0 {
				for _, dir := range args {
					_, rcfg, err := loadRunConfig(cmd, dir)
					if err != nil {
						return err
					}
					if err := runners.AddJudges(cmd.Context(), dir, rcfg, specs, cmd.ErrOrStderr(), cmd.ErrOrStderr()); err != nil {
						return err
					}
				}
			}
			outDir, _ := cmd.Flags().GetString("out")
			if htmlDir, _ := cmd.Flags().GetString("html"); htmlDir != "" {
				// The page's tables are as they were before --union reached
				// it (default statistics); only the selection follows the flag.
				hro := runners.DefaultReportOptions()
				hro.Union = ro.Union
				if _, err := runners.ReportHTML(args, htmlDir, cmd.OutOrStdout(), hro); err != nil {
					return err
				}
				if outDir == "" {
					return nil
				}
			}
			if len(args) > 1 {
				if outDir == "" {
					return fmt.Errorf("several runs: give --out DIR for the combined tables")
				}
				return runners.Combine(args, outDir, cmd.OutOrStdout(), ro)
			}
			ro.OutDir = outDir
			_, err = runners.Report(args[0], cmd.OutOrStdout(), ro)
			return err
		},
	}
	addCIFlags(r)
	r.Flags().String("compare", "", "two systems to compare in detail on the same questions, per benchmark and category, e.g. arbormem,mem0")
	r.Flags().String("judges", "", `judge configurations to add before reporting: "default", "lexical" or config files (see arbor score --help)`)
	r.Flags().String("tables", "main", "tables to print: main or all (every table is written either way)")
	r.Flags().Bool("union", false, "table every sample of a run written by several selections (--limit, --episodes, systems, budgets); without it the tables cover the latest command's selection")
	r.Flags().String("out", "", "folder for the tables (one run: default <run>/tables; several runs: required, the combined tables)")
	r.Flags().String("html", "", "write a static HTML report (tables, plots, manifest, degraded counts, question browser) into this folder; open DIR/index.html (honours --union as the tables do)")
	rootCmd.AddCommand(r)
	m := &cobra.Command{
		Use:     "merge <dst-run-dir> <run-dir>...",
		Short:   "Combine runs (e.g. the shards of one plan) into one and render its tables",
		Example: `  arbor merge lme-all results/paper-main-longmemeval-shard*`,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			force, _ := cmd.Flags().GetBool("force")
			results, _ := cmd.Flags().GetString("results")
			srcs := args[1:]
			for i, a := range srcs {
				dir, err := runners.ResolveRun(a, results)
				if err != nil {
					return err
				}
				srcs[i] = dir
			}
			dst := args[0]
			if runners.CheckRunName(dst) == nil {
				dst = filepath.Join(results, dst) // a bare name is a run id under --results
			}
			_, err := runners.Merge(dst, srcs, force, cmd.OutOrStdout())
			return err
		},
	}
	m.Flags().Bool("force", false, "merge runs whose config fingerprints differ")
	rootCmd.AddCommand(m)
}

// addCIFlags registers the table-statistics flags of commands that print
// tables (config keys report.ci, report.resamples and report.interval).
func addCIFlags(c *cobra.Command) {
	c.Flags().String("ci", "off", "confidence intervals in Markdown/LaTeX tables: off, pm (68.4 ± 4.1) or interval (68.4 [64.2, 72.6]); JSON/CSV always carry them")
	c.Flags().Int("resamples", 10000, "bootstrap resamples and Monte-Carlo permutations per cell or comparison")
	c.Flags().String("interval", "studentized", "bootstrap interval (and the paired p-value read off the same resamples): studentized, percentile or basic")
}
