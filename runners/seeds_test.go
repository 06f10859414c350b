package runners

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets/branchmemeval"
	"github.com/arbor-eval/arbor/pkg/stats"
)

func TestParseSeeds(t *testing.T) {
	if got, err := ParseSeeds(" 42, 43,7 "); err != nil || len(got) != 3 || got[2] != 7 {
		t.Errorf("ParseSeeds = %v, %v", got, err)
	}
	for _, bad := range []string{"42", "42,x", "42,42", ""} {
		if _, err := ParseSeeds(bad); err == nil {
			t.Errorf("ParseSeeds(%q) accepted", bad)
		}
	}
}

// TestGenerateSeeds: each seed's set is written, and the seed-42 column is
// the shipped set's own figure.
func TestGenerateSeeds(t *testing.T) {
	dir := t.TempDir()
	tb, err := GenerateSeeds(context.Background(), []int64{43, 42}, dir, wordCounter{}, "words")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"branchmemeval-seed42.json", "branchmemeval-seed43.json"} {
		if _, err := os.Stat(filepath.Join(dir, s)); err != nil {
			t.Error(err)
		}
	}
	f, err := branchmemeval.Parse(branchmemeval.Shipped(), "shipped")
	if err != nil {
		t.Fatal(err)
	}
	st := branchmemeval.ComputeStats(f, wordCounter{}, "")
	if tb.Columns[0].Name != "Seed 42" || tb.Rows[1].Label != "Tokens per session (mean)" || math.Abs(*tb.Rows[1].Cells[0].Value-st.MeanTokens) > 1e-9 {
		t.Errorf("seed-42 column: %s %s = %v, shipped set %v", tb.Columns[0].Name, tb.Rows[1].Label, *tb.Rows[1].Cells[0].Value, st.MeanTokens)
	}
	if sd := *tb.Rows[1].Cells[2].Value; sd <= 0 {
		t.Errorf("two different sets, token SD %v", sd)
	}
}

// TestEvalSeeds runs one system on one episode of the sets of two seeds:
// the seed-42 figure is the plain run's, the mean is the two runs' mean.
func TestEvalSeeds(t *testing.T) {
	cfg := testConfig(t)
	var out, log bytes.Buffer
	p := Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"arbormem"}, Config: cfg, Out: &out, Log: &log}
	tb, err := EvalSeeds(deadline(t), p, []int64{42, 44})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	want := readTable(t, plain.Dir, "main").value(t, "BranchMemEval", "ArborMem")
	if tb.Rows[0].Label != "ArborMem" || math.Abs(*tb.Rows[0].Cells[0].Value-want) > 1e-9 {
		t.Fatalf("row %q seed 42 = %v, plain run %v", tb.Rows[0].Label, *tb.Rows[0].Cells[0].Value, want)
	}
	if !strings.Contains(log.String(), "seed 44: ") || !strings.Contains(out.String(), "Answer accuracy (%) across generated sets") {
		t.Errorf("output:\n%s\nlog:\n%s", out.String(), log.String())
	}
	seed44 := filepath.Join(cfg.Run.Results, "branchmemeval-sets", "branchmemeval-seed44.json")
	if _, err := os.Stat(seed44); err != nil {
		t.Fatal(err)
	}
	other, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Data: seed44, Limit: 1, Systems: []string{"arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	v44 := readTable(t, other.Dir, "main").value(t, "BranchMemEval", "ArborMem")
	if sm := stats.Summarize([]float64{want, v44}); math.Abs(*tb.Rows[0].Cells[1].Value-sm.Mean) > 1e-9 || math.Abs(*tb.Rows[0].Cells[2].Value-sm.SD) > 1e-9 {
		t.Errorf("mean/SD %v/%v, want %v/%v", *tb.Rows[0].Cells[1].Value, *tb.Rows[0].Cells[2].Value, sm.Mean, sm.SD)
	}
	if _, err := EvalSeeds(context.Background(), Plan{Benchmark: "locomo", Config: cfg}, []int64{42, 43}); err == nil {
		t.Error("--seeds on LoCoMo accepted")
	}
	if _, err := EvalSeeds(context.Background(), Plan{Benchmark: "branchmemeval", Data: "x.json", Config: cfg}, []int64{42, 43}); err == nil {
		t.Error("--seeds with --data accepted")
	}
}

func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"42,43", "42", "", "1,1", "-3, 9", "x,1", "99999999999999999999,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seeds, err := ParseSeeds(s)
		if err != nil {
			return
		}
		seen := map[int64]bool{}
		for _, n := range seeds {
			if seen[n] {
				t.Fatalf("ParseSeeds(%q) = %v: duplicate", s, seeds)
			}
			seen[n] = true
		}
		if len(seeds) < 2 {
			t.Fatalf("ParseSeeds(%q) = %v: fewer than two", s, seeds)
		}
	})
}

func FuzzParseCompare(f *testing.F) {
	for _, s := range []string{"arbormem,mem0", "a", ",", "a,b,c", " a , b "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pair, err := ParseCompare(s)
		if err != nil || pair == nil {
			return
		}
		if len(pair) != 2 || pair[0] == "" || pair[1] == "" {
			t.Fatalf("ParseCompare(%q) = %q", s, pair)
		}
	})
}

// wordCounter counts whitespace-separated words: a cheap stand-in for the
// Qwen3 tokenizer, which these tests do not need.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }
