package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/runners"
)

func init() {
	var opts runners.DoctorOptions
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the configured endpoints against what the model path assumes, before the first real run",
		Long: `Probe every configured endpoint and run ArborMem's model path on a small slice,
and print one verdict per line (ok, warn, fail), each with the fix and the config key
to change:

  roles       reachable, the served model id, the context length against answer.*
  chat        thinking mode as configured (answer.enable_thinking, sent as Qwen3's
              chat_template_kwargs), JSON mode honoured, deterministic at temperature 0
  embed       dimension against models.embed.dim, unit length, a paraphrase scored
              above an unrelated sentence
  rerank      the score scale returned (logit or probability) against
              models.rerank.scores and arbormem.ce_score; the instruction prefix
              (arbormem.rerank_instruction) accepted
  tokenizer   the server's /tokenize counts against the local Qwen3 counter
  slice       ArborMem on two BranchMemEval episodes (or --benchmark/--data): the
              parse rate of every memory prompt, repaired and unparsed replies, and
              the forest (new roots, roots against gold branches, depth, question-parent
              accuracy), with a warning when it degenerates; then the forest under each
              scoring reading (ce-logit, ce-scaled, no-rerank-instruction, tau=6, tau=10)

and, from the measured per-role latency and throughput, the wall time and GPU-hours
of each scripts/reproduce-paper.sh step, with the assumption stated. It exits with an
error when a line fails. Nothing is written to results/.`,
		Example: `  arbor doctor --config configs/a800.yaml
  arbor doctor --config configs/fake-endpoint.yaml --no-readings
  arbor doctor --config configs/a800.yaml --benchmark locomo --data locomo10.json --episodes 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			opts.Log = cmd.ErrOrStderr()
			r, err := runners.Doctor(cmd.Context(), cfg, opts)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				err = enc.Encode(r)
			} else {
				err = runners.WriteDoctor(cmd.OutOrStdout(), r)
			}
			if err != nil {
				return err
			}
			if n := r.Failed(); n > 0 {
				return fmt.Errorf("doctor: %d checks failed; apply the fixes above", n)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Benchmark, "benchmark", "branchmemeval", "benchmark of the slice")
	f.StringVar(&opts.Data, "data", "", "dataset file of the slice (default: the embedded BranchMemEval set)")
	f.IntVar(&opts.Episodes, "episodes", 2, "episodes in the slice")
	f.BoolVar(&opts.NoSlice, "no-slice", false, "probe the endpoints only")
	f.BoolVar(&opts.NoReadings, "no-readings", false, "skip the slice's ingestion under each scoring reading")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	rootCmd.AddCommand(c)
}
