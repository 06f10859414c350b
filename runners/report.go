package runners

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/arbor-eval/arbor/pkg/arbormem"
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
// is about to out. Tables carry confidence intervals and paired comparisons
// by opts (DefaultReportOptions without); with opts.Compare it also writes
// and prints the detailed comparison of that pair. opts.OutDir writes the
// tables elsewhere and opts.Tables picks the printed ones.
func Report(dir string, out io.Writer, opts ...ReportOptions) (*Outcome, error) {
	o, _, err := report(dir, out, opts...)
	return o, err
}

// Tables says which tables a command prints: TablesMain (the default) the
// tables the run's kind is about (eval: accuracy; sweep: accuracy by
// budget; ablate: the ablation; latency: efficiency and cost), TablesAll
// every table it wrote (categories, BranchMemEval diagnostics, cost,
// judges, degraded). Every table is written either way.
const (
	TablesMain = "main"
	TablesAll  = "all"
)

// ParseTables checks a --tables value.
func ParseTables(s string) (string, error) {
	switch s {
	case "", TablesMain:
		return TablesMain, nil
	case TablesAll:
		return TablesAll, nil
	}
	return "", fmt.Errorf("--tables %q: want main or all", s)
}

// ReportTo is Report with the tables written to tdir instead of the run's
// own tables/ folder (arbor report RUN --out DIR); it reads the run and
// writes nothing into it, so a finished run on a read-only disk reports.
func ReportTo(dir, tdir string, out io.Writer) (*Outcome, error) {
	o := DefaultReportOptions()
	o.OutDir = tdir
	return Report(dir, out, o)
}

// report is Report that also returns the tables it wrote.
func report(dir string, out io.Writer, opts ...ReportOptions) (*Outcome, []namedTable, error) {
	o := DefaultReportOptions()
	if len(opts) > 0 {
		o = opts[0]
	}
	r, err := buildReport(dir, o, out)
	if err != nil {
		return nil, nil, err
	}
	tdir := o.OutDir
	if tdir == "" {
		tdir = filepath.Join(dir, "tables")
	}
	if err := writeTables(tdir, filepath.Base(dir), o.withForm(r.tables), out, o.Tables == TablesAll); err != nil {
		return nil, nil, err
	}
	for _, pl := range r.plots {
		if err := table.WriteSVG(tdir, pl.name, pl.plot); err != nil {
			return nil, nil, err
		}
	}
	if out != nil {
		fmt.Fprintf(out, "results: %s (tables in %s)\n", dir, tdir)
		warnMissingBundles(out, dir, r.o.Samples)
	}
	return r.o, r.tables, nil
}

// builtReport is a run's tables and plots, made in memory.
type builtReport struct {
	o      *Outcome
	tables []namedTable
	plots  []namedPlot
	// manifest is the run folder's manifest as buildReport read it, nil
	// when it could not be read, kept so that the HTML page's coverage line
	// does not read the file again.
	manifest *record.Manifest
}

type namedPlot struct {
	name string
	plot table.Plot
}

// buildReport makes the tables and plots of run folder dir from its logs
// (notes on the selection go to out, when not nil), writing no file.
func buildReport(dir string, o ReportOptions, out io.Writer) (*builtReport, error) {
	samples, episodes, err := readRun(dir)
	if err != nil {
		return nil, fmt.Errorf("report %s: %w", dir, err)
	}
	kind, bench := "eval", ""
	reserve := 0.0
	m, merr := record.ReadManifest(dir)
	if merr == nil {
		kind, bench = m.Kind, m.Benchmark
		reserve, _ = configNumber(m.Config, "arbormem", "evidence_reserve")
	} else {
		m = nil
	}
	samples, episodes, selNote := selectSamples(m, o, samples, episodes, out, filepath.Base(dir))
	if bench == "" && len(samples) > 0 {
		bench = samples[0].Benchmark
	}
	ts := tablesFor(kind, bench, samples, episodes, o.Stats)
	if selNote != "" {
		for i := range ts {
			ts[i].t.Notes = append(ts[i].t.Notes, selNote)
		}
	}
	if fake := fakeNote(m); fake != "" {
		for i := range ts {
			ts[i].t.Caption = strings.TrimSpace(ts[i].t.Caption + " " + fake)
		}
	}
	if reserve > 0 {
		for i := range ts {
			if strings.HasPrefix(ts[i].name, "budget-") {
				ts[i].t.Notes = append(ts[i].t.Notes, fmt.Sprintf("ArborMem kept %.0f%% of each budget for facts and records before packing the trajectory (arbormem.evidence_reserve %g; the paper packs the trajectory first and reserves none).", 100*reserve, reserve))
			}
		}
	}
	if len(o.Compare) > 0 {
		ct, err := compareTable(samples, o)
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", dir, err)
		}
		ts = append(ts, ct)
	}
	r := &builtReport{o: &Outcome{Dir: dir, Samples: samples, Episodes: episodes}, tables: ts, manifest: m}
	if budgets(samples) > 1 {
		metrics := []scoring.Metric{scoring.MetricAccuracy, scoring.MetricEvidenceRecall}
		if bench != "branchmemeval" { // BranchMemEval lists no evidence turns: no source recall
			metrics = append(metrics, scoring.MetricSourceRecall)
		}
		for _, m := range metrics {
			r.plots = append(r.plots, namedPlot{"budget-" + string(m), scoring.BudgetPlot(samples, m, o.Stats)})
		}
	}
	return r, nil
}

// configNumber reads a number from a manifest's recorded config (YAML keys,
// as manifests store it) by its path of keys; false when absent, as in runs
// made before the key existed.
func configNumber(cfg any, path ...string) (float64, bool) {
	for _, key := range path {
		m, ok := cfg.(map[string]any)
		if !ok {
			return 0, false
		}
		cfg = m[key]
	}
	x, ok := cfg.(float64)
	return x, ok
}

// tablesFor picks the tables that the samples support; st, when given, adds
// intervals and paired comparisons to the accuracy and recall tables.
func tablesFor(kind, bench string, samples []record.Sample, episodes []record.EpisodeStat, st ...scoring.StatsOptions) []namedTable {
	isEval := kind == "eval" || kind == ""
	// The tables are pure functions of the samples, and the main table and
	// the benchmark's own each resample every cell report.resamples times:
	// they are made side by side (the report is the serial end of a run).
	var main table.Table
	var wg sync.WaitGroup
	wg.Go(func() { main = scoring.MainTable(samples, st...) })
	bts := benchmarkTables(bench, "categories", samples, episodes, false, st...)
	wg.Wait()
	ts := append([]namedTable{{"main", main, isEval}}, bts...)
	if budgets(samples) > 1 {
		ts = append(ts,
			namedTable{"budget-accuracy", scoring.BudgetTable(samples, scoring.MetricAccuracy, st...), kind == "sweep"},
			// sweep budgets' help promises the recall table beside accuracy.
			namedTable{"budget-evidence-recall", scoring.BudgetTable(samples, scoring.MetricEvidenceRecall, st...), kind == "sweep"})
		if bench != "branchmemeval" {
			ts = append(ts, namedTable{"budget-source-recall", scoring.BudgetTable(samples, scoring.MetricSourceRecall, st...), false})
		}
	}
	if variants := variantsOf(samples); len(variants) > 1 {
		t := scoring.AblationTable(samples, nil, st...)
		t.Notes = append(t.Notes, ingestionNote(variants))
		ts = append(ts, namedTable{"ablation", t, true})
		if slices.ContainsFunc(variants, arbormem.IsReading) {
			ts = append(ts, namedTable{"readings", scoring.ReadingsTable(samples, episodes), true})
		}
	}
	ts = append(ts,
		namedTable{"latency", latencyTable(kind, samples, episodes), kind == "latency"},
		namedTable{"cost", scoring.CostTable(samples, episodes), kind == "latency"})
	if multiScored(samples) {
		ts = append(ts, namedTable{"judges", scoring.JudgeAgreementTable(samples), false})
	}
	return withDegraded(ts, scoring.DegradedBySystem(samples, episodes))
}

// latencyTable is the efficiency table, titled as the paper's matched
// comparison only when the run was one: made by arbor latency (one episode
// at a time, cache off) with no reply served from a cache. Elsewhere
// episodes overlap and cached replies take no time, so the timings are
// not comparable across systems.
func latencyTable(kind string, samples []record.Sample, episodes []record.EpisodeStat) table.Table {
	t := scoring.LatencyTable(samples, episodes)
	hits := 0
	for _, s := range samples {
		for _, c := range s.Calls {
			hits += c.CacheHits
		}
	}
	for _, e := range episodes {
		for _, c := range e.Calls {
			hits += c.CacheHits
		}
	}
	if kind == "latency" && hits == 0 {
		return t
	}
	t.Title = "Timings (not a matched comparison)"
	why := "episodes ran concurrently"
	if kind == "latency" {
		why = fmt.Sprintf("%d model replies came from a cache", hits)
	} else if hits > 0 {
		why += fmt.Sprintf(" and %d model replies came from a cache", hits)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Not the matched efficiency comparison of paper §6.4: %s. Run arbor latency for it.", why))
	return t
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
	return append(ts, namedTable{"degraded", scoring.DegradedTable(ds), false})
}

// benchmarkTables is a benchmark's own tables: its categories (types,
// dimensions), and for BranchMemEval the diagnostic table, which is the one
// printed.
func benchmarkTables(bench, categoriesName string, samples []record.Sample, episodes []record.EpisodeStat, print bool, st ...scoring.StatsOptions) []namedTable {
	bme := bench == "branchmemeval"
	var cats table.Table
	var wg sync.WaitGroup
	wg.Go(func() { cats = scoring.CategoryTable(bench, samples, st...) }) // beside the second table: both resample
	var second namedTable
	if bme {
		t := scoring.BMETable(samples, episodes, st...)
		t.Split = 2 // accuracy and outcomes | evidence and localization: one page wide each
		second = namedTable{"bme", t, print}
	} else {
		name := strings.Replace(categoriesName, "categories", "evidence-recall", 1)
		second = namedTable{name, scoring.RecallTable(samples), print}
	}
	wg.Wait()
	return []namedTable{{categoriesName, cats, print && !bme}, second}
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
	// A record redone by --retry-errors is appended after the failed one
	// it supersedes: only the latest record of each key counts. The logs'
	// line order depends on concurrency and resumes; tables must not, so
	// records are ordered by key before anything is computed from them.
	samples, episodes = record.Latest(samples, record.Sample.Key), record.Latest(episodes, record.EpisodeStat.Key)
	sortByKey(samples, record.Sample.Key)
	sortByKey(episodes, record.EpisodeStat.Key)
	return samples, episodes, nil
}

// sortByKey orders records by key (keys are unique after record.Latest).
func sortByKey[T any](recs []T, key func(T) string) {
	idx := make([]int, len(recs))
	ks := make([]string, len(recs))
	for i, r := range recs {
		ks[i] = key(r)
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ks[idx[a]] < ks[idx[b]] })
	sorted := make([]T, len(recs))
	for i, j := range idx {
		sorted[i] = recs[j]
	}
	copy(recs, sorted)
}

// writeTables writes each table in every format under tdir and prints the
// ones marked for printing.
//
// LaTeX labels are "tab:<run>:<name>", so that tables of several runs can
// share one document.
func writeTables(tdir, run string, ts []namedTable, out io.Writer, all bool) error {
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		return err
	}
	record.RemoveStaleTemps(tdir) // a killed report's half-written tables
	for _, nt := range ts {
		if err := table.WriteAllLabel(tdir, nt.name, "tab:"+latexLabelPart(run)+":"+nt.name, nt.t); err != nil {
			return err
		}
		if (nt.print || all) && out != nil {
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

// latexLabelPart keeps the characters a \label takes safely.
func latexLabelPart(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '-'
	}, s)
}
