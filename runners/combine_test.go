package runners

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
)

// TestCombineBuildsTableOne: one run per benchmark, combined, gives the
// paper's Table 1 layout with each run's own accuracy in its row.
func TestCombineBuildsTableOne(t *testing.T) {
	cfg := testConfig(t)
	systems := []string{"bm25", "arbormem"}
	lo, err := Run(deadline(t), Plan{Benchmark: "locomo", Data: "../datasets/locomo/testdata/locomo10.json", Systems: systems, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	bme, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: systems, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "table1")
	if err := Combine([]string{lo.Dir, bme.Dir}, out, io.Discard); err != nil {
		t.Fatal(err)
	}
	combined := readTable(t, out, "main")
	for _, run := range []struct{ dir, row string }{{lo.Dir, "LoCoMo (token F1)"}, {bme.Dir, "BranchMemEval"}} {
		own := readTable(t, run.dir, "main")
		for _, col := range []string{"BM25", "ArborMem"} {
			if got, want := combined.value(t, run.row, col), own.value(t, run.row, col); got != want {
				t.Errorf("%s/%s: combined %v, run's own %v", run.row, col, got, want)
			}
		}
	}
	for _, name := range []string{"bme", "categories-locomo"} {
		readTable(t, out, name)
	}
}

// TestCombineWarns: combining a heuristic run with a model run, or two
// runs of one benchmark, says so on the terminal and in the table notes.
func TestCombineWarns(t *testing.T) {
	cfg := testConfig(t)
	a, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"recent"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"bm25"}, RunID: "second", Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	// Make the second look like a model run.
	m, err := record.ReadManifest(b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Heuristic = nil
	if err := record.WriteManifest(b.Dir, m); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	dst := filepath.Join(t.TempDir(), "t1")
	if err := Combine([]string{a.Dir, b.Dir}, dst, &out); err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(readTable(t, dst, "main").Notes, "\n")
	for _, want := range []string{"heuristic runs (" + filepath.Base(a.Dir) + ") with model runs (second)", "2 runs of branchmemeval"} {
		if !strings.Contains(out.String(), want) || !strings.Contains(notes, want) {
			t.Errorf("no warning %q:\n%s\nnotes: %s", want, out.String(), notes)
		}
	}
	if !strings.Contains(readFileString(t, filepath.Join(dst, "tables", "main.tex")), `\label{tab:t1:main}`) {
		t.Error("combined LaTeX label does not name the output")
	}
}

// TestLatencyTitleOnlyWhenMatched: an eval's timings are not titled as the
// matched comparison; a latency run without cache hits is.
func TestLatencyTitleOnlyWhenMatched(t *testing.T) {
	s := []record.Sample{{Benchmark: "b", System: "bm25", Question: "q", Calls: map[string]record.Calls{"chat": {Count: 1}}}}
	if got := latencyTable("latency", s, nil).Title; got != "Matched efficiency comparison" {
		t.Errorf("latency run: %q", got)
	}
	if got := latencyTable("eval", s, nil); got.Title == "Matched efficiency comparison" || !strings.Contains(strings.Join(got.Notes, " "), "concurrently") {
		t.Errorf("eval: %q %q", got.Title, got.Notes)
	}
	s[0].Calls["chat"] = record.Calls{Count: 1, CacheHits: 1}
	if got := latencyTable("latency", s, nil); got.Title == "Matched efficiency comparison" || !strings.Contains(strings.Join(got.Notes, " "), "1 model replies came from a cache") {
		t.Errorf("cached latency run: %q %q", got.Title, got.Notes)
	}
}

func readFileString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
