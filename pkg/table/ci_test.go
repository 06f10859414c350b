package table

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// ciSample is a row-highlighted table whose cells carry intervals and
// comparisons with the row's best: B is distinguishable from the best, C
// is not.
func ciSample() Table {
	cell := func(v, lo, hi float64, vs *Comparison) Cell {
		return Cell{Value: &v, CI: &Interval{Lo: lo, Hi: hi}, VsBest: vs}
	}
	return Table{
		Title:   "Accuracy",
		Caption: "Accuracy (%).",
		Stub:    "Benchmark",
		Columns: []Column{{Name: "A", Decimals: 1}, {Name: "B", Decimals: 1}, {Name: "C", Decimals: 1}},
		Rows: []Row{{Label: "LME", Cells: []Cell{
			cell(68.4, 64.2, 72.6, nil),
			cell(50, 45.5, 54.4, &Comparison{Best: "A", N: 500, Diff: 18.4, Lo: 12.1, Hi: 24.6, P: 0.0001, Distinct: true}),
			cell(66, 61.9, 70.1, &Comparison{Best: "A", N: 500, Diff: 2.4, Lo: -1.2, Hi: 6.0, P: 0.21}),
		}}},
		Highlight: Highlight{By: ByRow, Second: true},
		Stats:     &StatsInfo{Level: 0.95, Method: "percentile bootstrap, 10,000 resamples of questions"},
	}
}

func TestCIRendering(t *testing.T) {
	tb := ciSample()
	// Hidden by default: Markdown and LaTeX keep the paper's layout.
	if md := tb.Markdown(); strings.Contains(md, "±") || strings.Contains(md, Indistinct) || strings.Contains(md, "confidence") {
		t.Errorf("intervals shown without CIForm:\n%s", md)
	}
	for _, form := range []CIForm{CIPlusMinus, CIBrackets} {
		tb.CIForm = form
		tex, err := tb.LaTeX("tab:ci")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "ci-"+string(form)+".md", []byte(tb.Markdown()))
		golden(t, "ci-"+string(form)+".tex", tex)
	}
	tb.CIForm = CIPlusMinus
	md := tb.Markdown()
	for _, want := range []string{"**68.4** ± 4.2", "_66.0_ ± 4.1 ≈", "50.0 ± 4.4 |", "≈ marks a result not distinguishable from the best of its row"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "50.0 ± 4.4 ≈") {
		t.Error("a distinguishable cell is marked ≈")
	}
	// CSV and JSON always carry the intervals, whatever the form.
	tb.CIForm = CIHidden
	csvData, err := tb.CSV()
	if err != nil {
		t.Fatal(err)
	}
	js, err := tb.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "ci.csv", csvData)
	golden(t, "ci.json", js)
	var back struct {
		Rows []struct {
			Cells []struct {
				CI     *Interval   `json:"ci"`
				VsBest *Comparison `json:"vs_best"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if c := back.Rows[0].Cells[2]; c.CI == nil || c.CI.Lo != 61.9 || c.VsBest == nil || c.VsBest.Distinct {
		t.Errorf("json cell C: %+v", c)
	}
}

func TestCINonFinite(t *testing.T) {
	v := 50.0
	tb := Table{
		Columns: []Column{{Name: "A", Decimals: 1}},
		Rows:    []Row{{Label: "x", Cells: []Cell{{Value: &v, CI: &Interval{Lo: math.NaN(), Hi: 60}, VsBest: &Comparison{P: math.NaN()}}}}},
	}
	if _, err := tb.JSON(); err != nil {
		t.Fatalf("non-finite interval breaks JSON: %v", err)
	}
	csvData, err := tb.CSV()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(csvData), "NaN") {
		t.Errorf("NaN in CSV:\n%s", csvData)
	}
}

func TestParseCIForm(t *testing.T) {
	for in, want := range map[string]CIForm{"": CIHidden, "off": CIHidden, "pm": CIPlusMinus, "interval": CIBrackets, " PM ": CIPlusMinus} {
		if got, err := ParseCIForm(in); err != nil || got != want {
			t.Errorf("ParseCIForm(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseCIForm("sometimes"); err == nil {
		t.Error("bad form accepted")
	}
}

// TestLinePlotErrorBars: a series with intervals draws extra strokes in its
// colour (the bars); one without draws none.
func TestLinePlotErrorBars(t *testing.T) {
	x := []float64{256, 1024, 4096}
	base := Plot{Title: "p", LogX: true, Series: []Series{{Name: "A", X: x, Y: []float64{40, 50, 60}}}}
	withBars := base
	withBars.Series = []Series{{Name: "A", X: x, Y: []float64{40, 50, 60}, Lo: []float64{35, 44, math.NaN()}, Hi: []float64{45, 56, 66}}}
	count := func(p Plot) int {
		var buf bytes.Buffer
		if err := LinePlotSVG(&buf, p); err != nil {
			t.Fatal(err)
		}
		_, strokes := svgDoc(t, buf.Bytes())
		c := seriesColors[0]
		return strokes["#"+hex2(c.R)+hex2(c.G)+hex2(c.B)]
	}
	plain, bars := count(base), count(withBars)
	if bars <= plain {
		t.Errorf("error bars add no strokes: %d with, %d without", bars, plain)
	}
}

func FuzzParseCIForm(f *testing.F) {
	for _, s := range []string{"", "off", "pm", "interval", "PM", "±", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		form, err := ParseCIForm(s)
		if err != nil {
			return
		}
		switch form {
		case CIHidden, CIPlusMinus, CIBrackets:
		default:
			t.Fatalf("ParseCIForm(%q) = %q", s, form)
		}
	})
}
