package runners

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/scoring"
)

// Combine renders the tables that span several runs — the paper's Table 1
// has one row per benchmark, and each `arbor eval` run holds one benchmark —
// into outDir/tables: the main accuracy table over every run's samples, and
// each benchmark's own category (or BranchMemEval) table. outDir/sources.json
// lists the runs combined. opts as for Report (DefaultReportOptions without).
func Combine(dirs []string, outDir string, out io.Writer, opts ...ReportOptions) error {
	o := DefaultReportOptions()
	if len(opts) > 0 {
		o = opts[0]
	}
	var (
		samples  []record.Sample
		episodes []record.EpisodeStat
		sources  []record.Manifest
	)
	var heuristic, model []string
	byBenchRuns := map[string][]string{}
	for _, dir := range dirs {
		s, e, err := readRun(dir)
		if err != nil {
			return fmt.Errorf("combine %s: %w", dir, err)
		}
		m, merr := record.ReadManifest(dir)
		if merr != nil {
			m = nil
		}
		s, e, _ = selectSamples(m, o, s, e, out, filepath.Base(dir))
		samples, episodes = append(samples, s...), append(episodes, e...)
		if m != nil {
			m.Config, m.History = nil, nil // the sources list names runs; each run keeps its own config
			sources = append(sources, *m)
			if len(m.Heuristic) > 0 {
				heuristic = append(heuristic, filepath.Base(dir))
			} else {
				model = append(model, filepath.Base(dir))
			}
			byBenchRuns[m.Benchmark] = append(byBenchRuns[m.Benchmark], filepath.Base(dir))
		}
	}
	var warnings []string
	if len(heuristic) > 0 && len(model) > 0 {
		warnings = append(warnings, fmt.Sprintf("combining offline heuristic runs (%s) with model runs (%s): their numbers are not comparable", strings.Join(heuristic, ", "), strings.Join(model, ", ")))
	}
	for _, b := range slices.Sorted(maps.Keys(byBenchRuns)) {
		if runs := byBenchRuns[b]; len(runs) > 1 {
			warnings = append(warnings, fmt.Sprintf("%d runs of %s (%s): where they share a question and system the later run's sample is used", len(runs), b, strings.Join(runs, ", ")))
		}
	}
	for _, w := range warnings {
		if out != nil {
			fmt.Fprintln(out, "warning:", w)
		}
	}
	// Two runs of one benchmark that share keys would double count: the later
	// argument wins, as in a resumed run.
	samples = record.Latest(samples, record.Sample.Key)
	episodes = record.Latest(episodes, record.EpisodeStat.Key)
	ts := combinedTables(samples, episodes, o.Stats)
	for _, w := range warnings {
		ts[0].t.Notes = append(ts[0].t.Notes, "Warning: "+w+".")
	}
	if len(o.Compare) > 0 {
		ct, err := compareTable(samples, o)
		if err != nil {
			return fmt.Errorf("combine: %w", err)
		}
		ts = append(ts, ct)
	}
	tdir := filepath.Join(outDir, "tables")
	if err := writeTables(tdir, filepath.Base(outDir), o.withForm(ts), out, false); err != nil {
		return err
	}
	b, err := json.MarshalIndent(sources, "", "  ")
	if err != nil {
		return err
	}
	if err := record.WriteFileAtomic(filepath.Join(outDir, "sources.json"), append(b, '\n')); err != nil {
		return err
	}
	if out != nil {
		fmt.Fprintf(out, "combined %d runs into %s\n", len(dirs), tdir)
	}
	return nil
}

// combinedTables is the tables over several runs' samples (latest of each
// key): the main accuracy table and each benchmark's own tables.
func combinedTables(samples []record.Sample, episodes []record.EpisodeStat, st ...scoring.StatsOptions) []namedTable {
	ts := []namedTable{{"main", scoring.MainTable(samples, st...), true}}
	byBench := map[string][]record.Sample{}
	for _, s := range samples {
		byBench[s.Benchmark] = append(byBench[s.Benchmark], s)
	}
	benches := make([]string, 0, len(byBench))
	for b := range byBench {
		benches = append(benches, b)
	}
	sort.Strings(benches)
	for _, b := range benches {
		ts = append(ts, benchmarkTables(b, "categories-"+b, byBench[b], episodes, false, st...)...)
	}
	return ts
}
