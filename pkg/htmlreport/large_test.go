package htmlreport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/forestview"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
)

// syntheticRun writes a run of n samples (5 systems, 10 questions per
// episode, 1 budget) with a bundle of 8 items per sample drawn from the
// episode's 60 turns of about 400 bytes, and an ArborMem trace of 12
// candidates: the shape of a large real run, for sizes and build time.
func syntheticRun(t testing.TB, dir string, n int) Run {
	t.Helper()
	systems := []string{"full", "recent", "bm25", "summary", "arbormem"}
	bf, err := os.Create(filepath.Join(dir, "bundles.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tf, err := os.Create(filepath.Join(dir, "bundle-texts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	bw, tw := bufio.NewWriter(bf), bufio.NewWriter(tf)
	enc, tenc := json.NewEncoder(bw), json.NewEncoder(tw)
	filler := strings.Repeat("We talked about the venue, the budget and who books the movers. ", 6)
	samples := make([]record.Sample, 0, n)
	questions := n / len(systems)
	for e := 0; e*10 < questions; e++ {
		ep := fmt.Sprintf("e%05d", e)
		for k := 0; k < 60; k++ {
			txt := fmt.Sprintf("[%s-t%03d] user: %s", ep, k, filler)
			if err := tenc.Encode(record.BundleText{Ref: record.TextRef(txt), Text: txt}); err != nil {
				t.Fatal(err)
			}
		}
		for q := 0; q < 10 && e*10+q < questions; q++ {
			qid := fmt.Sprintf("%s-q%02d", ep, q)
			for si, sys := range systems {
				ok := (e+q+si)%3 != 0
				s := record.Sample{Benchmark: "branchmemeval", Episode: ep, Question: qid, System: sys, Budget: 30968,
					Category: fmt.Sprintf("B%d", q%5+1), Prediction: "The movers are Bluebird Movers.", Gold: "Bluebird Movers",
					Primary: "bme-rules", EvidenceTokens: 6000, EvidenceRecall: 1,
					Scores: map[string]record.ScoreRecord{"bme-rules": {Score: map[bool]float64{true: 1}[ok], Outcome: map[bool]string{true: "correct", false: "miss"}[ok]}}}
				samples = append(samples, s)
				b := record.Bundle{Benchmark: s.Benchmark, Episode: ep, Question: qid, System: sys, Budget: s.Budget, Text: "Who is booked for the move?"}
				for k := 0; k < 8; k++ {
					turn := (q*5 + k) % 60
					txt := fmt.Sprintf("[%s-t%03d] user: %s", ep, turn, filler)
					b.Items = append(b.Items, record.BundleItem{Channel: "local", Sources: []string{fmt.Sprintf("%s-t%03d", ep, turn)}, Tokens: 90, Ref: record.TextRef(txt)})
				}
				if sys == "arbormem" {
					b.Trace = &memory.Trace{Localized: true, Path: "scored", Parent: fmt.Sprintf("%s-t%03d", ep, q*5)}
					for c := 0; c < 12; c++ {
						b.Trace.Candidates = append(b.Trace.Candidates, memory.Candidate{Node: fmt.Sprintf("%s-t%03d", ep, c), Score: 9 - float64(c)/2, CE: 0.7, Key: 1, Rec: 0.2, Topic: 0.5})
					}
				}
				if err := enc.Encode(b); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// ArborMem's forest of each episode: its 60 turns in 6 branches.
	ff, err := os.Create(filepath.Join(dir, "forests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fw := bufio.NewWriter(ff)
	fenc := json.NewEncoder(fw)
	for e := 0; e*10 < questions; e++ {
		ep := fmt.Sprintf("e%05d", e)
		v := forestview.View{Scope: ep, Heuristic: true}
		for k := 0; k < 60; k++ {
			id, root := fmt.Sprintf("%s-t%03d", ep, k), fmt.Sprintf("%s-t%03d", ep, k%6)
			n := forestview.Node{ID: id, Root: root, Topic: "movers budget venue", Summary: "The user compared two movers and their quotes; Bluebird Movers were booked for Friday at noon."}
			if k >= 6 {
				n.Parent = fmt.Sprintf("%s-t%03d", ep, k-6)
			} else {
				v.Roots = append(v.Roots, id)
			}
			v.Nodes = append(v.Nodes, n)
		}
		view, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := fenc.Encode(record.Forest{Benchmark: "branchmemeval", Episode: ep, System: "arbormem", Variants: []string{""}, View: view}); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	ff.Close()
	for _, w := range []*bufio.Writer{bw, tw} {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	bf.Close()
	tf.Close()
	return Run{ID: "synthetic", Dir: dir, Samples: samples, Manifest: map[string]any{"benchmark": "branchmemeval", "kind": "eval"},
		Bundles: filepath.Join(dir, "bundles.jsonl"), Texts: filepath.Join(dir, "bundle-texts.jsonl"), Forests: filepath.Join(dir, "forests.jsonl")}
}

// sizes reports the site's total size and its largest data files by kind:
// a page of rows, a bundle chunk.
func sizes(t testing.TB, dir string) (total int64, maxSamples, maxBundles int64) {
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		total += info.Size()
		switch base := filepath.Base(p); {
		case strings.HasPrefix(base, "p-"):
			maxSamples = max(maxSamples, info.Size())
		case strings.HasPrefix(base, "b-"):
			maxBundles = max(maxBundles, info.Size())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, maxSamples, maxBundles
}

// BenchmarkWrite100k builds the site of a synthetic 100,000-sample run;
// besides the time it reports the site's size and its largest data files
// (a page of 100 rows, which the list and a question load, and a bundle
// chunk, which a question loads).
//
//	go test ./pkg/htmlreport -run '^$' -bench Write100k -benchtime 1x
func BenchmarkWrite100k(b *testing.B) {
	run := syntheticRun(b, b.TempDir(), 100000)
	var out string
	for b.Loop() {
		out = b.TempDir()
		if _, err := Write(out, []Run{run}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	total, ms, mb := sizes(b, out)
	b.ReportMetric(float64(total)/(1<<20), "site-MB")
	b.ReportMetric(float64(ms)/(1<<10), "max-page-KB")
	b.ReportMetric(float64(mb)/(1<<10), "max-bundle-chunk-KB")
}

// TestLarge100kInBrowser (ARBOR_LARGE=1, needs Chromium) builds the
// 100,000-sample site and checks in headless Chromium that the question
// list of all five systems and one question's bundle and forest open.
func TestLarge100kInBrowser(t *testing.T) {
	if os.Getenv("ARBOR_LARGE") == "" {
		t.Skip("set ARBOR_LARGE=1 to build and open a 100,000-sample report")
	}
	bin := chromium(t)
	run := syntheticRun(t, t.TempDir(), 100000)
	out := t.TempDir()
	t0 := time.Now()
	if _, err := Write(out, []Run{run}, Options{}); err != nil {
		t.Fatal(err)
	}
	total, ms, mb := sizes(t, out)
	t.Logf("built in %v: %.1f MB, largest page %.0f KB, largest bundle chunk %.0f KB", time.Since(t0), float64(total)/(1<<20), float64(ms)/(1<<10), float64(mb)/(1<<10))
	url := "file://" + filepath.ToSlash(filepath.Join(out, "index.html"))
	t0 = time.Now()
	dom := browse(t, bin, url+"#run=0", "")
	pageMS := regexp.MustCompile(`data-load-ms="(\d+)" data-render-ms="(\d+)"`).FindStringSubmatch(dom)
	t.Logf("list opened in %v (browser start included); in the page: %s ms to load the index and a page, %s ms to filter and render it", time.Since(t0), at(pageMS, 1), at(pageMS, 2))
	if !strings.Contains(dom, `data-state="list"`) || !strings.Contains(dom, "20000 of 20000 question rows") {
		t.Errorf("100k list not shown:\n%.3000s", dom)
	}
	t0 = time.Now()
	dom = browse(t, bin, url+"#run=0&ep=e01999&q=e01999-q09&sys=arbormem", "")
	t.Logf("question opened in %v (browser start included)", time.Since(t0))
	if !strings.Contains(dom, `data-state="question"`) || !strings.Contains(dom, `id="candidates"`) || !strings.Contains(dom, `id="forest-svg"`) {
		t.Errorf("100k question not opened:\n%.3000s", dom)
	}
}

func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return "?"
}
