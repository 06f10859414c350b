package runners

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/htmlreport"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/scoring"
)

// ReportHTML rebuilds each run's tables and plots in memory (as Report
// makes them, but writing nothing into the runs, which may be read-only or
// still being written) and writes one static HTML report of all the runs
// into outDir: tables, plots, manifests, degraded counts and the question
// browser over samples.jsonl and bundles.jsonl. With several runs it also
// shows the combined tables (as Combine renders them). Like Report, each
// run covers its latest selection unless opts asks for the union (Union),
// and its section of the page says which selection(s) it covers.
func ReportHTML(dirs []string, outDir string, out io.Writer, opts ...ReportOptions) (*htmlreport.Stats, error) {
	ro := DefaultReportOptions()
	if len(opts) > 0 {
		ro = opts[0]
	}
	var (
		runs     []htmlreport.Run
		all      []record.Sample
		episodes []record.EpisodeStat
	)
	for _, dir := range dirs {
		br, err := buildReport(dir, ro, nil)
		if err != nil {
			return nil, err
		}
		o, ts := br.o, br.tables
		m, err := htmlreport.ReadManifest(dir)
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", dir, err)
		}
		run := htmlreport.Run{Dir: dir, Manifest: m, Samples: o.Samples, Episodes: o.Episodes,
			Bundles: filepath.Join(dir, "bundles.jsonl"), Texts: filepath.Join(dir, "bundle-texts.jsonl"),
			Forests:     filepath.Join(dir, "forests.jsonl"),
			BudgetLabel: scoring.BudgetLabel, Coverage: coverage(br.manifest, ro.Union, len(o.Samples))}
		bench, _ := m["benchmark"].(string)
		if bench == "" && len(o.Samples) > 0 {
			bench = o.Samples[0].Benchmark
		}
		run.CategoryLabel = func(c string) string { return scoring.CategoryLabel(bench, c) }
		for _, t := range ts {
			run.Tables = append(run.Tables, htmlreport.Table{Name: t.name, Table: t.t})
		}
		if run.Plots, err = drawPlots(br.plots); err != nil {
			return nil, err
		}
		warnMissingBundles(out, dir, o.Samples)
		runs = append(runs, run)
		all, episodes = append(all, o.Samples...), append(episodes, o.Episodes...)
	}
	var opt htmlreport.Options
	if len(dirs) > 1 {
		for _, t := range combinedTables(record.Latest(all, record.Sample.Key), record.Latest(episodes, record.EpisodeStat.Key)) {
			opt.Combined = append(opt.Combined, htmlreport.Table{Name: t.name, Table: t.t})
		}
	}
	st, err := htmlreport.Write(outDir, runs, opt)
	if err != nil {
		return nil, err
	}
	if out != nil {
		fmt.Fprintf(out, "html report: %s (%d samples, %d bundles, %d files, %.1f MB); open it in a browser, no server needed\n",
			filepath.Join(outDir, "index.html"), st.Samples, st.Bundles, st.Files, float64(st.Bytes)/(1<<20))
	}
	return st, nil
}

// coverage says which selection(s) of a run folder with manifest m the
// report covers: the latest of several (and how to see them all), their
// union, or the one that wrote it; "" when the manifest records none (runs
// made before selections were recorded, or m nil: no manifest).
func coverage(m *record.Manifest, union bool, samples int) string {
	if m == nil || len(m.Selections) == 0 {
		return ""
	}
	n := len(m.Selections)
	if union && n > 1 {
		cmds := make([]string, n)
		for i, sel := range m.Selections {
			cmds[i] = commandLine(sel.Command)
		}
		return fmt.Sprintf("Covers the union of the %d selections that wrote this folder (%d samples): %s.", n, samples, strings.Join(cmds, "; "))
	}
	sel := m.Latest()
	s := fmt.Sprintf("Covers the selection of %s (%d of %d episodes, %d questions; %d samples)", commandLine(sel.Command), len(sel.Episodes), sel.Available, sel.Questions(), samples)
	if n > 1 {
		if union {
			return s + "."
		}
		return fmt.Sprintf("%s, the latest of the %d selections that wrote this folder; arbor report --html --union covers them all.", s, n)
	}
	return s + "."
}

// drawPlots draws the plots as SVG, in name order.
func drawPlots(ps []namedPlot) ([]htmlreport.Plot, error) {
	var out []htmlreport.Plot
	for _, p := range ps {
		var buf bytes.Buffer
		if err := table.LinePlotSVG(&buf, p.plot); err != nil {
			return nil, fmt.Errorf("plot %s: %w", p.name, err)
		}
		out = append(out, htmlreport.Plot{Name: p.name, SVG: buf.Bytes()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
