package runners

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/table"
)

// TestReportStatistics: a run's JSON and CSV tables always carry intervals;
// --ci shows them in the printed Markdown, and --compare writes and prints
// the pair's detailed comparison.
func TestReportStatistics(t *testing.T) {
	cfg := testConfig(t)
	run, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 2, Systems: []string{"bm25", "arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(run.Dir, "tables", "main.json"))
	if err != nil {
		t.Fatal(err)
	}
	var main struct {
		Rows []struct {
			Cells []struct {
				CI *table.Interval `json:"ci"`
			} `json:"cells"`
		} `json:"rows"`
		Stats *table.StatsInfo `json:"stats"`
	}
	if err := json.Unmarshal(b, &main); err != nil {
		t.Fatal(err)
	}
	if main.Stats == nil || len(main.Rows) == 0 || main.Rows[0].Cells[0].CI == nil {
		t.Fatalf("main.json lacks intervals:\n%s", b)
	}
	csvData, _ := os.ReadFile(filepath.Join(run.Dir, "tables", "main.csv"))
	if !strings.Contains(string(csvData), "ArborMem CI low") {
		t.Errorf("main.csv lacks interval columns:\n%s", csvData)
	}

	o, err := ReportOptionsFrom(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o.Stats.Resamples = 1000
	o.CIForm = table.CIBrackets
	o.Tables = TablesAll // the diagnostics carry intervals too
	if o.Compare, err = ParseCompare("arbormem, BM25"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Report(run.Dir, &out, o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ArborMem vs. BM25: paired comparison", "Values carry the bounds of the 95% confidence interval", "**40.0** ["} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(run.Dir, "tables", "compare-arbormem-bm25.csv")); err != nil {
		t.Error(err)
	}
	o.Compare = []string{"arbormem", "graphiti"}
	if _, err := Report(run.Dir, io.Discard, o); err == nil || !strings.Contains(err.Error(), "graphiti") {
		t.Errorf("unknown system in --compare: %v", err)
	}
	for _, bad := range []string{"arbormem", "a,b,c", ",mem0"} {
		if _, err := ParseCompare(bad); err == nil {
			t.Errorf("ParseCompare(%q) accepted", bad)
		}
	}
}
