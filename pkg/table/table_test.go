package table

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/table/tabletest"
)

var _ = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	tabletest.Golden(t, filepath.Join("testdata", "golden", name), got)
}

func f(v float64) *float64 { return &v }

// sample is a table with every feature: groups with a gap, units, notes,
// indents, missing and non-finite values, LaTeX specials, a forced style.
func sample() Table {
	nan := math.NaN()
	return Table{
		Title:   "Accuracy & cost_test",
		Caption: "Answer accuracy (%) on 50% of $questions; best bold, second underlined.",
		Stub:    "Benchmark",
		Groups:  []Group{{Name: "Context and Retrieval", Span: 2}, {Name: "", Span: 1}, {Name: "Memory Systems", Span: 2}},
		Columns: []Column{
			{Name: "Full", Align: Center, Decimals: 2},
			{Name: "BM25", Align: Center, Decimals: 2},
			{Name: "Odd|name", Align: Left, Decimals: 1},
			{Name: "Mem0", Unit: "s", Decimals: 2},
			{Name: "ArborMem", Decimals: 2},
		},
		Rows: []Row{
			{Label: "LongMemEval", Cells: []Cell{V(27.4), V(27.4), V(1), V(59.4), V(68.4)}},
			{Label: "BEAM_100K", Indent: 1, Cells: []Cell{V(22.27), {Value: &nan}, T("n/a"), V(46.39), {Value: f(49.75), Note: "(−14.6%)"}}},
			{Label: "Ties", Cells: []Cell{V(76.0), V(76.004), {}, V(68), {Value: f(-0.001), Style: Second}}},
		},
		Highlight: Highlight{By: ByRow, Second: true},
		Notes:     []string{"heuristic: answers by the offline extractive answerer; not comparable with model results", "2 errors ~ counted as 0"},
	}
}

func TestGoldenRenderers(t *testing.T) {
	tb := sample()
	csvData, err := tb.CSV()
	if err != nil {
		t.Fatal(err)
	}
	tex, err := tb.LaTeX("tab:sample")
	if err != nil {
		t.Fatal(err)
	}
	js, err := tb.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.md", []byte(tb.Markdown()))
	golden(t, "sample.csv", csvData)
	golden(t, "sample.tex", tex)
	golden(t, "sample.json", js)
	golden(t, "sample.html", []byte(tb.HTML()+"\n"))

	col := Table{
		Title: "Efficiency", Stub: "Method",
		Groups: []Group{{Name: "Memory Construction", Span: 1}, {Name: "Query Time", Span: 2}},
		Columns: []Column{
			{Name: "Ingest/Turn", Unit: "s", Better: Lower, Decimals: 3},
			{Name: "TTFT", Unit: "s", Better: Lower, Decimals: 3},
			{Name: "Throughput", Unit: "q/h", Better: Higher, Decimals: 2},
		},
		Rows: []Row{
			{Label: "ArborMem", Cells: []Cell{V(1.363), V(0.381), V(10.45)}},
			{Label: "Mem0", Cells: []Cell{V(1.543), V(0.153), V(9.39)}},
			{Label: "A-MEM", Cells: []Cell{V(3.091), V(0.198), V(4.69)}},
		},
		Highlight: Highlight{By: ByColumn},
	}
	tex, err = col.LaTeX("tab:efficiency")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "efficiency.md", []byte(col.Markdown()))
	golden(t, "efficiency.tex", tex)
	golden(t, "efficiency.html", []byte(col.HTML()+"\n"))
}

func TestStyles(t *testing.T) {
	tests := []struct {
		name string
		tb   Table
		want [][]Style
	}{
		{
			name: "row, ties share best, second is next distinct value",
			tb: Table{
				Columns:   cols(4, 1),
				Rows:      []Row{{Cells: []Cell{V(76), V(68), V(76.04), V(66)}}},
				Highlight: Highlight{By: ByRow, Second: true},
			},
			want: [][]Style{{Best, Second, Best, Plain}},
		},
		{
			name: "row, strongest baseline underlined: best among columns 0-2, below a better column 3",
			tb: Table{
				Columns: cols(4, 1),
				Rows: []Row{
					{Cells: []Cell{V(42.1), V(16.6), V(42.8), V(53.2)}},
					{Cells: []Cell{V(70), V(60), V(50), V(65)}},
				},
				Highlight: Highlight{By: ByRow, Second: true, SecondAmong: []int{0, 1, 2}},
			},
			want: [][]Style{{Plain, Plain, Second, Best}, {Best, Plain, Plain, Plain}},
		},
		{
			name: "row, lower is better, no second requested",
			tb: Table{
				Columns:   cols(3, 2),
				Rows:      []Row{{Cells: []Cell{V(3), V(1), V(2)}}},
				Highlight: Highlight{By: ByRow, Better: Lower},
			},
			want: [][]Style{{Plain, Best, Plain}},
		},
		{
			name: "column, by each column's direction; missing and NaN skipped",
			tb: Table{
				Columns: []Column{{Better: Lower, Decimals: 3}, {Better: Higher, Decimals: 2}, {Decimals: 1}},
				Rows: []Row{
					{Cells: []Cell{V(1.363), V(10.45), V(5)}},
					{Cells: []Cell{V(1.543), {}, V(9)}},
					{Cells: []Cell{{Value: f(math.NaN())}, V(4.69), V(1)}},
				},
				Highlight: Highlight{By: ByColumn, Second: true},
			},
			want: [][]Style{{Best, Best, Plain}, {Second, Plain, Plain}, {Plain, Second, Plain}},
		},
		{
			name: "single value has nothing to beat; explicit style kept",
			tb: Table{
				Columns:   cols(2, 1),
				Rows:      []Row{{Cells: []Cell{V(1), {Text: "x", Style: Best}}}},
				Highlight: Highlight{By: ByRow, Second: true},
			},
			want: [][]Style{{Plain, Best}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.tb.Styles()
			if len(got) != len(tt.want) {
				t.Fatalf("got %d rows, want %d", len(got), len(tt.want))
			}
			for r := range got {
				for c := range got[r] {
					if got[r][c] != tt.want[r][c] {
						t.Errorf("cell (%d,%d): got %q, want %q", r, c, got[r][c], tt.want[r][c])
					}
				}
			}
		})
	}
}

func cols(n, decimals int) []Column {
	out := make([]Column, n)
	for i := range out {
		out[i].Decimals = decimals
	}
	return out
}

func TestFormat(t *testing.T) {
	tests := []struct {
		v    float64
		d    int
		want string
	}{
		{27.4, 2, "27.40"},
		{-0.001, 2, "0.00"},
		{-0.5, 0, "0"},
		{-1.25, 1, "-1.2"},
		{math.NaN(), 2, Missing},
		{math.Inf(-1), 1, Missing},
		{3, -1, "3"},
	}
	for _, tt := range tests {
		if got := Format(tt.v, tt.d); got != tt.want {
			t.Errorf("Format(%v, %d) = %q, want %q", tt.v, tt.d, got, tt.want)
		}
	}
}

func TestNoNonFiniteInOutput(t *testing.T) {
	tb := Table{
		Columns: cols(3, 2),
		Rows:    []Row{{Label: "r", Cells: []Cell{{Value: f(math.NaN())}, {Value: f(math.Inf(1))}, V(1)}}},
	}
	csvData, _ := tb.CSV()
	tex, _ := tb.LaTeX("")
	js, err := tb.JSON()
	if err != nil {
		t.Fatalf("json with NaN cells: %v", err)
	}
	for name, out := range map[string]string{"md": tb.Markdown(), "html": tb.HTML(), "csv": string(csvData), "tex": string(tex), "json": string(js)} {
		for _, bad := range []string{"NaN", "Inf"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s output contains %q:\n%s", name, bad, out)
			}
		}
	}
	var back struct {
		Rows []struct {
			Cells []struct {
				Value   *float64 `json:"value"`
				Display string   `json:"display"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if c := back.Rows[0].Cells; c[0].Value != nil || c[0].Display != Missing || c[2].Value == nil || *c[2].Value != 1 {
		t.Errorf("json cells = %+v", c)
	}
}

func TestLatexEscape(t *testing.T) {
	got := latexEscape(`a_b & 5% $x$ #1 {y} ~ ^ \ −2 ↓`)
	want := `a\_b \& 5\% \$x\$ \#1 \{y\} \textasciitilde{} \textasciicircum{} \textbackslash{} $-$2 $\downarrow$`
	if got != want {
		t.Errorf("latexEscape:\n got %s\nwant %s", got, want)
	}
}

func TestValidateAndWriteAll(t *testing.T) {
	dir := t.TempDir()
	bad := Table{Title: "bad", Columns: cols(2, 1), Rows: []Row{{Label: "r", Cells: []Cell{V(1)}}}}
	if err := WriteAll(dir, "bad", bad); err == nil || !strings.Contains(err.Error(), `row 0 ("r"): 1 cells, want 2`) {
		t.Errorf("WriteAll(short row) error = %v", err)
	}
	overrun := Table{Title: "g", Columns: cols(1, 1), Groups: []Group{{Name: "x", Span: 2}}}
	if err := overrun.Validate(); err == nil {
		t.Error("Validate accepted a group spanning past the last column")
	}
	if err := WriteAll(dir, "../x", sample()); err == nil {
		t.Error("WriteAll accepted a name with a path separator")
	}
	if err := WriteAll(dir, "sample", sample()); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "sample.csv sample.json sample.md sample.tex" {
		t.Errorf("files written: %s", got)
	}
	tex, _ := os.ReadFile(filepath.Join(dir, "sample.tex"))
	if !strings.Contains(string(tex), `\label{tab:sample}`) {
		t.Errorf("tex lacks its label:\n%s", tex)
	}
}

func TestRenderersTolerateRaggedRows(t *testing.T) {
	tb := Table{
		Columns: cols(2, 1),
		Groups:  []Group{{Name: "g", Span: 5}, {Name: "h", Span: 0}},
		Rows:    []Row{{Label: "short", Cells: []Cell{V(1)}}, {Label: "long", Cells: []Cell{V(1), V(2), V(3)}}},
	}
	if md := tb.Markdown(); !strings.Contains(md, "| short | 1.0 |   – |") {
		t.Errorf("short row not padded with a dash:\n%s", md)
	}
	if _, err := tb.LaTeX(""); err != nil {
		t.Error(err)
	}
	if _, err := tb.CSV(); err != nil {
		t.Error(err)
	}
}

// svgDoc walks an SVG and collects text contents and stroked paths.
func svgDoc(t *testing.T, data []byte) (texts []string, strokes map[string]int) {
	t.Helper()
	strokes = map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(data))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("svg does not parse as XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local == "path" {
				for _, a := range e.Attr {
					if a.Name.Local == "style" {
						for _, part := range strings.Split(a.Value, ";") {
							if k, v, ok := strings.Cut(part, ":"); ok && k == "stroke" {
								strokes[v]++
							}
						}
					}
				}
			}
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(e)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return texts, strokes
}

func TestLinePlotSVG(t *testing.T) {
	budgets := []float64{256, 512, 1024, 2048, 4096, 8192, 16384, 30968}
	p := Plot{
		Title: "Accuracy vs budget", XLabel: "Answer-time evidence budget (tokens)", YLabel: "Accuracy (%)", LogX: true,
		XTicks: []Tick{{256, "256"}, {512, "512"}, {1024, "1K"}, {2048, "2K"}, {4096, "4K"}, {8192, "8K"}, {16384, "16K"}, {30968, "32K"}},
		Series: []Series{
			{Name: "Full", X: budgets, Y: []float64{8, 8, 8, 8, 8, 10, 16, 28}},
			{Name: "Mem0", X: budgets, Y: []float64{38, 50, 58, 72, 60, 66, 66, 66}},
			{Name: "ArborMem", X: budgets, Y: []float64{64, 74, 74, 68, 70, math.NaN(), 72, 76}},
		},
	}
	var buf bytes.Buffer
	if err := LinePlotSVG(&buf, p); err != nil {
		t.Fatal(err)
	}
	texts, strokes := svgDoc(t, buf.Bytes())
	has := map[string]bool{}
	for _, s := range texts {
		has[s] = true
	}
	for _, want := range []string{"Full", "Mem0", "ArborMem", "1K", "32K", "Accuracy (%)", "Accuracy vs budget"} {
		if !has[want] {
			t.Errorf("svg lacks text %q; texts: %q", want, texts)
		}
	}
	// Each series strokes its line in its own colour (plus its legend
	// thumbnail); no other element uses these colours.
	for i, s := range p.Series {
		c := seriesColors[i]
		hex := "#" + hex2(c.R) + hex2(c.G) + hex2(c.B)
		if strokes[hex] < 2 {
			t.Errorf("series %q: %d paths stroked %s, want its line and legend thumbnail; strokes: %v", s.Name, strokes[hex], hex, strokes)
		}
	}
	if c := seriesColors[3]; strokes["#"+hex2(c.R)+hex2(c.G)+hex2(c.B)] != 0 {
		t.Error("a fourth series colour appears with three series")
	}
	// An opaque page, y grid lines, and dash patterns that keep
	// overlapping lines apart.
	svg := buf.String()
	if !strings.Contains(svg, "fill:#FFFFFF") || strokes["#DDDDDD"] == 0 || strings.Count(svg, "stroke-dasharray") < 2 {
		t.Errorf("plot lacks a white background, y grid or dashed series (grid strokes %d, dashes %d)", strokes["#DDDDDD"], strings.Count(svg, "stroke-dasharray"))
	}
}

func hex2(b uint8) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[b>>4], digits[b&15]})
}

func TestLinePlotSVGErrors(t *testing.T) {
	tests := []struct {
		name string
		p    Plot
	}{
		{"no series", Plot{Title: "empty"}},
		{"only non-finite points", Plot{Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{math.NaN()}}}}},
		{"log axis with non-positive x only", Plot{LogX: true, Series: []Series{{Name: "a", X: []float64{0, -1}, Y: []float64{1, 2}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := LinePlotSVG(io.Discard, tt.p); err == nil {
				t.Error("want an error")
			}
		})
	}
	if err := WriteSVG(t.TempDir(), "budget", Plot{Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}}}); err != nil {
		t.Errorf("WriteSVG: %v", err)
	}
}
