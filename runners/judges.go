package runners

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/prompt/importer"
	"github.com/arbor-eval/arbor/scoring"
)

// AddJudges scores a recorded run's predictions again with further judge
// configurations (specs as for `arbor score --judges`), without answering
// again, and records their verdicts beside the existing scores.
func AddJudges(ctx context.Context, dir string, cfg *config.Config, specs []string, stdout, stderr io.Writer) error {
	judges, err := scoring.LoadJudges(ctx, cfg, specs)
	if err != nil {
		return err
	}
	job := scoring.ScoreJob{RunDir: dir, Judges: judges, Load: datasets.Load, Stdout: stdout, Stderr: stderr,
		Options: scoring.Options{Judge: cfg.Judge, BEAMOfficial: cfg.Judge.OfficialBEAM()}}
	return job.Run(ctx)
}

// officialJudgeNote says, for a model-judged run read officially
// (judge.parse: official, or judge.beam_scoring: official on BEAM), which
// of the benchmark's judge prompts are still arbor's wording rather than the
// official text that `arbor prompts import` reads from the benchmark's own
// code: an official reading of a reworded prompt is not the official judge.
// For a corrected BEAM run it says when an overriding rubric prompt has no
// place for the question. "" when there is nothing to say.
func officialJudgeNote(cfg *config.Config, prompts *prompt.Set, benchmark string, modelJudged bool) string {
	official := cfg.Judge.Parse == "official" || benchmark == "beam" && cfg.Judge.OfficialBEAM()
	names := importer.JudgeNames[benchmark]
	if !modelJudged || len(names) == 0 {
		return ""
	}
	if !official {
		// The corrected BEAM protocol shows the judge the question; an
		// imported rubric prompt without a place for it does not.
		if benchmark == "beam" && slices.Contains(prompts.Overridden, "judge_beam_rubric") {
			if text, err := prompts.Text("judge_beam_rubric"); err == nil && !strings.Contains(text, "{{.Question}}") {
				return "the corrected BEAM protocol with a judge_beam_rubric that has no place for the question: the judge will not see it (set judge.beam_scoring: official, or drop the override)"
			}
		}
		return ""
	}
	var ours []string
	for _, n := range names {
		if !slices.Contains(prompts.Overridden, n) {
			ours = append(ours, n)
		}
	}
	if len(ours) == 0 {
		return ""
	}
	return fmt.Sprintf("official judging with arbor's own wording of %s; for the official text, import the benchmark's judges (`arbor prompts import` on its evaluation code) into prompts_dir", strings.Join(ours, ", "))
}
