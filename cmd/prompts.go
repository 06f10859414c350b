package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/prompt/importer"
)

func init() {
	prompts := &cobra.Command{Use: "prompts", Short: "Work with prompt templates (import the paper's own wording)"}
	var out string
	imp := &cobra.Command{
		Use:   "import PAPER.tex|evaluate_qa.py --out DIR",
		Short: "Write the paper's prompts (its arbormempromptbox environments), or LongMemEval's official judges, as a prompts_dir",
		Long: `Reads the ArborMem paper's LaTeX source, takes every arbormempromptbox
environment of appendix D (LaTeX escapes of the titles undone; the boxes are
verbatim listings), and writes one template per prompt into DIR, which
prompts_dir accepts: "arbor eval … --config" with prompts_dir: DIR then runs
the paper's exact text. Reports the prompts of arbor it did not find, the
output-schema fields that differ from arbor's parsers, and the inputs arbor
passes that the paper's text has no placeholder for (appended after it).
Refuses a file with no prompt box. The repository never holds the paper's
text.

Given LongMemEval's own src/evaluation/evaluate_qa.py instead, it writes the
official judge prompts (judge_lme_*), so that with that prompts_dir and
judge.parse: official an "official" LongMemEval score is the official judge's
text and reading. BEAM's rubric judge is not imported yet.`,
		Example: `  arbor prompts import ../shared/spec/arbormem-paper.tex --out paper-prompts
  printf 'prompts_dir: paper-prompts\n' > paper.yaml && arbor eval branchmemeval --config paper.yaml
  arbor prompts import LongMemEval/src/evaluation/evaluate_qa.py --out paper-prompts`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("prompts import: --out DIR is required")
			}
			src, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("prompts import: %w", err)
			}
			var r importer.Report
			if strings.Contains(string(src), "def get_anscheck_prompt") {
				r, err = importer.ImportJudges(string(src), out)
			} else {
				r, err = importer.Import(string(src), out, nil)
			}
			if err != nil {
				return fmt.Errorf("prompts import %s: %w", args[0], err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %d prompts to %s: %s\n", len(r.Written), out, strings.Join(r.Written, ", "))
			for _, l := range []struct {
				head string
				xs   []string
			}{{"not found in the paper", r.Missing}, {"schema fields differing from arbor's parsers", r.SchemaDiffs},
				{"arbor inputs appended (no placeholder in the paper)", r.Appended}, {"boxes naming no arbor prompt", r.Unknown}} {
				if len(l.xs) > 0 {
					fmt.Fprintf(w, "%s:\n  %s\n", l.head, strings.Join(l.xs, "\n  "))
				}
			}
			return nil
		},
	}
	imp.Flags().StringVar(&out, "out", "", "prompts directory to write (created if needed)")
	prompts.AddCommand(imp)
	rootCmd.AddCommand(prompts)
}
