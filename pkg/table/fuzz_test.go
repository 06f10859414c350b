package table

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzLatexEscape: whatever the text, no LaTeX special survives unescaped.
func FuzzLatexEscape(f *testing.F) {
	for _, s := range []string{"a_b & 5%", `\textbf{x}`, "$-1$ ~^#{}|", "−14.6% ↓ §6.1", ""} {
		f.Add(s)
	}
	// The escapes latexEscape produces, longest first so none is cut.
	tokens := []string{`\textasciicircum{}`, `\textasciitilde{}`, `\textbackslash{}`, `$\downarrow$`, `$\uparrow$`, `$\times$`,
		`$\kappa$`, `\textbar{}`, `$\cdot$`, `$\geq$`, `$\leq$`, `\S{}`, `$-$`, `\&`, `\%`, `\$`, `\#`, `\_`, `\{`, `\}`}
	f.Fuzz(func(t *testing.T, s string) {
		rest := latexEscape(s)
		for _, tok := range tokens {
			rest = strings.ReplaceAll(rest, tok, "")
		}
		if i := strings.IndexAny(rest, "\\&%$#_{}~^|\n"); i >= 0 {
			t.Errorf("latexEscape(%q) = %q leaves %q unescaped", s, latexEscape(s), rest[i])
		}
	})
}

// FuzzRender: arbitrary labels, texts, notes and values never panic, never
// break the Markdown grid or the CSV shape, and always give valid JSON.
func FuzzRender(f *testing.F) {
	f.Add("label", "text", "(−1.0%)", 1.5, "Group|x", 2)
	f.Add("a|b\nc", "", "", -0.0001, "", 0)
	f.Add("", "x,\"y\"", "n", 1e300, "g", 9)
	f.Add("| x |", "| caption |", "|", 3.0, "|", 1)
	f.Fuzz(func(t *testing.T, label, text, note string, v float64, group string, span int) {
		tb := Table{
			Title: label, Caption: text, Stub: group,
			Groups:  []Group{{Name: group, Span: span}},
			Columns: []Column{{Name: label, Decimals: span % 8, Better: Lower}, {Name: text, Align: Center, Decimals: 2}},
			Rows: []Row{{Label: label, Indent: span % 3, Cells: []Cell{
				{Value: &v, Note: note, CI: &Interval{Lo: v - 1, Hi: v * 2}, VsBest: &Comparison{Best: label, Diff: v, Lo: -v, Hi: v, P: v}},
				{Text: text},
			}}, {Label: text, Cells: []Cell{V(v)}}},
			Highlight: Highlight{By: ByColumn, Second: true},
			Notes:     []string{note},
			Stats:     &StatsInfo{Level: v, Method: note},
			CIForm:    []CIForm{CIHidden, CIPlusMinus, CIBrackets}[((span%3)+3)%3],
		}
		md := tb.Markdown()
		// The grid is the first run of lines starting with a border; a
		// caption after it may start with one too.
		rows, in := 0, false
		for _, line := range strings.Split(md, "\n") {
			if !strings.HasPrefix(line, "|") {
				if in {
					break
				}
				continue
			}
			in = true
			rows++
			if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 4 {
				t.Fatalf("markdown line has %d cell borders, want 4: %q", n, line)
			}
		}
		if rows != 4 {
			t.Fatalf("markdown has %d table lines, want 4:\n%s", rows, md)
		}
		data, err := tb.CSV()
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || len(recs) != 3 {
			t.Fatalf("csv reads back as %d records (%v):\n%s", len(recs), err, data)
		}
		js, err := tb.JSON()
		if err != nil || !json.Valid(js) {
			t.Fatalf("json invalid (%v): %s", err, js)
		}
		if _, err := tb.LaTeX("tab:x"); err != nil {
			t.Fatal(err)
		}
	})
}
