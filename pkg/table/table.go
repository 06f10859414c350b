// Package table holds result tables and renders them as Markdown (for the
// terminal), CSV, LaTeX (booktabs, as in the paper) and JSON, and draws line
// plots as SVG. Tables are plain data: aggregation (package scoring) builds
// them from samples; this package only lays them out, so every format shows
// the same numbers and the same highlighted cells.
package table

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Align is a column's horizontal alignment.
type Align string

// Alignments. The zero value is right-aligned, the natural choice for numbers.
const (
	Right  Align = ""
	Left   Align = "left"
	Center Align = "center"
)

// Better says which direction of a column's values is better.
type Better string

// Directions. The zero value means the column is never highlighted.
const (
	NoBetter Better = ""
	Higher   Better = "higher"
	Lower    Better = "lower"
)

// Axis says along which lines best values are compared.
type Axis string

// Highlight axes.
const (
	// NoHighlight marks only cells with an explicit Style.
	NoHighlight Axis = ""
	// ByRow compares the cells of each row (paper Tables "main-results" and
	// "read-budget": the best system per benchmark or budget).
	ByRow Axis = "row"
	// ByColumn compares the cells of each column by the column's Better
	// (paper Table "efficiency").
	ByColumn Axis = "column"
)

// Style is a cell's emphasis.
type Style string

// Styles. Best renders bold, Second underlined in LaTeX (italic in
// Markdown, which has no underline).
const (
	Plain  Style = ""
	Best   Style = "best"
	Second Style = "second"
)

// Highlight says how a table marks its best and second-best values.
type Highlight struct {
	By Axis `json:"by,omitempty"`
	// Better is the direction for ByRow (default Higher); ByColumn uses each
	// column's own Better.
	Better Better `json:"better,omitempty"`
	// Second also marks the second-best value (the paper's underline).
	Second bool `json:"second,omitempty"`
	// SecondAmong, when set, moves the underline to the best value among
	// these columns (paper Table "main-results": "the strongest baseline is
	// underlined"); a value that is also the overall best stays bold only.
	SecondAmong []int `json:"second_among,omitempty"`
}

// Group is a header spanning consecutive columns ("Context and Retrieval",
// "Memory Systems"). Groups are laid out left to right from the first data
// column; a group with an empty name leaves its columns without a header.
type Group struct {
	Name string `json:"name"`
	Span int    `json:"span"`
}

// Column is one data column (the row labels form the stub column before it).
type Column struct {
	Name string `json:"name"`
	// Unit is shown under or after the name ("s", "min", "q/h").
	Unit   string `json:"unit,omitempty"`
	Align  Align  `json:"align,omitempty"`
	Better Better `json:"better,omitempty"`
	// Decimals is the number of digits after the point for Values.
	Decimals int `json:"decimals"`
}

// Cell is one value. Value drives formatting and highlighting; Text, when
// set, is shown instead of the formatted value (a cell with neither shows
// "–"); Note follows the value in small print ("(−14.6%)").
type Cell struct {
	Value *float64 `json:"value,omitempty"`
	Text  string   `json:"text,omitempty"`
	Note  string   `json:"note,omitempty"`
	// Style forces an emphasis regardless of Highlight (the ablation's bold
	// reference row).
	Style Style `json:"style,omitempty"`
	// CI is the value's confidence interval and VsBest its paired
	// comparison with the best cell of its line (package stats); both are
	// optional and shown by Markdown and LaTeX only with Table.CIForm.
	CI     *Interval   `json:"ci,omitempty"`
	VsBest *Comparison `json:"vs_best,omitempty"`
}

// Row is one labelled line of cells.
type Row struct {
	Label string `json:"label"`
	// Indent nests the label under the row above (the paper's \quad).
	Indent int    `json:"indent,omitempty"`
	Cells  []Cell `json:"cells"`
}

// Table is a titled grid of cells with its caption and footnotes.
type Table struct {
	Title   string `json:"title"`
	Caption string `json:"caption,omitempty"`
	// Stub heads the row-label column ("Benchmark", "Budget", "Method").
	Stub      string    `json:"stub,omitempty"`
	Groups    []Group   `json:"groups,omitempty"`
	Columns   []Column  `json:"columns"`
	Rows      []Row     `json:"rows"`
	Highlight Highlight `json:"highlight"`
	// Split, when above zero, typesets the LaTeX form as two tables cut
	// after the first Split groups (a table too wide for a page).
	Split int `json:"split,omitempty"`
	// Notes are footnotes (heuristic components, error counts).
	Notes []string `json:"notes,omitempty"`
	// Stats says how the cells' intervals were made (nil without any).
	Stats *StatsInfo `json:"stats,omitempty"`
	// CIForm is how Markdown and LaTeX show intervals (a rendering choice,
	// not part of the data).
	CIForm CIForm `json:"-"`
}

// Missing is what a cell without a usable value shows.
const Missing = "–"

// V returns a cell holding v.
func V(v float64) Cell { return Cell{Value: &v} }

// T returns a cell holding text only.
func T(s string) Cell { return Cell{Text: s} }

// Validate reports cells that do not line up with the columns and groups
// that overrun them. Renderers tolerate both (padding or dropping cells);
// WriteAll refuses them, since a saved table should be exactly what was meant.
func (t Table) Validate() error {
	for i, r := range t.Rows {
		if len(r.Cells) != len(t.Columns) {
			return fmt.Errorf("table %q: row %d (%q): %d cells, want %d (one per column)", t.Title, i, r.Label, len(r.Cells), len(t.Columns))
		}
	}
	span := 0
	for i, g := range t.Groups {
		if g.Span < 1 {
			return fmt.Errorf("table %q: group %d (%q): span %d, want at least 1", t.Title, i, g.Name, g.Span)
		}
		span += g.Span
	}
	if span > len(t.Columns) {
		return fmt.Errorf("table %q: groups span %d columns, table has %d", t.Title, span, len(t.Columns))
	}
	return nil
}

// cell returns row r's cell for column c, or an empty cell when the row is
// short.
func (t Table) cell(r, c int) Cell {
	if c < len(t.Rows[r].Cells) {
		return t.Rows[r].Cells[c]
	}
	return Cell{}
}

// finite reports whether the cell holds a value that can be shown.
func (c Cell) finite() bool {
	return c.Value != nil && !math.IsNaN(*c.Value) && !math.IsInf(*c.Value, 0)
}

// Format renders v with d decimals; "-0.00" becomes "0.00" so that rounding
// never invents a sign.
func Format(v float64, d int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Missing
	}
	if d < 0 {
		d = 0
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:], "0.") == "" {
		s = s[1:]
	}
	return s
}

// text is the cell's display text without its note or emphasis.
func (t Table) text(r, c int) string {
	cl := t.cell(r, c)
	if cl.Text != "" {
		return cl.Text
	}
	if cl.finite() && c < len(t.Columns) {
		return Format(*cl.Value, t.Columns[c].Decimals)
	}
	return Missing
}

// rounded is the value as displayed, so that values shown equal tie.
func (t Table) rounded(r, c int) (float64, bool) {
	cl := t.cell(r, c)
	if !cl.finite() {
		return 0, false
	}
	v, err := strconv.ParseFloat(Format(*cl.Value, t.Columns[c].Decimals), 64)
	return v, err == nil
}

// Styles returns each cell's emphasis: explicit Styles first, then the
// Highlight rule. Ties share a mark; the second best is the next distinct
// displayed value (paper Table "read-budget", 32K row: two bold 76.0 and an
// underlined 68.0).
func (t Table) Styles() [][]Style {
	out := make([][]Style, len(t.Rows))
	for r := range t.Rows {
		out[r] = make([]Style, len(t.Columns))
	}
	switch t.Highlight.By {
	case ByRow:
		dir := t.Highlight.Better
		if dir == NoBetter {
			dir = Higher
		}
		for r := range t.Rows {
			var idx [][2]int
			for c := range t.Columns {
				idx = append(idx, [2]int{r, c})
			}
			t.mark(out, idx, dir)
		}
	case ByColumn:
		for c, col := range t.Columns {
			if col.Better == NoBetter {
				continue
			}
			var idx [][2]int
			for r := range t.Rows {
				idx = append(idx, [2]int{r, c})
			}
			t.mark(out, idx, col.Better)
		}
	}
	for r, row := range t.Rows {
		for c := range t.Columns {
			if c < len(row.Cells) && row.Cells[c].Style != Plain {
				out[r][c] = row.Cells[c].Style
			}
		}
	}
	return out
}

// mark sets Best (and Second) among the cells idx by direction dir. A line
// with fewer than two values has nothing to compare and stays plain.
func (t Table) mark(out [][]Style, idx [][2]int, dir Better) {
	type rv struct {
		r, c int
		v    float64
	}
	var vals []rv
	for _, p := range idx {
		if v, ok := t.rounded(p[0], p[1]); ok {
			vals = append(vals, rv{p[0], p[1], v})
		}
	}
	if len(vals) < 2 {
		return
	}
	better := func(a, b float64) bool {
		if dir == Lower {
			return a < b
		}
		return a > b
	}
	best := vals[0].v
	for _, x := range vals[1:] {
		if better(x.v, best) {
			best = x.v
		}
	}
	// The underline goes to the next distinct value, or with SecondAmong to
	// the best value among those columns, unless that value is the best.
	among := func(int) bool { return true }
	if len(t.Highlight.SecondAmong) > 0 {
		among = func(c int) bool { return slices.Contains(t.Highlight.SecondAmong, c) }
	}
	second, has2 := 0.0, false
	for _, x := range vals {
		if among(x.c) && (len(t.Highlight.SecondAmong) > 0 || x.v != best) && (!has2 || better(x.v, second)) {
			second, has2 = x.v, true
		}
	}
	if second == best {
		has2 = false
	}
	for _, x := range vals {
		switch {
		case x.v == best:
			out[x.r][x.c] = Best
		case t.Highlight.Second && has2 && x.v == second && among(x.c):
			out[x.r][x.c] = Second
		}
	}
}

// arrow is the direction marker shown in headers of column-highlighted tables.
func (t Table) arrow(c int) Better {
	if t.Highlight.By != ByColumn {
		return NoBetter
	}
	return t.Columns[c].Better
}

// groupSpans returns the groups with their first and last column (0-based,
// inclusive), clipped to the table.
func (t Table) groupSpans() []groupSpan {
	var out []groupSpan
	at := 0
	for _, g := range t.Groups {
		if g.Span < 1 || at >= len(t.Columns) {
			continue
		}
		end := min(at+g.Span, len(t.Columns)) - 1
		out = append(out, groupSpan{Name: g.Name, First: at, Last: end})
		at = end + 1
	}
	return out
}

type groupSpan struct {
	Name        string
	First, Last int
}
