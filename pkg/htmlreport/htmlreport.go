// Package htmlreport writes a run report as a self-contained static site:
// one index.html with every table rendered as plain HTML (readable without
// JavaScript), the plots, the manifest and the degraded counts, and a
// question browser whose data is paged: index.html holds each run's row
// index and first page of rows, and the other pages, the evidence bundles,
// their texts and ArborMem's forests (drawn with pkg/forestview) sit in
// small JavaScript files under data/ that the page loads on demand with
// <script> tags (JSONP style: browsers refuse fetch() on file:// pages, but
// load scripts), each holding its JSON gzipped in base64 for the browser's
// DecompressionStream to decode. Nothing is fetched from a network; the
// site opens from disk.
package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// Run is what the report shows of one run folder.
type Run struct {
	// ID names the run (when empty, the manifest's run_id or the folder's
	// base name).
	ID  string
	Dir string
	// Manifest is manifest.json decoded as plain JSON, so fields added or
	// removed by other versions show as they are; nil when missing.
	Manifest map[string]any
	Tables   []Table
	// Plots are SVG files copied beside index.html.
	Plots    []Plot
	Samples  []record.Sample
	Episodes []record.EpisodeStat
	// Bundles is the path of the run's bundles.jsonl; "" or a missing file
	// leaves the question browser without evidence bundles.
	Bundles string
	// Texts is the path of bundle-texts.jsonl, which holds the texts that
	// bundle items refer to; "" or missing shows items without text.
	Texts string
	// Forests is the path of forests.jsonl, each ArborMem episode's forest;
	// "" or missing shows questions without the forest drawing, saying
	// that the run did not record it.
	Forests string
	// BudgetLabel and CategoryLabel name a budget and a question category
	// as the run's tables do ("32K", "Multi-hop (1)"); nil shows the raw
	// values.
	BudgetLabel   func(int) string
	CategoryLabel func(string) string
	// Coverage says which selection(s) of the run folder the report
	// covers (shown under the run's heading); "" shows nothing.
	Coverage string
}

// Table is one named result table.
type Table struct {
	Name  string
	Table table.Table
}

// Plot is one named SVG figure.
type Plot struct {
	Name string
	SVG  []byte
}

// Options tunes the generated data files.
type Options struct {
	// ChunkBytes bounds a bundle, text or forest data file: one file holds
	// consecutive bundles of one system, the evidence texts first used by
	// consecutive questions, or the forests of consecutive episodes, until
	// it reaches this size (default 256 KiB), so opening a question loads
	// little however large the run.
	ChunkBytes int
	// Combined are tables over all runs (the several-run report's Table 1).
	Combined []Table
	// PageRows is the number of question rows per page file (default
	// 100): the question browser's first view loads the row index and one
	// page, so it opens as fast for 100,000 samples as for 100.
	PageRows int
}

// Stats describes what Write produced.
type Stats struct {
	Files   int
	Bytes   int64
	Samples int
	Bundles int
}

// ReadManifest decodes dir/manifest.json as plain JSON; a missing file is
// nil without error.
func ReadManifest(dir string) (map[string]any, error) {
	p := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return m, nil
}

// site accumulates the files written.
type site struct {
	dir   string
	stats Stats
	// inline holds the data scripts that go into index.html (each run's
	// row index and first page of rows).
	inline [][]byte
}

func (s *site) write(rel string, data []byte) error {
	p := filepath.Join(s.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	s.stats.Files++
	s.stats.Bytes += int64(len(data))
	return nil
}

// Write builds the site in dir (created if needed). The data files and
// plots of an earlier report in dir are removed first, and nothing else:
// only names this package writes are touched.
func Write(dir string, runs []Run, opt Options) (*Stats, error) {
	if opt.ChunkBytes <= 0 {
		opt.ChunkBytes = 256 << 10
	}
	if opt.PageRows <= 0 {
		opt.PageRows = 100
	}
	s := &site{dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, pattern := range []string{"data/[bgpqstwx]-*.js", "plots/r*-*.svg"} {
		old, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
		for _, p := range old {
			if err := os.Remove(p); err != nil {
				return nil, fmt.Errorf("remove the earlier report's %s: %w", p, err)
			}
		}
	}
	views := make([]runView, len(runs))
	for i := range runs {
		r := &runs[i]
		if r.ID == "" {
			r.ID, _ = r.Manifest["run_id"].(string)
		}
		if r.ID == "" {
			r.ID = filepath.Base(filepath.Clean(r.Dir))
		}
		v, err := s.writeRunData(i, r, opt)
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", r.ID, err)
		}
		for _, p := range r.Plots {
			rel := fmt.Sprintf("plots/r%d-%s.svg", i, safeName(p.Name))
			if err := s.write(rel, p.SVG); err != nil {
				return nil, err
			}
			v.Plots = append(v.Plots, plotView{Name: p.Name, Src: rel})
		}
		views[i] = *v
	}
	var page bytes.Buffer
	if err := renderIndex(&page, views, opt.Combined, s.inline); err != nil {
		return nil, err
	}
	if err := s.write("index.html", page.Bytes()); err != nil {
		return nil, err
	}
	return &s.stats, nil
}

// safeName keeps a name to characters safe in a file name and a URL.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// degradedRow sums one system's degraded counts over its episodes.
type degradedRow struct {
	System       string
	Episodes     int
	Degraded     int // episodes with any count above zero
	EpisodeErrs  int
	SampleErrs   int
	Samples      int
	Counts       map[string]float64
	CountColumns []string
}

// degraded sums EpisodeStat.Degraded per system and variant. The counts are
// read through their JSON form, so counts added to record.Degraded later
// show as columns without a change here.
func degraded(samples []record.Sample, episodes []record.EpisodeStat) ([]degradedRow, []string) {
	rows := map[string]*degradedRow{}
	get := func(sys, variant string) *degradedRow {
		k := sys
		if variant != "" {
			k += " · " + variant
		}
		if rows[k] == nil {
			rows[k] = &degradedRow{System: k, Counts: map[string]float64{}}
		}
		return rows[k]
	}
	cols := map[string]bool{}
	for _, e := range record.Latest(episodes, record.EpisodeStat.Key) {
		r := get(e.System, e.Variant)
		r.Episodes++
		if e.Error != "" {
			r.EpisodeErrs++
		}
		if e.Degraded == nil {
			continue
		}
		b, _ := json.Marshal(e.Degraded)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		hit := false
		for k, v := range m {
			if f, ok := v.(float64); ok {
				cols[k] = true
				r.Counts[k] += f
				hit = hit || f != 0
			}
		}
		if hit {
			r.Degraded++
		}
	}
	for _, s := range samples {
		r := get(s.System, s.Variant)
		r.Samples++
		if s.Error != "" {
			r.SampleErrs++
		}
	}
	names := make([]string, 0, len(cols))
	for k := range cols {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]degradedRow, 0, len(rows))
	for _, r := range rows {
		r.CountColumns = names
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].System < out[j].System })
	return out, names
}
