package runners

import (
	"context"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/internal/realdeps"
	"github.com/arbor-eval/arbor/pkg/record"
)

// TestBundlesRecordedAndReported: an eval run records one bundle line per
// answered sample beside samples.jsonl, keyed like it, whose item texts all
// resolve in bundle-texts.jsonl (each stored once) and whose ArborMem
// traces carry the branch down to the chosen parent; a resumed run adds
// nothing; `report --html` builds the site from it.
func TestBundlesRecordedAndReported(t *testing.T) {
	cfg := testConfig(t)
	plan := Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"bm25", "arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard}
	res, err := Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	bpath := filepath.Join(res.Dir, "bundles.jsonl")
	bundles, err := record.ReadLog[record.Bundle](bpath)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, b := range bundles {
		got[b.Key()]++
	}
	sameKeys(t, got, sampleKeys(t, filepath.Join(res.Dir, "samples.jsonl")))
	texts, err := record.ReadLog[record.BundleText](filepath.Join(res.Dir, "bundle-texts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, x := range texts {
		if _, dup := stored[x.Ref]; dup {
			t.Errorf("text %s stored twice", x.Ref)
		}
		if record.TextRef(x.Text) != x.Ref {
			t.Errorf("text %s is stored under the wrong reference", x.Ref)
		}
		stored[x.Ref] = x.Text
	}
	branches := 0
	for _, b := range bundles {
		if b.Text == "" {
			t.Errorf("%s: question text not recorded", b.Key())
		}
		for i, it := range b.Items {
			if it.Text != "" || stored[it.Ref] == "" {
				t.Errorf("%s item %d: text inline or unresolved (ref %q)", b.Key(), i, it.Ref)
			}
		}
		if b.System == "arbormem" {
			if b.Trace == nil || !b.Trace.Localized {
				t.Errorf("%s: no localization trace", b.Key())
			} else if p := b.Trace.Parent; p != "" {
				branches++
				if len(b.Branch) == 0 || b.Branch[len(b.Branch)-1] != p {
					t.Errorf("%s: branch %v does not end at the chosen parent %s", b.Key(), b.Branch, p)
				}
			}
		}
	}
	if branches == 0 {
		t.Error("no ArborMem bundle localized to a parent: the branch path went untested")
	}
	before, _ := os.ReadFile(bpath)
	if _, err := Run(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(bpath); len(after) != len(before) {
		t.Errorf("a resumed run with nothing to do changed bundles.jsonl (%d -> %d bytes)", len(before), len(after))
	}

	site := t.TempDir()
	var out strings.Builder
	st, err := ReportHTML([]string{res.Dir}, site, &out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Samples != len(res.Samples) || st.Bundles != len(res.Samples) {
		t.Errorf("report: %+v, want %d samples and bundles", st, len(res.Samples))
	}
	page, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="table-0-main"`, `id="table-0-bme"`, "Degraded operations and errors", res.Dir[len(filepath.Dir(res.Dir))+1:]} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if !strings.Contains(out.String(), "index.html") {
		t.Errorf("report output: %q", out.String())
	}
}

// TestBundlesOff: run.bundles: off records no side file, and the report
// still builds.
func TestBundlesOff(t *testing.T) {
	cfg := testConfig(t)
	cfg.Run.Bundles = "off"
	res, err := Run(context.Background(), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"bm25"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bundles.jsonl", "bundle-texts.jsonl"} {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s written with run.bundles off", f)
		}
	}
	if _, err := ReportHTML([]string{res.Dir}, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
}

// TestMergeKeepsBundles: merging shards carries each taken sample's bundle
// and the texts it refers to.
func TestMergeKeepsBundles(t *testing.T) {
	cfg := testConfig(t)
	var dirs []string
	for k := 1; k <= 2; k++ {
		res, err := Run(context.Background(), Plan{Benchmark: "branchmemeval", Episodes: []string{"s01", "s02"}, Systems: []string{"bm25", "arbormem"},
			Shard: Shard{K: k, N: 2}, Config: cfg, Out: io.Discard, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, res.Dir)
	}
	merged := filepath.Join(cfg.Run.Results, "merged")
	if _, err := Merge(merged, dirs, false, io.Discard); err != nil {
		t.Fatal(err)
	}
	bundles, err := record.ReadLog[record.Bundle](filepath.Join(merged, "bundles.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	texts, err := record.ReadLog[record.BundleText](filepath.Join(merged, "bundle-texts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, x := range texts {
		stored[x.Ref] = true
	}
	got := map[string]int{}
	for _, b := range bundles {
		got[b.Key()]++
		for _, it := range b.Items {
			if !stored[it.Ref] {
				t.Fatalf("%s: text %s not merged", b.Key(), it.Ref)
			}
		}
	}
	sameKeys(t, got, sampleKeys(t, filepath.Join(merged, "samples.jsonl")))
}

// TestReportHTMLUnion: on a folder written by two --limit runs, report
// --html covers the latest selection and says so, and with --union covers
// both and names both commands, as the tables do.
func TestReportHTMLUnion(t *testing.T) {
	cfg := testConfig(t)
	systems := []string{"bm25"}
	var dir string
	for _, limit := range []int{2, 1} {
		res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: limit, Systems: systems, RunID: "shared", Config: cfg,
			Out: io.Discard, Log: io.Discard, Command: []string{"arbor", "eval", "branchmemeval", "--limit", strconv.Itoa(limit)}})
		if err != nil {
			t.Fatal(err)
		}
		dir = res.Dir
	}
	eps := episodes(t, 2)
	want2, want1 := len(wantKeys(eps, systems, cfg.Answer.Budget)), len(wantKeys(eps[:1], systems, cfg.Answer.Budget))
	for _, c := range []struct {
		union   bool
		samples int
		says    []string
	}{
		{false, want1, []string{"Covers the selection of arbor eval branchmemeval --limit 1 (1 of", "the latest of the 2 selections", "--union covers them all"}},
		{true, want2, []string{"Covers the union of the 2 selections that wrote this folder (" + strconv.Itoa(want2) + " samples): arbor eval branchmemeval --limit 2; arbor eval branchmemeval --limit 1."}},
	} {
		o := DefaultReportOptions()
		o.Union = c.union
		site := t.TempDir()
		st, err := ReportHTML([]string{dir}, site, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		if st.Samples != c.samples {
			t.Errorf("union %v: the report covers %d samples, want %d", c.union, st.Samples, c.samples)
		}
		page, err := os.ReadFile(filepath.Join(site, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range c.says {
			if !strings.Contains(string(page), html.EscapeString(want)) {
				t.Errorf("union %v: index.html does not say %q", c.union, want)
			}
		}
	}
}

// TestReportHTMLDrawsForest: from an eval run to the page, in headless
// Chromium: an ArborMem question of the report draws its episode's forest,
// every committed interaction a node, with the parent its recall chose
// circled.
func TestReportHTMLDrawsForest(t *testing.T) {
	bin := realdeps.Chromium(t)
	cfg := testConfig(t)
	res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"bm25", "arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	bundles, err := record.ReadLog[record.Bundle](filepath.Join(res.Dir, "bundles.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var b *record.Bundle
	for i := range bundles {
		if bundles[i].System == "arbormem" && bundles[i].Trace != nil && bundles[i].Trace.Parent != "" {
			b = &bundles[i]
			break
		}
	}
	if b == nil {
		t.Fatal("no ArborMem question chose a parent")
	}
	committed := 0
	for _, e := range res.Episodes {
		if e.System == "arbormem" && e.Episode == b.Episode {
			committed = e.Committed
		}
	}
	site := t.TempDir()
	if _, err := ReportHTML([]string{res.Dir}, site, nil); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(filepath.Join(site, "index.html")) + "#run=0&ep=" + b.Episode + "&q=" + b.Question + "&sys=arbormem"
	// The markup only: forest.js's own source holds the strings sought.
	dom := regexp.MustCompile(`(?s)<script>.*?</script>`).ReplaceAllString(realdeps.Browse(t, bin, url, ""), "")
	want := `<circle id="node-` + html.EscapeString(b.Trace.Parent) + `" class="node chosen`
	if !strings.Contains(dom, `data-state="question"`) || !strings.Contains(dom, want) {
		t.Fatalf("the question's forest does not circle %s:\n%.3000s", b.Trace.Parent, dom)
	}
	if n := strings.Count(dom, `<circle id="node-`); n != committed || n == 0 {
		t.Errorf("the forest draws %d nodes, want the %d interactions committed", n, committed)
	}
}
