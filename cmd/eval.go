package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/runners"
)

// addRunFlags registers the flags every replaying command shares.
func addRunFlags(c *cobra.Command) {
	f := c.Flags()
	f.String("data", "", "dataset file or folder (BranchMemEval: default is the embedded set)")
	f.String("systems", "", "comma-separated systems (default: "+strings.Join(runners.DefaultSystems, ",")+"; also "+strings.Join(runners.ExternalSystems, ",")+", run through their own libraries: README \"Bridged systems\")")
	f.String("budget", "", "answer-time evidence budget in tokens, e.g. 4096, 4k, 32k (32k = the paper's exact 30,968); default answer.budget")
	f.String("categories", "", "comma-separated question categories to keep (LoCoMo default 1,2,3,4)")
	f.Int("limit", 0, "keep only the first N episodes")
	f.String("episodes", "", "comma-separated episode ids to run")
	f.Int("seed", 42, "seed for sampling subsets")
	f.String("shard", "", "run shard k/n of the episodes (combine shards with arbor merge)")
	f.String("run", "", "run id (folder under --results); default derived from the command so re-running resumes")
	f.Bool("force", false, "resume a run even if its config fingerprint differs")
	f.String("beam-scoring", "", "BEAM scoring protocol: corrected or official (the released evaluation code); default judge.beam_scoring (corrected)")
	f.Bool("retry-errors", false, "on resume, answer again the questions whose recorded sample is an error")
	f.String("tables", "main", "tables to print at the end: main (the run's own table) or all (also categories, BranchMemEval diagnostics, cost, judges, degraded); all are written to tables/")
	f.Bool("allow-errors", false, "exit 0 even when samples failed (they count as wrong answers); otherwise a run with failed samples exits non-zero")
	f.Bool("strict", false, "exit non-zero when any degraded count is above zero (memory fallbacks, repaired or unparsed replies, ingest errors, unparsed judge replies)")
	f.String("max-degraded", "", "with --strict semantics, tolerate degraded counts up to N% of what they count out of, e.g. 2%")
	addDryRunFlags(c)
	addCIFlags(c)
}

// planFromFlags builds the shared part of a Plan.
func planFromFlags(cmd *cobra.Command, kind, benchmark string) (runners.Plan, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return runners.Plan{}, err
	}
	f := cmd.Flags()
	p := runners.Plan{Kind: kind, Benchmark: benchmark, Config: cfg, Command: os.Args, Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr()}
	p.Data, _ = f.GetString("data")
	p.Systems = splitList(f, "systems")
	if f.Changed("systems") && len(p.Systems) == 0 {
		return p, fmt.Errorf("--systems: empty; name at least one system (%s)", strings.Join(runners.DefaultSystems, ", "))
	}
	p.Categories = splitList(f, "categories")
	p.Episodes = splitList(f, "episodes")
	p.Limit, _ = f.GetInt("limit")
	if p.Limit < 0 {
		return p, fmt.Errorf("--limit: %d must not be negative (0 keeps every episode)", p.Limit)
	}
	p.Seed, _ = f.GetInt("seed")
	p.RunID, _ = f.GetString("run")
	if err := runners.CheckRunName(p.RunID); err != nil {
		return p, err
	}
	p.Force, _ = f.GetBool("force")
	p.RetryErrors, _ = f.GetBool("retry-errors")
	if p.Tables, err = runners.ParseTables(mustString(cmd, "tables")); err != nil {
		return p, err
	}
	p.Integrity.AllowErrors, _ = f.GetBool("allow-errors")
	p.Integrity.Strict, _ = f.GetBool("strict")
	if s, _ := f.GetString("max-degraded"); s != "" {
		if p.Integrity.MaxDegraded, err = runners.ParsePercent(s); err != nil {
			return p, fmt.Errorf("--max-degraded: %w", err)
		}
		p.Integrity.Strict = true
	}
	if s, _ := f.GetString("shard"); s != "" {
		if p.Shard, err = runners.ParseShard(s); err != nil {
			return p, err
		}
	}
	if b, _ := f.GetString("budget"); b != "" {
		n, err := runners.ParseBudget(b)
		if err != nil {
			return p, fmt.Errorf("--budget: %w", err)
		}
		p.Budgets = []int{n}
	}
	return p, nil
}

func splitList(f interface{ GetString(string) (string, error) }, name string) []string {
	s, _ := f.GetString(name)
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func init() {
	c := &cobra.Command{
		Use:   "eval <benchmark>",
		Short: "Replay a benchmark through memory systems, answer, score, record and tabulate",
		Long: `Replays every episode of a benchmark (branchmemeval, longmemeval, locomo, beam)
through each memory system, answers each question from what was committed before it,
scores it by the benchmark's protocol, and appends one line per question to
results/<run>/samples.jsonl as it goes. Re-running the same command resumes.

With no flags, "arbor eval branchmemeval" runs every native system on the shipped
BranchMemEval set with the offline default and prints the table.`,
		Example: `  arbor eval branchmemeval
  arbor eval locomo --data locomo10.json --systems bm25,arbormem --budget 32k
  arbor eval longmemeval --data longmemeval_s_cleaned.json --config configs/a800.yaml --shard 1/4
  arbor eval branchmemeval --seeds 42,43,44,45,46`,
		Args: oneBenchmark,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := planFromFlags(cmd, "eval", args[0])
			if err != nil {
				return err
			}
			if s, _ := cmd.Flags().GetString("seeds"); s != "" {
				seeds, err := runners.ParseSeeds(s)
				if err != nil {
					return err
				}
				_, err = runners.EvalSeeds(cmd.Context(), p, seeds)
				return err
			}
			if done, err := dryRunIfAsked(cmd, p, nil); done {
				return err
			}
			_, err = runners.Run(cmd.Context(), p)
			return err
		},
	}
	addRunFlags(c)
	c.Flags().String("seeds", "", "branchmemeval: run on the sets generated with each seed (e.g. 42,43,44,45,46) and print the spread of accuracy over seeds beside seed 42's")
	rootCmd.AddCommand(c)
}

// oneBenchmark is the Args check of commands that take a benchmark: without
// one it lists the benchmarks, so the first try teaches the second.
func oneBenchmark(cmd *cobra.Command, args []string) error {
	if len(args) == 1 {
		return nil
	}
	if len(args) == 0 {
		return fmt.Errorf("name a benchmark: %s (e.g. %s branchmemeval)", strings.Join(datasets.Names(), ", "), cmd.CommandPath())
	}
	return fmt.Errorf("want one benchmark, got %d arguments (%s); benchmarks: %s", len(args), strings.Join(args, " "), strings.Join(datasets.Names(), ", "))
}
