package htmlreport

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/pkg/table/tabletest"
)

var _ = flag.Bool("update", false, "rewrite golden files")

const fixtureDir = "testdata/run"

// fixtureRun reads testdata/run as runners.ReportHTML would, with one small
// table and one plot standing in for the run's rendered tables.
func fixtureRun(t testing.TB) Run {
	t.Helper()
	samples, err := record.ReadLog[record.Sample](filepath.Join(fixtureDir, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	episodes, err := record.ReadLog[record.EpisodeStat](filepath.Join(fixtureDir, "episodes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	tb := table.Table{Title: "Answer accuracy (%) <fixture>", Stub: "Benchmark",
		Columns:   []table.Column{{Name: "BM25", Decimals: 1}, {Name: "ArborMem", Decimals: 1}},
		Rows:      []table.Row{{Label: "BranchMemEval", Cells: []table.Cell{table.V(33.3), table.V(100)}}},
		Highlight: table.Highlight{By: table.ByRow}, Notes: []string{"Heuristic: fixture."}}
	return Run{Dir: fixtureDir, Manifest: m, Samples: samples, Episodes: episodes,
		Tables:  []Table{{Name: "main", Table: tb}},
		Plots:   []Plot{{Name: "budget-accuracy", SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`)}},
		Bundles: filepath.Join(fixtureDir, "bundles.jsonl"), Texts: filepath.Join(fixtureDir, "bundle-texts.jsonl"),
		Forests: filepath.Join(fixtureDir, "forests.jsonl")}
}

// TestSiteStructureGolden builds the site from the fixture run and compares
// its structure (files, what each data file registers and holds, the
// page's sections and tables, the run metadata) with a golden file.
func TestSiteStructureGolden(t *testing.T) {
	out := t.TempDir()
	st, err := Write(out, []Run{fixtureRun(t)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Samples != 6 || st.Bundles != 5 {
		t.Errorf("stats = %+v, want 6 samples and 5 bundles (one error sample has none)", st)
	}
	tabletest.Golden(t, filepath.Join("testdata", "golden", "structure.txt"), []byte(structure(t, out)))
}

// structure describes a generated site without its bytes.
func structure(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	var files []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %s\n", f, describe(t, f, data))
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	b.WriteString("\nindex.html data:\n")
	for _, m := range regexp.MustCompile(`(?s)<script>(ARBOR\.(?:load|z)\("([^"]+)".*?\);\n)</script>`).FindAllSubmatch(page, -1) {
		fmt.Fprintf(&b, "  %s: %s\n", m[2], describe(t, "data/"+string(m[2])+".js", m[1]))
	}
	markup := regexp.MustCompile(`(?s)<script>.*?</script>`).ReplaceAll(page, nil)
	b.WriteString("\nindex.html ids:")
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(string(markup), -1) {
		b.WriteString(" " + m[1])
	}
	b.WriteString("\nindex.html headings:\n")
	for _, m := range regexp.MustCompile(`<(h[23]|caption)>(.*?)</`).FindAllStringSubmatch(string(markup), -1) {
		fmt.Fprintf(&b, "  %s %s\n", m[1], m[2])
	}
	init := regexp.MustCompile(`ARBOR\.init\((.*)\);</script>`).FindSubmatch(page)
	if init == nil {
		t.Fatal("index.html does not call ARBOR.init")
	}
	var metas []runMeta
	if err := json.Unmarshal(init[1], &metas); err != nil {
		t.Fatalf("ARBOR.init argument: %v", err)
	}
	js, _ := json.MarshalIndent(metas, "", "  ")
	b.WriteString("ARBOR.init: " + string(js) + "\n")
	return b.String()
}

var (
	loadRE = regexp.MustCompile(`(?s)^ARBOR\.load\("([^"]+)",(.*)\);\n$`)
	zipRE  = regexp.MustCompile(`^ARBOR\.z\("([^"]+)","([A-Za-z0-9+/=]*)"\);\n$`)
)

// dataScript returns the name a data script registers and its JSON, read
// back from either form (ARBOR.load with the JSON, ARBOR.z with it gzipped
// in base64); ok is false for anything else.
func dataScript(t testing.TB, data []byte) (name string, js []byte, ok bool) {
	t.Helper()
	if m := loadRE.FindSubmatch(data); m != nil {
		return string(m[1]), m[2], true
	}
	m := zipRE.FindSubmatch(data)
	if m == nil {
		return "", nil, false
	}
	z, err := base64.StdEncoding.DecodeString(string(m[2]))
	if err != nil {
		t.Fatalf("data script %s: %v", m[1], err)
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatalf("data script %s: %v", m[1], err)
	}
	if js, err = io.ReadAll(r); err != nil {
		t.Fatalf("data script %s: %v", m[1], err)
	}
	return string(m[1]), js, true
}

// describe says what one file holds: for a data file, the name it
// registers (which must be its own) and the number of records.
func describe(t *testing.T, name string, data []byte) string {
	switch {
	case strings.HasPrefix(name, "data/"):
		got, js, ok := dataScript(t, data)
		if !ok {
			t.Fatalf("%s is not an ARBOR.load(name, data) or ARBOR.z(name, gzip) script", name)
		}
		if want := strings.TrimSuffix(strings.TrimPrefix(name, "data/"), ".js"); got != want {
			t.Errorf("%s registers %q", name, got)
		}
		var v any
		if err := json.Unmarshal(js, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch v := v.(type) {
		case []any:
			return fmt.Sprintf("%d rows", len(v))
		case string:
			return fmt.Sprintf("%d characters", len(v))
		case map[string]any:
			var parts []string
			for _, k := range sortedKeys(map[string]bool{"q": true, "s": true, "f": true, "n": true, "u": true, "t": true, "b": true}) {
				switch x := v[k].(type) {
				case []any:
					parts = append(parts, fmt.Sprintf("%s: %d", k, len(x)))
				case map[string]any:
					parts = append(parts, fmt.Sprintf("%s: %d", k, len(x)))
				}
			}
			return strings.Join(parts, ", ")
		}
		return "data"
	case strings.HasSuffix(name, ".svg"):
		return "svg"
	case name == "index.html":
		if !bytes.HasPrefix(data, []byte("<!DOCTYPE html>")) {
			t.Error("index.html has no doctype")
		}
		if bytes.Contains(data, []byte("http://")) || bytes.Contains(data, []byte("https://")) {
			for _, u := range regexp.MustCompile(`(src|href)="https?://[^"]*"`).FindAll(data, -1) {
				t.Errorf("index.html loads from the network: %s", u)
			}
		}
		return "page"
	}
	return "other"
}

// TestBundleChunks checks what a question's data holds: the latest bundle
// line of a key wins over an older one, a torn last line is ignored, item
// texts resolve from bundle-texts.jsonl and are stored once for all
// systems, and the extra candidate field of a newer trace passes through.
func TestBundleChunks(t *testing.T) {
	out := t.TempDir()
	if _, err := Write(out, []Run{fixtureRun(t)}, Options{}); err != nil {
		t.Fatal(err)
	}
	var texts []string
	readData(t, filepath.Join(out, "data", "t-0-0.js"), &texts)
	if len(texts) != 4 {
		t.Errorf("text file holds %d texts, want the 4 distinct turns once each", len(texts))
	}
	bm25 := readChunk(t, filepath.Join(out, "data", "b-0-0-0.js")) // bm25 is the first system in the manifest
	if len(bm25) != 2 {
		t.Fatalf("bm25 chunk holds %d bundles, want 2", len(bm25))
	}
	if len(bm25[0].Items) != 3 {
		t.Fatalf("first bm25 bundle has %d items; the superseded empty line must lose", len(bm25[0].Items))
	}
	if at := bm25[0].Items[1].T; at == nil || !strings.Contains(texts[at[1]], "Sycamore table") {
		t.Errorf("item 2 text at %v", at)
	}
	if it := bm25[0].Items[1]; it.Channel == "" || len(it.Sources) != 1 || !strings.HasPrefix(it.Sources[0], "s01-t") || it.Tokens == 0 {
		t.Errorf("item 2 = %+v: channel, sources or tokens lost", it)
	}
	am := readChunk(t, filepath.Join(out, "data", "b-0-1-0.js"))
	tr := am[0].Trace
	if tr == nil || tr.Path != "scored" || len(tr.Candidates) != 2 || tr.Candidates[0]["rerank_raw"] != 3.1 {
		t.Errorf("arbormem trace = %+v", tr)
	}
	if *am[0].Items[1].T != *bm25[0].Items[1].T {
		t.Error("the same turn in two systems' bundles is stored twice")
	}
}

// chunkEntry is a bundle of a chunk expanded as the page's bundleAt does.
type chunkEntry struct {
	Items []chunkItem
	Trace *struct {
		Path       string           `json:"path"`
		Candidates []map[string]any `json:"candidates"`
	}
}

type chunkItem struct {
	Channel, Block string
	Tokens         int
	Sources        []string
	T              *[2]int
}

// readChunk reads a bundle chunk and expands it as app.js's bundleAt does.
func readChunk(t *testing.T, path string) []chunkEntry {
	t.Helper()
	var raw struct {
		N []string `json:"n"`
		U [][]int  `json:"u"`
		T []struct {
			Path       string `json:"path"`
			Candidates struct {
				Cols []string `json:"cols"`
				Vals [][]any  `json:"vals"`
			} `json:"candidates"`
		} `json:"t"`
		B []struct {
			I []int `json:"i"`
			T int   `json:"t"`
		} `json:"b"`
	}
	readData(t, path, &raw)
	out := make([]chunkEntry, len(raw.B))
	for i, b := range raw.B {
		var pos []int
		for _, k := range b.I {
			if k >= 0 {
				pos = append(pos, k)
				continue
			}
			for j, p := 1, pos[len(pos)-1]; j <= -k; j++ {
				pos = append(pos, p+j)
			}
		}
		for _, k := range pos {
			it := raw.U[k]
			ci := chunkItem{Channel: raw.N[it[0]], Tokens: it[2]}
			if it[1] >= 0 {
				ci.Block = raw.N[it[1]]
			}
			if it[3] >= 0 {
				ci.T = &[2]int{it[3], it[4]}
			}
			for _, k := range it[5:] {
				ci.Sources = append(ci.Sources, raw.N[k])
			}
			out[i].Items = append(out[i].Items, ci)
		}
		if b.T >= 0 {
			tr := raw.T[b.T]
			out[i].Trace = &struct {
				Path       string           `json:"path"`
				Candidates []map[string]any `json:"candidates"`
			}{Path: tr.Path}
			for j, k := range tr.Candidates.Cols {
				for n, v := range tr.Candidates.Vals[j] {
					if n == len(out[i].Trace.Candidates) {
						out[i].Trace.Candidates = append(out[i].Trace.Candidates, map[string]any{})
					}
					if v != nil {
						out[i].Trace.Candidates[n][k] = v
					}
				}
			}
		}
	}
	return out
}

// readData decodes the JSON a data script registers.
func readData(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, js, ok := dataScript(t, data)
	if !ok {
		t.Fatalf("%s: not a data script", path)
	}
	if err := json.Unmarshal(js, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		s    record.Sample
		want string
	}{
		{record.Sample{Error: "recall: boom", Primary: "j", Scores: map[string]record.ScoreRecord{"j": {Score: 1}}}, "error"},
		{record.Sample{Primary: "bme", Scores: map[string]record.ScoreRecord{"bme": {Score: 0, Outcome: "confusion"}}}, "confusion"},
		{record.Sample{Primary: "j", Scores: map[string]record.ScoreRecord{"j": {Score: 1}}}, "correct"},
		{record.Sample{Primary: "j", Scores: map[string]record.ScoreRecord{"j": {Score: 0.5}}}, "partial"},
		{record.Sample{Primary: "j"}, "wrong"},
	} {
		if got := outcome(c.s); got != c.want {
			t.Errorf("outcome(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// TestEscaping: text from samples, bundles and the manifest is data, never
// markup, in the page and in the tables.
func TestEscaping(t *testing.T) {
	r := fixtureRun(t)
	r.Manifest["command"] = []any{"arbor", "<script>alert(1)</script>"}
	r.ID = `run "<x>"`
	out := t.TempDir()
	if _, err := Write(out, []Run{r}, Options{}); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	for _, bad := range []string{"<script>alert(1)", "<fixture>", `run "<x>"`} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("index.html contains unescaped %q", bad)
		}
	}
	if !bytes.Contains(page, []byte("&lt;script&gt;alert(1)&lt;/script&gt;")) {
		t.Error("the manifest's command is not shown escaped")
	}
}

// TestDegradedCounts sums the episodes' degraded counts per system and
// counts failed samples and episodes.
func TestDegradedCounts(t *testing.T) {
	r := fixtureRun(t)
	rows, cols := degraded(r.Samples, r.Episodes)
	if strings.Join(cols, ",") != "bad_replies,fallbacks" {
		t.Errorf("columns = %v", cols)
	}
	got := map[string]degradedRow{}
	for _, x := range rows {
		got[x.System] = x
	}
	if a := got["arbormem"]; a.Episodes != 2 || a.Degraded != 1 || a.Counts["fallbacks"] != 2 || a.Counts["bad_replies"] != 1 {
		t.Errorf("arbormem = %+v", a)
	}
	if b := got["bm25"]; b.SampleErrs != 1 || b.EpisodeErrs != 1 || b.Samples != 3 {
		t.Errorf("bm25 = %+v", b)
	}
}

// TestMissingSideFiles: a run without bundles (older runs, run.bundles:
// off) and without a manifest still reports, over an earlier report whose
// bundle files go (and only they).
func TestMissingSideFiles(t *testing.T) {
	r := fixtureRun(t)
	out := t.TempDir()
	if _, err := Write(out, []Run{r}, Options{}); err != nil { // a report with bundles first
		t.Fatal(err)
	}
	keep := filepath.Join(out, "data", "notes.txt")
	os.WriteFile(keep, []byte("mine"), 0o644)
	r.Bundles, r.Texts, r.Manifest = "", "", nil
	st, err := Write(out, []Run{r}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Bundles != 0 {
		t.Errorf("bundles = %d", st.Bundles)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "data", "[bt]-*")); len(m) != 0 {
		t.Errorf("the earlier report's bundle files remain: %v", m)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a file the report did not write was removed: %v", err)
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !bytes.Contains(page, []byte("No manifest.json")) {
		t.Error("a missing manifest is not said")
	}
}

func TestManifestOrder(t *testing.T) {
	m := map[string]any{"systems": []any{"full", "bm25", "arbormem"}}
	got := manifestOrder(m, []string{"arbormem", "extra", "bm25"})
	if strings.Join(got, ",") != "bm25,arbormem,extra" {
		t.Errorf("got %v", got)
	}
}

// FuzzIndexBundles: whatever bundles.jsonl, bundle-texts.jsonl and
// forests.jsonl hold, reading them does not fail or panic.
func FuzzIndexBundles(f *testing.F) {
	f.Add([]byte(`{"episode":"e","question":"q","system":"s","budget":1,"items":[{"ref":"ab"}]}` + "\n{\"episode\":"))
	f.Add([]byte("\n\nnot json\n{}\n"))
	f.Add([]byte(`{"episode":"e","system":"arbormem","variants":["","x"],"view":{"nodes":[{"id":"a","root":"a"}],"roots":["a"]}}` + "\n" + `{"view":"nodes"}` + "\n"))
	f.Add([]byte(`{"items":[{"channel":"c","ref":"ab","sources":["s"]}],"trace":{"candidates":[{"node":"a","score":1.23456},{"x":null}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "b.jsonl")
		os.WriteFile(p, data, 0o644)
		if _, _, err := indexBundles(p); err != nil {
			t.Fatal(err)
		}
		if _, err := readTexts(p); err != nil {
			t.Fatal(err)
		}
		if _, recorded, err := readForests(p); err != nil || !recorded {
			t.Fatal(recorded, err)
		}
		st := &site{dir: t.TempDir()}
		ts := &textStore{site: st, prefix: "t-", limit: 64, texts: map[string]string{"ab": "x"}, placed: map[string][2]int{}}
		c := &chunker{packer: packer{site: st, prefix: "b-", limit: 64}, texts: ts}
		for _, line := range bytes.Split(data, []byte("\n")) {
			_, _, _ = c.add(bytes.TrimSpace(line))
		}
		_ = c.flush()
		_ = ts.flush()
	})
}

// TestShortNumber: trace numbers keep the 3 decimals the page shows,
// rounded as JavaScript's toFixed(3) rounds the whole number (half away
// from zero on the exact binary value: 0.0625 is a tie, 1.0005 lies below
// one); what is not a number, would show as -0.000, or is short already,
// passes unchanged.
func TestShortNumber(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"8.95978460018927", "8.96"}, {"18.95978533401079", "18.96"}, {"7.338215190190347e-07", "0"}, {"0.895978460018927", "0.896"},
		{"0.0625", "0.063"}, {"-0.0625", "-0.063"}, {"1.0005", "1"}, {"0.0015", "0.002"}, {"5.333333333333333", "5.333"},
		{"2", "2"}, {"-0.5", "-0.5"}, {"3.1", "3.1"}, {"-0.0001", "-0.0001"}, {"1.2345e-9", "0"},
		{`"D10:5"`, `"D10:5"`}, {"null", "null"}, {"true", "true"}, {"1e999", "1e999"}, {"-", "-"}, {"", ""},
	} {
		if got := string(shortNumber(json.RawMessage(c.in))); got != c.want {
			t.Errorf("shortNumber(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestZipFile: a data file reads back as the JSON it was given, in the
// gzipped form when that is smaller and as plain JSON when not (a tiny
// file), and the same data gives the same bytes (a report rebuilt from the
// same run is the same site).
func TestZipFile(t *testing.T) {
	long := []byte(`[` + strings.Repeat(`{"node":"D10:5","score":18.94},`, 200) + `{}]`)
	for _, c := range []struct {
		name   string
		data   []byte
		zipped bool
	}{
		{"b-0-4-0", long, true},
		{"t-0-0", []byte(`["a \"quoted\" </script> text","é"]`), false},
		{"x", []byte(`[]`), false},
	} {
		js, err := zipFile(c.name, c.data)
		if err != nil {
			t.Fatal(err)
		}
		if zipped := bytes.HasPrefix(js, []byte("ARBOR.z(")); zipped != c.zipped {
			t.Errorf("%s: zipped = %v, want %v (%d bytes from %d)", c.name, zipped, c.zipped, len(js), len(c.data))
		}
		name, got, ok := dataScript(t, js)
		if !ok || name != c.name || !bytes.Equal(got, c.data) {
			t.Errorf("%s reads back as %q %.80q (ok %v)", c.name, name, got, ok)
		}
		again, _ := zipFile(c.name, c.data)
		if !bytes.Equal(js, again) {
			t.Errorf("%s: two encodings of the same data differ", c.name)
		}
	}
}

// TestColumns: a trace's candidates go by column, numbers as the page
// prints them, a missing key null, other fields and other traces as they
// are.
func TestColumns(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"parent":"a","candidates":[{"node":"a","score":8.95978460018927,"rec":7.3e-07},{"node":"b","score":2,"extra":"x"}]}`,
			`{"candidates":{"cols":["extra","node","rec","score"],"vals":[[null,"x"],["a","b"],[0,null],[8.96,2]]},"parent":"a"}`},
		{`{"parent":"a","localized":true}`, `{"parent":"a","localized":true}`},
		{`{"candidates":[]}`, `{"candidates":[]}`},
		{`{"candidates":"odd"}`, `{"candidates":"odd"}`},
		{`[1,2]`, `[1,2]`},
		{`null`, ``},
		{``, ``},
	} {
		got, err := columns(json.RawMessage(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("columns(%s)\n = %s\nwant %s", c.in, got, c.want)
		}
	}
}

// FuzzColumns: whatever a bundles.jsonl line's trace holds, columns
// returns valid JSON (or nothing for no trace), and a list of candidate
// objects comes back by column with one value per candidate in each.
func FuzzColumns(f *testing.F) {
	for _, s := range []string{
		`{"parent":"a","candidates":[{"node":"a","score":8.95978460018927},{"node":"b","rec":1e-9,"x":[1]}]}`,
		`{"candidates":[{}]}`, `{"candidates":[{},{},{}]}`, `{"candidates":null}`, `[]`, `"s"`, `null`, ``, `{"candidates":[1,2]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return // bundles.jsonl lines are decoded first: a trace is valid JSON
		}
		out, err := columns(json.RawMessage(in))
		if err != nil {
			t.Fatalf("columns(%q): %v", in, err)
		}
		if out == nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("columns(%q) = %q, not JSON", in, out)
		}
		// By exact key, as the page reads it (a struct field would match
		// "Candidates" too).
		var tr, gotTr map[string]json.RawMessage
		var cands []map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &tr) != nil || json.Unmarshal(tr["candidates"], &cands) != nil || len(cands) == 0 {
			return
		}
		if err := json.Unmarshal(out, &gotTr); err != nil {
			t.Fatal(err)
		}
		if n := pageCandidates(gotTr["candidates"]); n != len(cands) {
			t.Fatalf("columns(%q) = %s: the page would show %d candidates, want %d", in, out, n, len(cands))
		}
		var got struct {
			Cols []string            `json:"cols"`
			Vals [][]json.RawMessage `json:"vals"`
		}
		if json.Unmarshal(gotTr["candidates"], &got) != nil {
			return // passed through as a list (candidates without keys)
		}
		if len(got.Cols) == 0 || len(got.Cols) != len(got.Vals) {
			t.Fatalf("columns(%q) = %s: not by column", in, out)
		}
		for j, v := range got.Vals {
			if len(v) != len(cands) {
				t.Fatalf("column %s holds %d values for %d candidates", got.Cols[j], len(v), len(cands))
			}
		}
	})
}

// pageCandidates counts a trace's candidates as app.js bundleAt does: by
// column, as many as the first column holds (none without a column);
// otherwise the list's length.
func pageCandidates(raw json.RawMessage) int {
	var byCol struct {
		Cols []string            `json:"cols"`
		Vals [][]json.RawMessage `json:"vals"`
	}
	if json.Unmarshal(raw, &byCol) == nil && byCol.Cols != nil {
		if len(byCol.Vals) == 0 {
			return 0
		}
		return len(byCol.Vals[0])
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		return len(list)
	}
	return 0
}

func TestRuns(t *testing.T) {
	for _, c := range []struct{ in, want []int }{
		{nil, []int{}},
		{[]int{0, 1, 2, 3, 4}, []int{0, -4}},
		{[]int{0, 1}, []int{0, 1}},
		{[]int{5, 6, 7, 2, 9, 10, 11, 12, 0}, []int{5, -2, 2, 9, -3, 0}},
		{[]int{3, 3, 3}, []int{3, 3, 3}},
		{[]int{7, 6, 5}, []int{7, 6, 5}},
	} {
		if got := runs(c.in); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("runs(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
