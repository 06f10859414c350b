package htmlreport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// reportSamples is the size of the run the issue 32 report measured.
const reportSamples = 35800

// siteSizes splits a site's bytes by what loads them: the first view of
// the question browser (index.html, which holds the row index and the
// first page of rows), the rest of the rows and the search file (loaded as the list is
// paged or searched), and per question the bundle chunks, the evidence
// texts (each distinct text once) and the forests.
type siteSizes struct {
	first, rows, bundles, texts, forests int64
}

func (s siteSizes) total() int64 { return s.first + s.rows + s.bundles + s.texts + s.forests }

func measureSite(t testing.TB, dir string) siteSizes {
	t.Helper()
	var s siteSizes
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		switch base := filepath.Base(p); {
		case base == "index.html": // with each run's row index and first page
			s.first += info.Size()
		case strings.HasPrefix(base, "p-"), strings.HasPrefix(base, "w-"):
			s.rows += info.Size()
		case strings.HasPrefix(base, "b-"):
			s.bundles += info.Size()
		case strings.HasPrefix(base, "t-"):
			s.texts += info.Size()
		case strings.HasPrefix(base, "g-"):
			s.forests += info.Size()
		default:
			s.first += info.Size() // plots: shown with the tables
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// BenchmarkReportSize builds the site of a synthetic run of the size the
// issue 32 report measured (35,800 samples: 5 systems, 8-item bundles,
// 12-candidate ArborMem traces, a 60-node forest per episode) and reports
// its bytes per sample without the evidence texts (stored once per
// distinct text, reported apart, as are the forests), and the size of the
// question browser's first view:
//
//	go test ./pkg/htmlreport -run '^$' -bench ReportSize -benchtime 1x
func BenchmarkReportSize(b *testing.B) {
	run := syntheticRun(b, b.TempDir(), reportSamples)
	var out string
	for b.Loop() {
		out = b.TempDir()
		if _, err := Write(out, []Run{run}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	reportSizes(b, measureSite(b, out), reportSamples)
}

// reportSizes reports a site's sizes: B/sample counts every byte but the
// evidence texts (stored once per distinct text, reported apart): the
// first view, the rows, the bundles with their traces, and the forests
// (reported apart too).
func reportSizes(b *testing.B, s siteSizes, n int) {
	b.ReportMetric(float64(s.total())/(1<<20), "site-MB")
	b.ReportMetric(float64(s.total()-s.texts)/float64(n), "B/sample")
	b.ReportMetric(float64(s.rows+s.first)/float64(n), "rows-B/sample")
	b.ReportMetric(float64(s.bundles)/float64(n), "bundles-B/sample")
	b.ReportMetric(float64(s.forests)/float64(n), "forests-B/sample")
	b.ReportMetric(float64(s.texts)/(1<<20), "texts-MB")
	b.ReportMetric(float64(s.first)/(1<<10), "first-view-KB")
}

// BenchmarkReportSizeLoCoMo is BenchmarkReportSize on a generated run of
// the shape of a real offline ArborMem run (locomoShape: LoCoMo's five
// development conversations, 3,810 samples, Full's ~300-turn bundles and
// ArborMem's ~42-candidate traces of full-precision numbers):
//
//	go test ./pkg/htmlreport -run '^$' -bench ReportSizeLoCoMo -benchtime 1x
func BenchmarkReportSizeLoCoMo(b *testing.B) {
	run := locomoRun(b, b.TempDir(), realShape)
	var out string
	for b.Loop() {
		out = b.TempDir()
		if _, err := Write(out, []Run{run}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	reportSizes(b, measureSite(b, out), len(run.Samples))
}

// BenchmarkReportFirstView opens the question browser of the synthetic
// 35,800-sample site in headless Chromium (skipped without one) and
// reports, from the page itself, the milliseconds from navigation to the
// list shown (ready-ms: index.html parsed, the row index and the first
// page of rows loaded, the rows rendered), the part before the page's
// script starts (init-ms: the browser's own start and index.html parsed),
// and of the rest the loading and the rendering (load-ms, render-ms). Each
// figure is the min over the runs; take several on a loaded machine:
//
//	go test ./pkg/htmlreport -run '^$' -bench ReportFirstView -benchtime 5x
func BenchmarkReportFirstView(b *testing.B) {
	bin := chromium(b)
	run := syntheticRun(b, b.TempDir(), reportSamples)
	out := b.TempDir()
	if _, err := Write(out, []Run{run}, Options{}); err != nil {
		b.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(filepath.Join(out, "index.html")) + "#run=0"
	re := regexp.MustCompile(`data-state="list" data-init-ms="(\d+)" data-load-ms="(\d+)" data-render-ms="(\d+)" data-ready-ms="(\d+)"`)
	reportTimes(b, bin, url, re, []string{"init-ms", "load-ms", "render-ms", "ready-ms"}, `data-state="list"`)
	b.ReportMetric(float64(measureSite(b, out).first)/(1<<10), "first-view-KB")
}

// BenchmarkReportQuestion opens one ArborMem question of the LoCoMo-shaped
// run's site (the largest bundle chunks: Full's and ArborMem's with their
// traces) in headless Chromium (skipped without one) and reports the
// milliseconds from navigation to the question shown with its bundle,
// texts, trace and forest loaded and decoded (question-ms, the min over
// the runs; init-ms is the browser's own start and index.html parsed):
//
//	go test ./pkg/htmlreport -run '^$' -bench ReportQuestion -benchtime 5x
func BenchmarkReportQuestion(b *testing.B) {
	bin := chromium(b)
	run := locomoRun(b, b.TempDir(), realShape)
	out := b.TempDir()
	if _, err := Write(out, []Run{run}, Options{}); err != nil {
		b.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(filepath.Join(out, "index.html")) + "#run=0&ep=conv-30&q=conv-30:151&sys=arbormem"
	re := regexp.MustCompile(`data-state="question" data-init-ms="(\d+)" data-question-ms="(\d+)"`)
	reportTimes(b, bin, url, re, []string{"init-ms", "question-ms"}, `id="candidates"`)
}

// reportTimes opens url in Chromium once per iteration and reports the
// min over the runs of each figure re reads from the page (its groups, in
// the order of names); a page without them, or without shown, fails.
func reportTimes(b *testing.B, bin, url string, re *regexp.Regexp, names []string, shown string) {
	best := make([]float64, len(names))
	for i := range best {
		best[i] = -1
	}
	for b.Loop() {
		dom := browse(b, bin, url, "")
		m := re.FindStringSubmatch(dom)
		if m == nil || !strings.Contains(dom, shown) {
			b.Fatalf("the page did not show:\n%s", regexp.MustCompile(`<div id="app"[^>]*>`).FindString(dom))
		}
		for k := range best {
			v, _ := strconv.ParseFloat(m[k+1], 64)
			if best[k] < 0 || v < best[k] {
				best[k] = v
			}
		}
	}
	for k, name := range names {
		b.ReportMetric(best[k], name)
	}
}

// BenchmarkReportSiteSize prints the sizes of an existing site
// (ARBOR_REPORT_DIR, what `arbor report RUN --html DIR` wrote; skipped
// without it): the bytes a sample, evidence texts apart, split as README's
// "Size and speed" table splits them, for a real run's site, which no
// generated run stands in for. A benchmark, not a test: it measures a
// folder of the user's, so a test run has nothing to check.
//
//	ARBOR_REPORT_DIR=DIR go test ./pkg/htmlreport -run '^$' -bench ReportSiteSize -benchtime 1x -v
func BenchmarkReportSiteSize(b *testing.B) {
	dir := os.Getenv("ARBOR_REPORT_DIR")
	if dir == "" {
		b.Skip("ARBOR_REPORT_DIR names no site (arbor report RUN --html DIR)")
	}
	var n int
	var s siteSizes
	for b.Loop() {
		n = siteSamples(b, dir)
		s = measureSite(b, dir)
	}
	per := func(v int64) string { return strconv.FormatInt((v+int64(n)/2)/int64(n), 10) }
	b.Logf("%s: %d samples; %s B a sample, texts apart (index.html %s, rows %s, bundles %s, forests %s); texts %.1f MB; index.html %.0f KB",
		dir, n, per(s.total()-s.texts), per(s.first), per(s.rows), per(s.bundles), per(s.forests), float64(s.texts)/1e6, float64(s.first)/1024)
	b.ReportMetric(float64(s.total()-s.texts)/float64(n), "B/sample")
}

// siteSamples is the samples of every run of a site, as its index.html
// hands them to the page (ARBOR.init: each system's samples).
func siteSamples(t testing.TB, dir string) int {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	init := regexp.MustCompile(`ARBOR\.init\((.*)\);</script>`).FindSubmatch(page)
	if init == nil {
		t.Fatalf("%s/index.html does not call ARBOR.init: not a report site", dir)
	}
	var metas []runMeta
	if err := json.Unmarshal(init[1], &metas); err != nil {
		t.Fatalf("%s/index.html: ARBOR.init argument: %v", dir, err)
	}
	n := 0
	for _, m := range metas {
		for _, s := range m.Systems {
			n += s.Samples
		}
	}
	if n == 0 {
		t.Fatalf("%s holds no sample", dir)
	}
	return n
}
