package runners

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/datasets/branchmemeval"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/pkg/tokens"
	"github.com/arbor-eval/arbor/scoring"
)

// ParseSeeds reads a --seeds list ("42,43,44"): distinct integers, at
// least two (one seed has no spread).
func ParseSeeds(s string) ([]int64, error) {
	var out []int64
	seen := map[int64]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds %q: %q is not an integer", s, part)
		}
		if seen[n] {
			return nil, fmt.Errorf("--seeds %q: seed %d given twice", s, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("--seeds %q: want at least two seeds, e.g. 42,43,44,45,46", s)
	}
	return out, nil
}

// refSeed is the seed whose figure the spread is shown beside: the shipped
// set's when it is among the seeds, else the first.
func refSeed(seeds []int64) int64 {
	for _, s := range seeds {
		if s == branchmemeval.DefaultSeed {
			return s
		}
	}
	return seeds[0]
}

// GenerateSeeds generates a BranchMemEval set per seed, writes each to
// dir/branchmemeval-seed<N>.json when dir is not "", and returns the spread
// of the sets' composition figures that vary with the seed (turns, tokens
// and branches per session) beside the reference seed's. counter counts
// the tokens (tokens.Default() for the paper's Qwen3 counts), named by
// counterName in the caption.
func GenerateSeeds(ctx context.Context, seeds []int64, dir string, counter tokens.Counter, counterName string) (table.Table, error) {
	rows := []scoring.SpreadRow{
		{Label: "Turns per session (mean)", Decimals: 2}, {Label: "Tokens per session (mean)", Decimals: 1},
		{Label: "Tokens per session (min)", Decimals: 0}, {Label: "Tokens per session (max)", Decimals: 0},
		{Label: "Branches per session (mean)", Decimals: 2},
	}
	for i := range rows {
		rows[i].Values = map[int64]float64{}
	}
	for _, seed := range seeds {
		f, err := branchmemeval.Generate(ctx, branchmemeval.Options{Seed: seed})
		if err != nil {
			return table.Table{}, fmt.Errorf("generate seed %d: %w", seed, err)
		}
		if dir != "" {
			if err := writeSet(f, setPath(dir, seed)); err != nil {
				return table.Table{}, err
			}
		}
		st := branchmemeval.ComputeStats(f, counter, counterName)
		branches := 0
		for _, s := range st.PerSession {
			branches += s.Branches
		}
		for i, v := range []float64{st.MeanTurns, st.MeanTokens, float64(st.MinTokens), float64(st.MaxTokens), float64(branches) / float64(max(st.Sessions, 1))} {
			rows[i].Values[seed] = v
		}
	}
	return scoring.SpreadTable("BranchMemEval composition across generated sets",
		"Figures of the BranchMemEval sets generated with each seed (the composition of sessions, questions and dimensions is fixed by appendix B.1 and does not vary); tokens are "+counterName+".",
		refSeed(seeds), seeds, rows), nil
}

func setPath(dir string, seed int64) string {
	return filepath.Join(dir, fmt.Sprintf("branchmemeval-seed%d.json", seed))
}

func writeSet(f *branchmemeval.File, path string) error {
	b, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return record.WriteFileAtomic(path, b)
}

// EvalSeeds runs p (a BranchMemEval eval) once per seed: the shipped set
// for seed 42, a set generated with the seed (written under
// <run.results>/branchmemeval-sets/) for the others, each as its own
// resumable run. It prints each run's folder to p.Log and the spread of
// every system's accuracy, overall and by dimension, beside the reference
// seed's to p.Out, and writes that table under
// <run.results>/seeds-<reference run>/tables/accuracy-spread.*.
func EvalSeeds(ctx context.Context, p Plan, seeds []int64) (table.Table, error) {
	if p.Benchmark != branchmemeval.Name {
		return table.Table{}, fmt.Errorf("--seeds: only %s sets are generated (benchmark %q)", branchmemeval.Name, p.Benchmark)
	}
	if p.Data != "" {
		return table.Table{}, fmt.Errorf("--seeds generates the sets: leave out --data %s", p.Data)
	}
	if p.Config == nil {
		return table.Table{}, fmt.Errorf("plan has no config")
	}
	out, log := p.Out, p.Log
	if out == nil {
		out = io.Discard
	}
	if log == nil {
		log = io.Discard
	}
	runs := map[int64][]record.Sample{}
	ref := refSeed(seeds)
	refDir := ""
	for _, seed := range seeds {
		sub := p
		sub.Out = io.Discard
		if seed != branchmemeval.DefaultSeed {
			f, err := branchmemeval.Generate(ctx, branchmemeval.Options{Seed: seed})
			if err != nil {
				return table.Table{}, fmt.Errorf("generate seed %d: %w", seed, err)
			}
			sub.Data = setPath(filepath.Join(p.Config.Run.Results, "branchmemeval-sets"), seed)
			if err := writeSet(f, sub.Data); err != nil {
				return table.Table{}, err
			}
		}
		o, err := Run(ctx, sub)
		if err != nil {
			return table.Table{}, fmt.Errorf("seed %d: %w", seed, err)
		}
		fmt.Fprintf(log, "seed %d: %s\n", seed, o.Dir)
		runs[seed] = o.Samples
		if seed == ref {
			refDir = o.Dir
		}
	}
	t := scoring.SeedAccuracyTable(runs, ref, seeds)
	tdir := filepath.Join(p.Config.Run.Results, "seeds-"+filepath.Base(refDir), "tables")
	if err := writeTables(tdir, "seeds-"+filepath.Base(refDir), []namedTable{{"accuracy-spread", t, true}}, out, false); err != nil {
		return table.Table{}, err
	}
	fmt.Fprintf(out, "spread over seeds: %s\n", tdir)
	return t, nil
}
