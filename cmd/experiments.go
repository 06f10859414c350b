package cmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/runners"
)

func init() {
	sweep := &cobra.Command{Use: "sweep", Short: "Parameter sweeps (read-budget analysis)"}
	budgets := &cobra.Command{
		Use:   "budgets",
		Short: "Read-budget sweep: ingest each episode once per system, answer at every budget (paper §6.3)",
		Long: `Samples a fixed subset of episodes with --seed (the paper's 50 LongMemEval questions,
seed 42), ingests each episode once per system, then recalls and answers every question
at every budget. 32k means the paper's exact 30,968 tokens. Prints the read-budget
tables for accuracy and evidence recall and writes SVG line plots (log-scale budgets)
under results/<run>/tables/.`,
		Example: `  arbor sweep budgets --benchmark branchmemeval --subset 10
  arbor sweep budgets --benchmark longmemeval --data longmemeval_s_cleaned.json --config configs/a800.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("budget") {
				return errors.New("sweep budgets takes --budgets (a list), not --budget")
			}
			p, err := experimentPlan(cmd, "sweep")
			if err != nil {
				return err
			}
			if p.Budgets, err = runners.ParseBudgets(mustString(cmd, "budgets")); err != nil {
				return fmt.Errorf("--budgets: %w", err)
			}
			if done, err := dryRunIfAsked(cmd, p, nil); done {
				return err
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
no-keyword-routing, no-atomic-facts, no-structured-extraction, no-structured-evidence)
at the 32K budget. Variants that change only recall (no-localization, no-atomic-facts,
no-structured-evidence) are answered from the reference instance's ingestion; the others
ingest separately. The log and the table's note say which.

--models runs the whole ablation once per model and prints one table with one column
per model (the paper's Table "ablation"). Each entry is a full config file, as for
--config, optionally named: "30B=configs/a800.yaml,4B=configs/a800-4b.yaml". Unnamed
entries are named after their chat model. Each model's run is kept under
results/<run>/models/<name>/; results/<run>/samples.jsonl holds every sample labelled
with its model.`,
		Example: `  arbor ablate --benchmark branchmemeval --subset 10
  arbor ablate --data longmemeval_s_cleaned.json --models 30B=configs/a800.yaml,4B=configs/a800-4b.yaml
  arbor ablate --benchmark branchmemeval --subset 0 --variants ce-logit,ce-scaled,no-rerank-instruction,tau=6,tau=10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := experimentPlan(cmd, "ablate")
			if err != nil {
				return err
			}
			if v, _ := cmd.Flags().GetString("variants"); v != "" {
				p.Variants = runners.ParseVariants(v)
			}
			models, err := modelsFromFlags(cmd)
			if err != nil {
				return err
			}
			if done, err := dryRunIfAsked(cmd, p, models); done {
				return err
			}
			_, err = runners.AblateModels(cmd.Context(), p, models)
			return err
		},
	}
	addExperimentFlags(ablate)
	ablate.Flags().String("variants", "", "comma-separated variants instead of the five component ablations, the reference always included: ablations, or the scoring readings ce-logit, ce-scaled, no-rerank-instruction, tau=<τ> (each ingests on its own; a readings table adds new-root share and question-parent accuracy)")
	ablate.Flags().String("models", "", "comma-separated [name=]config.yaml, one ablation per model and one table column each (replaces --config)")
	rootCmd.AddCommand(ablate)

	latency := &cobra.Command{
		Use:   "latency",
		Short: "Matched efficiency and cost tables: sequential runs, per-call timings (paper §6.4)",
		Long: `Runs the chosen systems one episode at a time with the response cache off, at the
2K answer budget (--budget to change it) and the config's memory-operation budget
(arbormem.memory_op_max_tokens, 4K by default, as in the paper), and prints the
efficiency table (ingest per interaction, query preparation, time to first token, full
query, total time, questions per hour) and the model-usage table (calls and tokens per
ingested interaction and per question, by role; mean evidence tokens), both computed
from the per-call timings and counts in the samples.`,
		Example: `  arbor latency --benchmark longmemeval --data longmemeval_s_cleaned.json --config configs/efficiency.yaml --systems arbormem`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := experimentPlan(cmd, "latency")
			if err != nil {
				return err
			}
			if done, err := dryRunIfAsked(cmd, p, nil); done {
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
	c.Flags().String("subset-ids", "", "file of episode or question ids, one per line, pinning the subset instead of sampling it (a run's subset.txt works)")
}

func experimentPlan(cmd *cobra.Command, kind string) (runners.Plan, error) {
	bench, _ := cmd.Flags().GetString("benchmark")
	p, err := planFromFlags(cmd, kind, bench)
	if err != nil {
		return p, err
	}
	p.Subset, _ = cmd.Flags().GetInt("subset")
	if f, _ := cmd.Flags().GetString("subset-ids"); f != "" {
		if p.SubsetIDs, err = runners.ReadSubsetIDs(f); err != nil {
			return p, err
		}
	}
	return p, nil
}

func mustString(cmd *cobra.Command, name string) string {
	s, _ := cmd.Flags().GetString(name)
	return s
}

// modelsFromFlags loads --models: each entry a config file loaded as
// --config would be (over the embedded default, with the run flags on top),
// named by "name=" or after its chat model, or else its file name.
func modelsFromFlags(cmd *cobra.Command) ([]runners.Model, error) {
	entries := splitList(cmd.Flags(), "models")
	if len(entries) == 0 {
		return nil, nil
	}
	if cmd.Flags().Changed("config") {
		return nil, errors.New("--models replaces --config: give each model's full config file in --models")
	}
	var out []runners.Model
	for i, e := range entries {
		name, file, named := strings.Cut(e, "=")
		if !named {
			name, file = "", e
		}
		name, file = strings.TrimSpace(name), strings.TrimSpace(file)
		if file == "" || (named && name == "") {
			return nil, fmt.Errorf("--models entry %d %q: expected [name=]config.yaml", i+1, e)
		}
		cfg, err := config.Load(file, cmd.Flags(), flagKeys)
		if err != nil {
			return nil, fmt.Errorf("--models entry %d: %w", i+1, err)
		}
		if np, _ := cmd.Flags().GetBool("no-progress"); np {
			cfg.Run.Progress = false
		}
		if name == "" {
			name = runners.ModelName(cfg)
			if name == "local" {
				name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
			}
		}
		out = append(out, runners.Model{Name: name, Config: cfg})
	}
	return out, nil
}
