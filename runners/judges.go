package runners

import (
	"context"
	"io"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
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
