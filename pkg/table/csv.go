package table

import (
	"bytes"
	"encoding/csv"
	"fmt"
)

// CSV renders the table for spreadsheets and scripts: one header line (the
// stub, then each column with its unit), one line per row, values as
// displayed without emphasis ("–" where missing). Groups, caption and notes
// are left out; a column whose cells carry notes gets a "<name> note" column
// right after it, so the ablation's relative drops survive.
func (t Table) CSV() ([]byte, error) {
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
	}
	if err := w.Write(head); err != nil {
		return nil, fmt.Errorf("table %q: csv header: %w", t.Title, err)
	}
	for r, row := range t.Rows {
		line := []string{row.Label}
		for c := range t.Columns {
			line = append(line, t.text(r, c))
			if noted[c] {
				line = append(line, t.cell(r, c).Note)
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
