package cmd

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

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
		Example: `  arbor report eval-branchmemeval-5ece2c7a-2844b3 --tables all
  arbor report eval-branchmemeval-5ece2c7a-2844b3 --out /tmp/tables
  arbor report paper-main-longmemeval --judges lexical,configs/a800-4b.yaml
  arbor report results/paper-main-* --out results/table1
  arbor report eval-branchmemeval-5ece2c7a-2844b3 --html results/site`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			results, _ := cmd.Flags().GetString("results")
			for i, a := range args {
				dir, err := runners.ResolveRun(a, results)
				if err != nil {
					return err
				}
				args[i] = dir
			}
			if specs := splitList(cmd.Flags(), "judges"); len(specs) > 0 {
				for _, dir := range args {
					_, cfg, err := loadRunConfig(cmd, dir)
					if err != nil {
						return err
					}
					if err := runners.AddJudges(cmd.Context(), dir, cfg, specs, cmd.ErrOrStderr(), cmd.ErrOrStderr()); err != nil {
						return err
					}
				}
			}
			if htmlDir, _ := cmd.Flags().GetString("html"); htmlDir != "" {
				if _, err := runners.ReportHTML(args, htmlDir, cmd.OutOrStdout()); err != nil {
					return err
				}
				if outDir, _ := cmd.Flags().GetString("out"); outDir == "" {
					return nil
				}
			}
			if len(args) > 1 {
				outDir, _ := cmd.Flags().GetString("out")
				if outDir == "" {
					return fmt.Errorf("several runs: give --out DIR for the combined tables")
				}
				return runners.Combine(args, outDir, cmd.OutOrStdout())
			}
			outDir, _ := cmd.Flags().GetString("out")
			if outDir == "" {
				outDir = filepath.Join(args[0], "tables")
			}
			which, err := runners.ParseTables(mustString(cmd, "tables"))
			if err != nil {
				return err
			}
			_, err = runners.ReportTables(args[0], outDir, cmd.OutOrStdout(), which)
			return err
		},
	}
	r.Flags().String("judges", "", `judge configurations to add before reporting: "default", "lexical" or config files (see arbor score --help)`)
	r.Flags().String("tables", "main", "tables to print: main or all (every table is written either way)")
	r.Flags().String("out", "", "folder for the tables (one run: default <run>/tables; several runs: required, the combined tables)")
	r.Flags().String("html", "", "write a static HTML report (tables, plots, manifest, degraded counts, question browser) into this folder; open DIR/index.html")
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
