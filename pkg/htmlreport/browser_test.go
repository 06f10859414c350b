package htmlreport

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/internal/realdeps"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
)

// chromium is realdeps.Chromium.
func chromium(t testing.TB) string { return realdeps.Chromium(t) }

// browse is realdeps.Browse with the inline script's source taken out of
// the DOM: only markup counts.
func browse(t testing.TB, bin, url, shot string, extra ...string) string {
	t.Helper()
	return scriptRE.ReplaceAllString(realdeps.Browse(t, bin, url, shot, extra...), "")
}

var scriptRE = regexp.MustCompile(`(?s)<script>.*?</script>`)

// TestBrowser opens the fixture run's report in headless Chromium: the
// tables render with and without JavaScript, the question list fills in,
// and opening one ArborMem question shows the side-by-side comparison, the
// evidence bundle item by item with the gold answer highlighted, and the
// localization trace with every candidate's score parts and the branch.
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	out := t.TempDir()
	if _, err := Write(out, []Run{fixtureRun(t)}, Options{}); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(abs)
	count := func(dom, pattern string) int { return len(regexp.MustCompile(pattern).FindAllStringIndex(dom, -1)) }

	t.Run("tables", func(t *testing.T) {
		dom := browse(t, bin, url, "")
		if !strings.Contains(dom, `data-view="tables"`) || count(dom, `<table class="result">`) != 2 {
			t.Errorf("tables view: want the main and degraded tables rendered, view tables:\n%.2000s", dom)
		}
	})
	t.Run("no-javascript", func(t *testing.T) {
		// The page as a browser without JavaScript sees it: scripts gone
		// (headless Chromium cannot dump a page with scripting disabled).
		page, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		nojs := filepath.Join(out, "nojs.html")
		if err := os.WriteFile(nojs, scriptRE.ReplaceAll(page, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		dom := browse(t, bin, "file://"+filepath.ToSlash(nojs), "")
		if count(dom, `<table class="result">`) != 2 || !strings.Contains(dom, "fixture-bme") || !strings.Contains(dom, "<td><strong>100.0</strong></td>") {
			t.Errorf("without JavaScript the tables must still show:\n%.2000s", dom)
		}
	})
	t.Run("list", func(t *testing.T) {
		dom := browse(t, bin, url+"#run=0", "")
		if !strings.Contains(dom, `data-state="list"`) {
			t.Fatalf("question list not shown:\n%.3000s", dom)
		}
		if n := count(dom, `<tr><td>s0`); n != 3 {
			t.Errorf("question list has %d rows, want 3", n)
		}
		if !strings.Contains(dom, `class="err"`) || !strings.Contains(dom, `class="ok"`) {
			t.Error("score cells are not marked by outcome")
		}
	})
	t.Run("question", func(t *testing.T) {
		dom := browse(t, bin, url+"#run=0&ep=s01&q=s01-q01&sys=arbormem", "")
		if !strings.Contains(dom, `data-state="question"`) {
			t.Fatalf("question not opened:\n%.3000s", dom)
		}
		for _, want := range []string{
			`id="compare"`, `<th>bm25</th>`, `<th>arbormem</th>`, // side by side
			`rule: gold found`,                             // the judge's raw reply
			`id="bundle" data-system="arbormem"`,           // the ArborMem bundle
			`<mark>Sycamore table</mark>`,                  // gold highlighted in an item
			`id="trace-step">scored`,                       // cascade step
			`id="trace-parent"><span class="src">s01-t002`, // chosen parent
			`id="trace-rules">highest score above τ`,       // the rule that decided
			`id="trace-branch"`, `s_ce`, `s_key`, `s_rec`, `s_topic`, `rerank raw`, `rerank p`, `rerank_raw`,
		} {
			if !strings.Contains(dom, want) {
				t.Errorf("question view lacks %q", want)
			}
		}
		if n := count(dom, `<tr class="item`); n != 3 {
			t.Errorf("bundle shows %d items, want 3", n)
		}
		if n := count(dom, `<tr class="cand`); n != 2 {
			t.Errorf("trace shows %d candidates, want 2", n)
		}
		if !strings.Contains(dom, `<tr class="cand chosen"><td>s01-t002</td>`) {
			t.Error("the chosen parent's candidate row is not marked")
		}
	})
	t.Run("forest", func(t *testing.T) {
		// The row in the link (r=1) opens the page at once; the forest is
		// the episode's, with the parent this question's recall chose
		// circled, each branch in its lane, summaries escaped in the hover.
		dom := browse(t, bin, url+"#run=0&ep=s01&q=s01-q02&b=4096&v=&r=1&sys=arbormem", "")
		if !strings.Contains(dom, `data-state="question"`) {
			t.Fatalf("question not opened:\n%.3000s", dom)
		}
		for _, want := range []string{`id="forest-svg"`, `id="node-s01-t001"`, `id="node-s01-t004"`, `id="node-s01-t003" class="node chosen"`,
			`circled in red: s01-t003`, `4 nodes, 2 branches`, `offline heuristic memory`, `Chose the Sycamore table &lt;/script&gt;&lt;b&gt;x&lt;/b&gt;.`} {
			if !strings.Contains(dom, want) {
				t.Errorf("forest view lacks %q", want)
			}
		}
		if n := count(dom, `class="edge"`); n != 2 {
			t.Errorf("%d edges, want 2", n)
		}
		if n := count(dom, `class="node[^"]*" cx="[0-9.]+" cy="30"`); n != 3 {
			t.Errorf("%d nodes in the first branch's lane, want 3", n)
		}
		if strings.Contains(dom, "<b>x</b>") {
			t.Error("a summary became markup")
		}
		// s02's forest line is torn: the question says so and still opens.
		dom = browse(t, bin, url+"#run=0&ep=s02&q=s02-q01&sys=arbormem", "")
		if !strings.Contains(dom, `data-state="question"`) || !strings.Contains(dom, `id="noforest">No forest recorded for this episode`) || strings.Contains(dom, `id="forest-svg"`) {
			t.Errorf("a question without its forest:\n%.3000s", dom)
		}
	})
	t.Run("screenshots", func(t *testing.T) {
		dir := os.Getenv("ARBOR_SCREENSHOTS") // keep them to look at
		if dir == "" {
			dir = t.TempDir()
		}
		for name, hash := range map[string]string{"tables": "", "list": "#run=0", "question": "#run=0&ep=s01&q=s01-q01&sys=arbormem", "forest": "#run=0&ep=s01&q=s01-q02&sys=arbormem"} {
			p := filepath.Join(dir, name+".png")
			browse(t, bin, url+hash, p)
			if n := colours(t, p); n < 8 {
				t.Errorf("%s screenshot has %d colours: blank page?", name, n)
			}
		}
	})
}

// TestBrowserForestNotRecorded: a run written before forests.jsonl existed
// still opens its ArborMem questions, saying the forest was not recorded.
func TestBrowserForestNotRecorded(t *testing.T) {
	bin := chromium(t)
	r := fixtureRun(t)
	r.Forests = filepath.Join(t.TempDir(), "forests.jsonl") // absent
	out := t.TempDir()
	if _, err := Write(out, []Run{r}, Options{}); err != nil {
		t.Fatal(err)
	}
	dom := browse(t, bin, "file://"+filepath.ToSlash(filepath.Join(out, "index.html"))+"#run=0&ep=s01&q=s01-q01&sys=arbormem", "")
	if !strings.Contains(dom, `data-state="question"`) || !strings.Contains(dom, `id="noforest">The forest was not recorded`) || !strings.Contains(dom, `id="candidates"`) {
		t.Errorf("an older run's question:\n%.3000s", dom)
	}
}

// filtersPage drives the question list of index.html in a frame: each step
// sets the controls as a user would, then records the status line and the
// rows shown (the frame is readable with --allow-file-access-from-files).
const filtersPage = `<!DOCTYPE html><html><body><iframe id="f" src="index.html#run=0" width="1200" height="900"></iframe><pre id="out"></pre>
<script>
var steps = [
  ["all", function (d) {}],
  ["category B2", function (d) { set(d, "f-cat", "B2"); }],
  ["miss of bm25", function (d) { set(d, "f-cat", ""); set(d, "f-out", "2"); set(d, "f-outsys", "bm25"); }],
  ["correct of any", function (d) { set(d, "f-outsys", "*"); set(d, "f-out", "0"); }],
  ["search orion", function (d) { set(d, "f-out", ""); var t = d.getElementById("f-text"); t.value = "orion"; t.dispatchEvent(new Event("input")); }],
  ["arbormem alone", function (d) { var t = d.getElementById("f-text"); t.value = ""; t.dispatchEvent(new Event("input"));
    var box = d.querySelector("#f-systems input[value=bm25]"); box.checked = false; d.getElementById("f-systems").dispatchEvent(new Event("change")); }]
];
function set(d, id, v) { var e = d.getElementById(id); e.value = v; e.dispatchEvent(new Event("change")); }
function run(i) {
  var d = document.getElementById("f").contentDocument;
  if (i >= steps.length) { document.body.dataset.done = "1"; return; }
  steps[i][1](d);
  setTimeout(function () {
    d = document.getElementById("f").contentDocument;
    var rows = Array.prototype.map.call(d.querySelectorAll("#qlist tbody tr"), function (tr) { return tr.cells[1].querySelector("a").textContent; });
    var heads = Array.prototype.map.call(d.querySelectorAll("#qlist thead th"), function (th) { return th.textContent; });
    document.getElementById("out").textContent += steps[i][0] + "|" + d.getElementById("status").textContent + "|" + rows.join(",") + "|" + heads.join(",") + "\n";
    run(i + 1);
  }, 800);
}
document.getElementById("f").onload = function () { setTimeout(function () { run(0); }, 800); };
</script></body></html>`

// TestBrowserFilters: the list's filters (category, outcome of one system
// or any, text search through the search file, systems ticked) run on the
// row index and show the right rows.
func TestBrowserFilters(t *testing.T) {
	bin := chromium(t)
	out := t.TempDir()
	if _, err := Write(out, []Run{fixtureRun(t)}, Options{PageRows: 2}); err != nil { // two pages
		t.Fatal(err)
	}
	page := filepath.Join(out, "filters.html")
	if err := os.WriteFile(page, []byte(filtersPage), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browse(t, bin, "file://"+filepath.ToSlash(page), "", "--allow-file-access-from-files")
	m := regexp.MustCompile(`(?s)<pre id="out">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil || !strings.Contains(dom, `data-done="1"`) {
		t.Fatalf("the steps did not finish:\n%.3000s", dom)
	}
	got := strings.Split(strings.TrimSpace(m[1]), "\n")
	want := []string{
		"all|3 of 3 question rows (3 questions); showing 1–3|s01-q01,s01-q02,s02-q01|Episode,Question,Category,Budget,bm25,arbormem,Gold",
		"category B2|1 of 3 question rows (3 questions); showing 1–1|s01-q02|Episode,Question,Category,Budget,bm25,arbormem,Gold",
		"miss of bm25|1 of 3 question rows (3 questions); showing 1–1|s01-q02|Episode,Question,Category,Budget,bm25,arbormem,Gold",
		"correct of any|3 of 3 question rows (3 questions); showing 1–3|s01-q01,s01-q02,s02-q01|Episode,Question,Category,Budget,bm25,arbormem,Gold",
		"search orion|1 of 3 question rows (3 questions); showing 1–1|s02-q01|Episode,Question,Category,Budget,bm25,arbormem,Gold",
		"arbormem alone|3 of 3 question rows (3 questions); showing 1–3|s01-q01,s01-q02,s02-q01|Episode,Question,Category,Budget,arbormem,Gold",
	}
	if len(got) != len(want) {
		t.Fatalf("steps:\n%s", m[1])
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// colours counts the distinct colours of a PNG (sampled), to tell a drawn
// page from a blank one.
func colours(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}] = true
		}
	}
	return len(seen)
}

// TestBrowserTraceNumbers opens an ArborMem question of a LoCoMo-shaped
// conversation (candidates at full precision, stored by column to 3
// decimals and gzipped) and checks that every number of the candidate
// table reads as the page would print the whole number (toFixed(3)), in
// the candidates' order: the report's compaction loses nothing it shows.
func TestBrowserTraceNumbers(t *testing.T) {
	bin := chromium(t)
	sh := realShape
	sh.episodes, sh.questions = 1, 20
	dir := t.TempDir()
	run := locomoRun(t, dir, sh)
	out := t.TempDir()
	if _, err := Write(out, []Run{run}, Options{}); err != nil {
		t.Fatal(err)
	}
	const qid = "conv-26:17"
	var want *memory.Trace
	var items []record.BundleItem
	if _, err := eachLine(run.Bundles, func(line []byte) {
		var b record.Bundle
		if json.Unmarshal(line, &b) == nil && b.Question == qid && b.System == "arbormem" {
			want, items = b.Trace, b.Items
		}
	}); err != nil || want == nil {
		t.Fatalf("the fixture has no ArborMem trace of %s (%v)", qid, err)
	}
	dom := browse(t, bin, "file://"+filepath.ToSlash(filepath.Join(out, "index.html"))+"#run=0&ep=conv-26&q="+qid+"&sys=arbormem", "")
	table := regexp.MustCompile(`(?s)<table class="cands" id="candidates">(.*?)</table>`).FindStringSubmatch(dom)
	if table == nil {
		t.Fatalf("no candidate table:\n%.3000s", dom)
	}
	cell := regexp.MustCompile(`<t[hd]>([^<]*)</t[hd]>`)
	var rows [][]string
	for _, tr := range regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`).FindAllStringSubmatch(table[1], -1) {
		var cells []string
		for _, c := range cell.FindAllStringSubmatch(tr[1], -1) {
			cells = append(cells, c[1])
		}
		rows = append(rows, cells)
	}
	head := strings.Join(rows[0], ",")
	if head != "candidate,score,s_ce,s_key,s_rec,s_topic,rerank raw,rerank p" {
		t.Fatalf("candidate columns = %s", head)
	}
	if len(rows)-1 != len(want.Candidates) {
		t.Fatalf("%d candidates shown, the trace has %d", len(rows)-1, len(want.Candidates))
	}
	// The items in order (their positions are stored as runs), each with
	// its sources.
	var shown, recorded []string
	for _, tr := range regexp.MustCompile(`(?s)<tr class="item[^"]*">(.*?)</tr>`).FindAllStringSubmatch(dom, -1) {
		var srcs []string
		for _, m := range regexp.MustCompile(`<span class="src[^"]*">([^<]*)</span>`).FindAllStringSubmatch(tr[1], -1) {
			srcs = append(srcs, m[1])
		}
		shown = append(shown, strings.Join(srcs, "+"))
	}
	for _, it := range items {
		recorded = append(recorded, strings.Join(it.Sources, "+"))
	}
	if strings.Join(shown, " ") != strings.Join(recorded, " ") {
		t.Errorf("items shown by their sources:\n%s\nrecorded:\n%s", strings.Join(shown, " "), strings.Join(recorded, " "))
	}
	for i, c := range want.Candidates {
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
		w := []string{c.Node, f(c.Score), f(c.CE), f(c.Key), f(c.Rec), f(c.Topic), f(c.Raw), f(c.Prob)}
		if got := strings.Join(rows[i+1], ","); got != strings.Join(w, ",") {
			t.Errorf("candidate %d shows %s, want %s", i, got, strings.Join(w, ","))
		}
	}
}

// TestBrowserNoDecompressionStream: in a browser without
// DecompressionStream (older than Chromium 80, Firefox 113, Safari 16.4),
// the tables show and the question browser says why it cannot read its
// data rather than naming a file it failed to load.
func TestBrowserNoDecompressionStream(t *testing.T) {
	bin := chromium(t)
	out := t.TempDir()
	if _, err := Write(out, []Run{fixtureRun(t)}, Options{}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(page), "<head>", "<head><script>delete window.DecompressionStream;</script>", 1)
	if err := os.WriteFile(filepath.Join(out, "old.html"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browse(t, bin, "file://"+filepath.ToSlash(filepath.Join(out, "old.html"))+"#run=0&ep=s01&q=s01-q01&sys=arbormem", "")
	if !strings.Contains(dom, `data-state="error"`) || !regexp.MustCompile(`<p class="error">this browser cannot read data/[a-z0-9-]+\.js: it lacks DecompressionStream`).MatchString(dom) {
		t.Errorf("no DecompressionStream:\n%.3000s", regexp.MustCompile(`(?s)<div id="app".*`).FindString(dom))
	}
	if !strings.Contains(dom, `<table`) {
		t.Error("the tables do not show")
	}
}

// TestBrowserBrokenData: a data file the page cannot read ends the question
// view in its error state, naming the file and what failed, rather than
// leaving it on loading: base64 that atob refuses, a corrupt gzip stream,
// gzipped text that is not JSON, a script cut short, and one that hands
// over another file's data.
func TestBrowserBrokenData(t *testing.T) {
	bin := chromium(t)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write([]byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	notJSON := base64.StdEncoding.EncodeToString(gz.Bytes())
	for _, c := range []struct {
		name, script, want string // script and want: %s is the data file's name
	}{
		{"base64", `ARBOR.z("%s", "not*base64!");`, `cannot decode data/%s.js: its base64 is invalid`},
		{"gzip", `ARBOR.z("%s", "aGVsbG8gd29ybGQ=");`, `cannot decode data/%s.js: its gzip stream is corrupt`},
		{"json", `ARBOR.z("%s", "` + notJSON + `");`, `cannot decode data/%s.js: its JSON is invalid`},
		{"cut-short", `ARBOR.z("%s", "H4sIAAAA`, `data/%s.js did not hand over its data`},
		{"other-name", `ARBOR.load("%s-other", {});`, `data/%s.js did not hand over its data`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			if _, err := Write(out, []Run{fixtureRun(t)}, Options{}); err != nil {
				t.Fatal(err)
			}
			// Every bundle chunk broken alike: the question opened loads one.
			chunks, err := filepath.Glob(filepath.Join(out, "data", "b-*.js"))
			if err != nil || len(chunks) == 0 {
				t.Fatalf("no bundle chunks written (%v)", err)
			}
			for _, p := range chunks {
				name := strings.TrimSuffix(filepath.Base(p), ".js")
				if err := os.WriteFile(p, []byte(fmt.Sprintf(c.script, name)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dom := browse(t, bin, "file://"+filepath.ToSlash(filepath.Join(out, "index.html"))+"#run=0&ep=s01&q=s01-q01&sys=arbormem", "")
			want := regexp.MustCompile(`<p class="error">` + fmt.Sprintf(regexp.QuoteMeta(c.want), `b-0-[0-9]+-[0-9]+`))
			if !strings.Contains(dom, `data-state="error"`) || !want.MatchString(dom) {
				t.Errorf("want the error state saying %q:\n%.3000s", c.want, regexp.MustCompile(`(?s)<div id="app".*`).FindString(dom))
			}
		})
	}
}
