package runners

import (
	"io"
	"path/filepath"
	"testing"
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
