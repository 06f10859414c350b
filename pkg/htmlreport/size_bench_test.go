package htmlreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReportSize builds the site of a synthetic run of the size the
// issue 32 report measured (35,800 samples) and reports its size per
// sample, split into what every view shares (pages, assets, the question
// and sample lists, which the first view loads for every system) and what
// is fetched per question (bundle chunks and text files):
//
//	go test ./pkg/htmlreport -run '^$' -bench ReportSize -benchtime 1x
func BenchmarkReportSize(b *testing.B) {
	const n = 35800
	run := syntheticRun(b, b.TempDir(), n)
	var out string
	for b.Loop() {
		out = b.TempDir()
		if _, err := Write(out, []Run{run}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	var first, later int64
	err := filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		switch base := filepath.Base(p); {
		case strings.HasPrefix(base, "b-"), strings.HasPrefix(base, "t-"):
			later += info.Size()
		default:
			first += info.Size()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(first+later)/(1<<20), "site-MB")
	b.ReportMetric(float64(first+later)/n, "B/sample")
	b.ReportMetric(float64(first)/(1<<20), "first-view-MB")
	b.ReportMetric(float64(later)/n, "per-question-B/sample")
}
