package runners

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/scoring"
)

// namedTable is one rendered table and whether the run's kind prints it.
type namedTable struct {
	name  string
	t     table.Table
	print bool
}

// Report rebuilds every table of a run from samples.jsonl and episodes.jsonl
// alone, writes them under dir/tables/, and prints the ones the run's kind
// is about to out.
func Report(dir string, out io.Writer) (*Outcome, error) {
	return ReportTo(dir, filepath.Join(dir, "tables"), out)
}

// ReportTo is Report with the tables written to tdir instead of the run's
// own tables/ folder (arbor report RUN --out DIR); it reads the run and
// writes nothing into it, so a finished run on a read-only disk reports.
func ReportTo(dir, tdir string, out io.Writer) (*Outcome, error) {
	samples, episodes, err := readRun(dir)
	if err != nil {
		return nil, fmt.Errorf("report %s: %w", dir, err)
	}
	kind, bench := "eval", ""
	if m, err := record.ReadManifest(dir); err == nil {
		kind, bench = m.Kind, m.Benchmark
	}
	if bench == "" && len(samples) > 0 {
		bench = samples[0].Benchmark
	}
	if err := writeTables(tdir, tablesFor(kind, bench, samples, episodes), out); err != nil {
		return nil, err
	}
	if budgets(samples) > 1 {
		for _, m := range []scoring.Metric{scoring.MetricAccuracy, scoring.MetricEvidenceRecall} {
			if err := table.WriteSVG(tdir, "budget-"+string(m), scoring.BudgetPlot(samples, m)); err != nil {
				return nil, err
			}
		}
	}
	if out != nil {
		fmt.Fprintf(out, "results: %s (tables in %s)\n", dir, tdir)
	}
	return &Outcome{Dir: dir, Samples: samples, Episodes: episodes}, nil
}

// tablesFor picks the tables that the samples support.
func tablesFor(kind, bench string, samples []record.Sample, episodes []record.EpisodeStat) []namedTable {
	isEval := kind == "eval" || kind == ""
	ts := append([]namedTable{{"main", scoring.MainTable(samples), isEval}}, benchmarkTables(bench, "categories", samples, episodes, isEval)...)
	if budgets(samples) > 1 {
		ts = append(ts,
			namedTable{"budget-accuracy", scoring.BudgetTable(samples, scoring.MetricAccuracy), true},
			namedTable{"budget-evidence-recall", scoring.BudgetTable(samples, scoring.MetricEvidenceRecall), true})
	}
	if variants := variantsOf(samples); len(variants) > 1 {
		t := scoring.AblationTable(samples, nil)
		t.Notes = append(t.Notes, ingestionNote(variants))
		ts = append(ts, namedTable{"ablation", t, true})
	}
	ts = append(ts,
		namedTable{"latency", scoring.LatencyTable(samples, episodes), kind == "latency"},
		namedTable{"cost", scoring.CostTable(samples, episodes), kind == "latency"})
	if multiScored(samples) {
		ts = append(ts, namedTable{"judges", scoring.JudgeAgreementTable(samples), isEval})
	}
	return withDegraded(ts, scoring.DegradedBySystem(samples, episodes))
}

// withDegraded puts the degraded counts in the notes of every table a run
// prints and adds the degraded table, printed when anything was degraded.
func withDegraded(ts []namedTable, ds []record.SystemDegraded) []namedTable {
	notes := scoring.DegradedNotes(ds)
	for i := range ts {
		if ts[i].print {
			ts[i].t.Notes = append(ts[i].t.Notes, notes...)
		}
	}
	return append(ts, namedTable{"degraded", scoring.DegradedTable(ds), len(notes) > 0})
}

// benchmarkTables is a benchmark's own tables: its categories (types,
// dimensions), and for BranchMemEval the diagnostic table, which is the one
// printed.
func benchmarkTables(bench, categoriesName string, samples []record.Sample, episodes []record.EpisodeStat, print bool) []namedTable {
	bme := bench == "branchmemeval"
	ts := []namedTable{{categoriesName, scoring.CategoryTable(bench, samples), print && !bme}}
	if bme {
		ts = append(ts, namedTable{"bme", scoring.BMETable(samples, episodes), print})
	}
	return ts
}

// readRun reads a run's samples and episode records as logged (a resumed
// run may hold superseded lines; the aggregations keep the latest of each key).
func readRun(dir string) ([]record.Sample, []record.EpisodeStat, error) {
	samples, err := record.ReadLog[record.Sample](filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	episodes, err := record.ReadLog[record.EpisodeStat](filepath.Join(dir, "episodes.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	return samples, episodes, nil
}

// writeTables writes each table in every format under tdir and prints the
// ones marked for printing.
func writeTables(tdir string, ts []namedTable, out io.Writer) error {
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		return err
	}
	for _, nt := range ts {
		if err := table.WriteAll(tdir, nt.name, nt.t); err != nil {
			return err
		}
		if nt.print && out != nil {
			fmt.Fprintln(out, nt.t.Markdown())
		}
	}
	return nil
}

func budgets(samples []record.Sample) int {
	seen := map[int]bool{}
	for _, s := range samples {
		seen[s.Budget] = true
	}
	return len(seen)
}

func variantsOf(samples []record.Sample) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range samples {
		if !seen[s.Variant] {
			seen[s.Variant] = true
			out = append(out, s.Variant)
		}
	}
	return out
}

func multiScored(samples []record.Sample) bool {
	for _, s := range samples {
		if len(s.Scores) > 1 {
			return true
		}
	}
	return false
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
