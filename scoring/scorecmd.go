package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// `arbor score`: score predictions made by any system with arbor's scorers,
// or add judges to a recorded run without answering again.

// JudgeConfig is one judge configuration: an endpoint (through the judge
// role of a config) and a prompt set.
type JudgeConfig struct {
	// Name labels the configuration in scorer names; "" for the run's
	// default judge.
	Name    string
	Client  llm.Client // nil: the lexical judge
	Prompts *prompt.Set
	Judge   config.Judge
}

// LoadJudges resolves --judges specs against the base config: "default" is
// the base config's judge role, "lexical" the offline judge, and anything
// else a YAML config file layered over the embedded default whose
// models.judge, judge and prompts_dir make the judge (named after the file).
// No specs means "default".
func LoadJudges(ctx context.Context, base *config.Config, specs []string) ([]JudgeConfig, error) {
	if len(specs) == 0 {
		specs = []string{"default"}
	}
	var out []JudgeConfig
	for _, spec := range specs {
		spec = strings.TrimSpace(spec)
		cfg, name := base, ""
		switch spec {
		case "default":
		case "lexical":
			out = append(out, JudgeConfig{Name: "lexical", Prompts: prompt.Default(), Judge: config.Judge{Mode: "lexical"}})
			continue
		default:
			c, err := config.Load(spec, nil, nil)
			if err != nil {
				return nil, fmt.Errorf("--judges %s: %w", spec, err)
			}
			cfg, name = c, strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
		}
		set, err := provider.New(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("--judges %s: %w", spec, err)
		}
		ps, err := prompt.Load(cfg.PromptsDir)
		if err != nil {
			return nil, fmt.Errorf("--judges %s: %w", spec, err)
		}
		out = append(out, JudgeConfig{Name: name, Client: set.Judge, Prompts: ps, Judge: cfg.Judge})
	}
	return out, nil
}

// ScoreJob is one `arbor score` invocation.
type ScoreJob struct {
	Bench string
	// Data is the dataset file; Categories narrow its questions.
	Data       string
	Categories []string
	// Predictions is a predictions file (ReadPredictions); Run instead names
	// a run directory whose samples get the judges added.
	Predictions string
	RunDir      string
	// Out, when set with Predictions, receives scores.jsonl.
	Out string
	// System labels external predictions in tables ("external").
	System string
	Judges []JudgeConfig
	// Options carries LoCoMoJudge and BEAMOfficial; Judge and JudgeName
	// come from each JudgeConfig.
	Options Options
	Workers int
	// Load reads the dataset (datasets.Load, with the loaders registered).
	Load           func(ctx context.Context, bench, path string, opt datasets.Options) ([]datasets.Episode, error)
	Stdout, Stderr io.Writer
}

// Run executes the job and prints the per-category table of every scorer
// and, with two judges or more, their agreement.
func (j ScoreJob) Run(ctx context.Context) error {
	if j.Stdout == nil {
		j.Stdout = io.Discard
	}
	if j.Stderr == nil {
		j.Stderr = io.Discard
	}
	if j.RunDir != "" {
		return j.rescoreRun(ctx)
	}
	if j.Predictions == "" {
		return errors.New("give --predictions FILE, or --run DIR to add judges to a recorded run")
	}
	if j.Data == "" {
		return errors.New("--data is required with --predictions")
	}
	qs, scorers, err := j.prepare(ctx, true)
	if err != nil {
		return err
	}
	f, err := os.Open(j.Predictions)
	if err != nil {
		return err
	}
	preds, err := ReadPredictions(f, j.Predictions, j.Bench)
	f.Close()
	if err != nil {
		return err
	}
	scored, cov, err := ScorePredictions(ctx, qs, preds, scorers, j.Workers, j.progress())
	if err != nil {
		return err
	}
	if len(cov.Unmatched) > 0 {
		left, unknown := j.splitUnmatched(ctx, cov.Unmatched)
		if n := len(left); n > 0 {
			by := "the benchmark's default categories (--categories all scores them)"
			if len(j.Categories) > 0 {
				by = "--categories " + strings.Join(j.Categories, ",")
			}
			fmt.Fprintf(j.Stderr, "note: %d predictions are of questions left out by %s and were not scored (first: %s)\n", n, by, left[0])
		}
		if n := len(unknown); n > 0 {
			fmt.Fprintf(j.Stderr, "warning: %d predictions name no question of %s and were skipped (first: %s)\n", n, j.Data, unknown[0])
		}
	}
	if cov.Unanswered > 0 {
		fmt.Fprintf(j.Stderr, "warning: %d questions of %s have no prediction and are not scored\n", cov.Unanswered, j.Data)
	}
	system := j.System
	if system == "" {
		system = "external"
	}
	samples := ToSamples(j.Bench, system, scored, scorers)
	if err := j.printTables(samples, []string{system}); err != nil {
		return err
	}
	if j.Out == "" {
		return nil
	}
	var b bytes.Buffer
	if err := WriteScores(&b, scored, scorers); err != nil {
		return err
	}
	path := filepath.Join(j.Out, "scores.jsonl")
	if err := record.WriteFileAtomic(path, b.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(j.Stderr, "wrote %s (%d questions)\n", path, len(scored))
	return nil
}

// rescoreRun adds the judges to a run's samples.jsonl (rewritten in place,
// atomically; do not run it while the run is still appending).
func (j ScoreJob) rescoreRun(ctx context.Context) error {
	m, err := record.ReadManifest(j.RunDir)
	if err != nil {
		return err
	}
	if j.Bench == "" {
		j.Bench = m.Benchmark
	}
	if j.Bench != m.Benchmark {
		return fmt.Errorf("run %s is a %s run, not %s", j.RunDir, m.Benchmark, j.Bench)
	}
	if j.Data == "" {
		j.Data = m.Dataset.Path
	}
	path := filepath.Join(j.RunDir, "samples.jsonl")
	samples, err := record.ReadLog[record.Sample](path)
	if err != nil {
		return err
	}
	qs, scorers, err := j.prepare(ctx, false)
	if err != nil {
		return err
	}
	n, err := Rescore(ctx, samples, j.Bench, qs, scorers, j.Workers, j.progress())
	if err != nil {
		return err
	}
	if n > 0 {
		var b bytes.Buffer
		for _, s := range samples {
			line, err := json.Marshal(s)
			if err != nil {
				return err
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := record.WriteFileAtomic(path, b.Bytes()); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	fmt.Fprintf(j.Stderr, "added %d judge(s) to %d samples of %s\n", len(scorers), n, path)
	var systems []string
	seen := map[string]bool{}
	for _, s := range samples {
		if s.Benchmark == j.Bench && !seen[s.System] {
			seen[s.System] = true
			systems = append(systems, s.System)
		}
	}
	return j.printTables(samples, systems)
}

// prepare loads the questions and builds the scorers.
func (j ScoreJob) prepare(ctx context.Context, withPrimary bool) ([]*datasets.Question, []Scorer, error) {
	qs, err := j.questions(ctx)
	if err != nil {
		return nil, nil, err
	}
	scorers, err := j.scorers(withPrimary)
	return qs, scorers, err
}

// splitUnmatched tells the unmatched prediction ids of questions that
// --categories left out from ids the data does not hold at all.
func (j ScoreJob) splitUnmatched(ctx context.Context, ids []string) (left, unknown []string) {
	if j.Load == nil {
		return nil, ids
	}
	eps, err := j.Load(ctx, j.Bench, j.Data, datasets.Options{Categories: []string{"all"}})
	if err != nil {
		return nil, ids
	}
	all := map[string]bool{}
	for _, e := range eps {
		for _, q := range e.Questions() {
			all[q.ID] = true
		}
	}
	for _, id := range ids {
		if all[id] {
			left = append(left, id)
		} else {
			unknown = append(unknown, id)
		}
	}
	return left, unknown
}

func (j ScoreJob) questions(ctx context.Context) ([]*datasets.Question, error) {
	if j.Load == nil {
		return nil, errors.New("no dataset loader")
	}
	eps, err := j.Load(ctx, j.Bench, j.Data, datasets.Options{Categories: j.Categories})
	if err != nil {
		return nil, err
	}
	var qs []*datasets.Question
	for _, e := range eps {
		qs = append(qs, e.Questions()...)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no questions", j.Data)
	}
	return qs, nil
}

// scorers builds the primary scorer (when withPrimary) and every judge
// configuration's scorers; two configurations yielding one name is an
// error, since their scores would overwrite each other.
func (j ScoreJob) scorers(withPrimary bool) ([]Scorer, error) {
	judges := j.Judges
	if len(judges) == 0 {
		judges = []JudgeConfig{{Prompts: prompt.Default(), Judge: j.Options.Judge}}
	}
	var out []Scorer
	seen := map[string]bool{}
	for i, jc := range judges {
		opt := j.Options
		opt.Judge, opt.JudgeName = jc.Judge, jc.Name
		var ss []Scorer
		var err error
		if i == 0 && withPrimary {
			ss, err = ForBenchmark(j.Bench, jc.Client, jc.Prompts, opt)
		} else {
			ss, err = JudgeScorers(j.Bench, jc.Client, jc.Prompts, opt)
		}
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			if seen[s.Name()] {
				return nil, fmt.Errorf("two judge configurations both score as %s: give them different names", s.Name())
			}
			seen[s.Name()] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no judge to add", j.Bench)
	}
	return out, nil
}

// progress reports plain lines at every tenth of the work.
func (j ScoreJob) progress() func(done, total int) {
	return func(done, total int) {
		if total >= 20 && done%(total/10) == 0 || done == total {
			fmt.Fprintf(j.Stderr, "scored %d/%d\n", done, total)
		}
	}
}

func (j ScoreJob) printTables(samples []record.Sample, systems []string) error {
	var ts []table.Table
	for _, sys := range systems {
		ts = append(ts, JudgeTable(j.Bench, sys, samples))
	}
	if len(ScorerNames(samples)) > 1 {
		ts = append(ts, JudgeAgreementTable(samples))
	}
	for _, t := range ts {
		if _, err := fmt.Fprintln(j.Stdout, t.Markdown()); err != nil {
			return err
		}
	}
	return nil
}
