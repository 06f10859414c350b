package cmd

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/prompt/importer"
)

func init() {
	prompts := &cobra.Command{Use: "prompts", Short: "Work with prompt templates (import the paper's own wording)"}
	var out string
	imp := &cobra.Command{
		Use:   "import PAPER.tex | EVAL_CODE... --out DIR",
		Short: "Write the paper's prompts (its arbormempromptbox environments), or the benchmarks' official judges, as a prompts_dir",
		Long: `Reads the ArborMem paper's LaTeX source, takes every arbormempromptbox
environment of appendix D (LaTeX escapes of the titles undone; the boxes are
verbatim listings), and writes one template per prompt into DIR, which
prompts_dir accepts: "arbor eval … --config" with prompts_dir: DIR then runs
the paper's exact text. Reports the prompts of arbor it did not find, the
output-schema fields that differ from arbor's parsers, and the inputs arbor
passes that the paper's text has no placeholder for (appended after it).
Refuses a file with no prompt box. The repository never holds the paper's
text.

Given a benchmark's own evaluation code instead (Python files, or a checkout
of the benchmark's repository), it writes the official judge prompts:
LongMemEval's src/evaluation/evaluate_qa.py (judge_lme_*), BEAM's
src/prompts.py with evaluation.py (judge_beam_rubric, and
judge_beam_equivalence with the system message the code sends). The code is
read as it builds its prompt strings (string literals, f-strings, str.format,
%-formatting, .replace chains, dicts of templates by question type), each
template mapped to arbor's judge inputs. With that prompts_dir and
judge.parse: official (judge.beam_scoring: official for BEAM), an "official"
score is the official judge's text and reading. Code holding no judge prompt
is refused.`,
		Example: `  arbor prompts import ../shared/spec/arbormem-paper.tex --out paper-prompts
  printf 'prompts_dir: paper-prompts\n' > paper.yaml && arbor eval branchmemeval --config paper.yaml
  arbor prompts import LongMemEval/src/evaluation/evaluate_qa.py --out paper-prompts
  arbor prompts import BEAM --out paper-prompts   # a checkout: src/prompts.py and evaluation.py`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("prompts import: --out DIR is required")
			}
			var r importer.Report
			if slices.ContainsFunc(args, importer.IsJudgeSource) {
				srcs, err := importer.JudgeSources(args)
				if err != nil {
					return fmt.Errorf("prompts import: %w", err)
				}
				if r, err = importer.ImportJudges(srcs, out); err != nil {
					return fmt.Errorf("prompts import %s: %w", strings.Join(args, " "), err)
				}
			} else {
				if len(args) > 1 {
					return fmt.Errorf("prompts import: one paper source at a time (got %d files)", len(args))
				}
				src, err := os.ReadFile(args[0])
				if err != nil {
					return fmt.Errorf("prompts import: %w", err)
				}
				if r, err = importer.Import(string(src), out, nil); err != nil {
					return fmt.Errorf("prompts import %s: %w", args[0], err)
				}
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %d prompts to %s: %s\n", len(r.Written), out, strings.Join(r.Written, ", "))
			for _, l := range []struct {
				head string
				xs   []string
			}{{"read from", r.From}, {"not found", r.Missing}, {"schema fields differing from arbor's parsers", r.SchemaDiffs},
				{"arbor inputs appended (no placeholder in the paper)", r.Appended}, {"boxes naming no arbor prompt", r.Unknown},
				{"placeholders the official code never fills", r.Unfilled}} {
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
