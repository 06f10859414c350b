package runners

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"

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
// shows the combined tables (as Combine renders them).
func ReportHTML(dirs []string, outDir string, out io.Writer) (*htmlreport.Stats, error) {
	var (
		runs     []htmlreport.Run
		all      []record.Sample
		episodes []record.EpisodeStat
	)
	for _, dir := range dirs {
		br, err := buildReport(dir, DefaultReportOptions(), nil)
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
			BudgetLabel: scoring.BudgetLabel}
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
