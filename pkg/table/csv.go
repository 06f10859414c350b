package table

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
)

// CSV renders the table for spreadsheets and scripts: one header line (the
// stub, then each column with its unit), one line per row, values as
// displayed without emphasis ("–" where missing). Groups, caption and notes
// are left out; a column whose cells carry notes gets a "<name> note" column
// right after it, so the ablation's relative drops survive, and one whose
// cells carry intervals or comparisons gets "<name> CI low"/"CI high" and
// "<name> diff to best"/"p vs best" columns (always, whatever CIForm says).
func (t Table) CSV() ([]byte, error) {
	ciCols, vsCols := t.statColumns()
	noted := make([]bool, len(t.Columns))
	for r := range t.Rows {
		for c := range t.Columns {
			if t.cell(r, c).Note != "" {
				noted[c] = true
			}
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := []string{t.Stub}
	if head[0] == "" {
		head[0] = "label"
	}
	for c, col := range t.Columns {
		name := col.Name
		if col.Unit != "" {
			name += " (" + col.Unit + ")"
		}
		head = append(head, name)
		if noted[c] {
			head = append(head, name+" note")
		}
		if ciCols[c] {
			head = append(head, name+" CI low", name+" CI high")
		}
		if vsCols[c] {
			head = append(head, name+" diff to best", name+" p vs best")
		}
	}
	if err := w.Write(head); err != nil {
		return nil, fmt.Errorf("table %q: csv header: %w", t.Title, err)
	}
	for r, row := range t.Rows {
		line := []string{row.Label}
		for c := range t.Columns {
			line = append(line, t.text(r, c))
			cl := t.cell(r, c)
			if noted[c] {
				line = append(line, cl.Note)
			}
			if ciCols[c] {
				lo, hi := Missing, Missing
				if iv := finiteCI(cl.CI); iv != nil {
					lo, hi = Format(iv.Lo, t.Columns[c].Decimals), Format(iv.Hi, t.Columns[c].Decimals)
				}
				line = append(line, lo, hi)
			}
			if vsCols[c] {
				d, p := Missing, Missing
				if v := finiteVs(cl.VsBest); v != nil {
					d, p = Format(v.Diff, t.Columns[c].Decimals), strconv.FormatFloat(v.P, 'g', 4, 64)
				}
				line = append(line, d, p)
			}
		}
		if err := w.Write(line); err != nil {
			return nil, fmt.Errorf("table %q: csv row %d (%q): %w", t.Title, r, row.Label, err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("table %q: csv: %w", t.Title, err)
	}
	return buf.Bytes(), nil
}
