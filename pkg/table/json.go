package table

import (
	"encoding/json"
	"fmt"
)

// jsonTable is the JSON form: the table as built, with non-finite values
// dropped (encoding/json refuses NaN and Inf) and every cell's display text
// and computed emphasis filled in, so consumers need not repeat the rules.
type jsonTable struct {
	Title     string     `json:"title"`
	Caption   string     `json:"caption,omitempty"`
	Stub      string     `json:"stub,omitempty"`
	Groups    []Group    `json:"groups,omitempty"`
	Columns   []Column   `json:"columns"`
	Rows      []jsonRow  `json:"rows"`
	Highlight Highlight  `json:"highlight"`
	Notes     []string   `json:"notes,omitempty"`
	Stats     *StatsInfo `json:"stats,omitempty"`
}

type jsonRow struct {
	Label  string     `json:"label"`
	Indent int        `json:"indent,omitempty"`
	Cells  []jsonCell `json:"cells"`
}

type jsonCell struct {
	Value   *float64    `json:"value"`
	Display string      `json:"display"`
	Note    string      `json:"note,omitempty"`
	Style   Style       `json:"style,omitempty"`
	CI      *Interval   `json:"ci,omitempty"`
	VsBest  *Comparison `json:"vs_best,omitempty"`
}

// JSON renders the table as indented JSON (one cell per column; missing
// values are null).
func (t Table) JSON() ([]byte, error) {
	styles := t.Styles()
	out := jsonTable{
		Title: t.Title, Caption: t.Caption, Stub: t.Stub, Groups: t.Groups,
		Columns: t.Columns, Highlight: t.Highlight, Notes: t.Notes, Stats: t.Stats,
		Rows: make([]jsonRow, 0, len(t.Rows)),
	}
	if out.Columns == nil {
		out.Columns = []Column{}
	}
	for r, row := range t.Rows {
		jr := jsonRow{Label: row.Label, Indent: row.Indent, Cells: make([]jsonCell, 0, len(t.Columns))}
		for c := range t.Columns {
			cl := t.cell(r, c)
			jc := jsonCell{Display: t.text(r, c), Note: cl.Note, Style: styles[r][c], CI: finiteCI(cl.CI), VsBest: finiteVs(cl.VsBest)}
			if cl.finite() {
				v := *cl.Value
				jc.Value = &v
			}
			jr.Cells = append(jr.Cells, jc)
		}
		out.Rows = append(out.Rows, jr)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("table %q: json: %w", t.Title, err)
	}
	return append(b, '\n'), nil
}

// finiteCI drops an interval with a non-finite end (JSON has no NaN).
func finiteCI(iv *Interval) *Interval {
	if iv == nil || !finite(iv.Lo) || !finite(iv.Hi) {
		return nil
	}
	return iv
}

// finiteVs drops a comparison with non-finite numbers.
func finiteVs(v *Comparison) *Comparison {
	if v == nil || !finite(v.Diff) || !finite(v.Lo) || !finite(v.Hi) || !finite(v.P) {
		return nil
	}
	return v
}
