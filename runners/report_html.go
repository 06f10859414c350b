package runners

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/htmlreport"
	"github.com/arbor-eval/arbor/pkg/record"
)

// ReportHTML rebuilds each run's tables and plots (as Report does, into the
// run's tables/) and writes one static HTML report of all the runs into
// outDir: tables, plots, manifests, degraded counts and the question
// browser over samples.jsonl and bundles.jsonl. With several runs it also
// shows the combined tables (as Combine renders them).
func ReportHTML(dirs []string, outDir string, out io.Writer) (*htmlreport.Stats, error) {
	var (
		runs     []htmlreport.Run
		all      []record.Sample
		episodes []record.EpisodeStat
	)
	for _, dir := range dirs {
		o, ts, err := report(dir, nil)
		if err != nil {
			return nil, err
		}
		m, err := htmlreport.ReadManifest(dir)
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", dir, err)
		}
		run := htmlreport.Run{Dir: dir, Manifest: m, Samples: o.Samples, Episodes: o.Episodes,
			Bundles: filepath.Join(dir, "bundles.jsonl"), Texts: filepath.Join(dir, "bundle-texts.jsonl")}
		for _, t := range ts {
			run.Tables = append(run.Tables, htmlreport.Table{Name: t.name, Table: t.t})
		}
		if run.Plots, err = readPlots(filepath.Join(dir, "tables")); err != nil {
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

// readPlots reads the SVG figures of a run's tables folder, by name.
func readPlots(tdir string) ([]htmlreport.Plot, error) {
	paths, err := filepath.Glob(filepath.Join(tdir, "*.svg"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []htmlreport.Plot
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, htmlreport.Plot{Name: strings.TrimSuffix(filepath.Base(p), ".svg"), SVG: b})
	}
	return out, nil
}
