package table

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
)

// CSV renders the table for spreadsheets and scripts: one header line (the
// stub, then each column with its unit), one line per row, values as
// displayed without emphasis and empty cells where a value is missing.
// Headers are unique: a column name that repeats is prefixed with its
// group ("Per question: Calls"). When rows are nested (Indent), a first
// "parent" column names each row's top-level row (the system of a role
// row), so that every line stands on its own after sorting or filtering.
// Caption and notes are left out; a column whose cells carry notes gets a
// "<name> note" column right after it, so the ablation's relative drops
// survive, and one whose cells carry intervals or comparisons gets
// "<name> CI low"/"CI high" and "<name> diff to best"/"p vs best" columns
// (always, whatever CIForm says).
func (t Table) CSV() ([]byte, error) {
	ciCols, vsCols := t.statColumns()
	noted := make([]bool, len(t.Columns))
	nested := false
	for r, row := range t.Rows {
		nested = nested || row.Indent > 0
		for c := range t.Columns {
			if t.cell(r, c).Note != "" {
				noted[c] = true
			}
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var head []string
	if nested {
		head = append(head, "parent")
	}
	stub := t.Stub
	if stub == "" {
		stub = "label"
	}
	head = append(head, stub)
	for c, name := range t.csvColumnNames() {
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
	if err := w.Write(uniqueNames(head)); err != nil {
		return nil, fmt.Errorf("table %q: csv header: %w", t.Title, err)
	}
	parent := ""
	for r, row := range t.Rows {
		if row.Indent == 0 {
			parent = row.Label
		}
		var line []string
		if nested {
			line = append(line, parent)
		}
		line = append(line, row.Label)
		for c := range t.Columns {
			v := t.text(r, c)
			if v == Missing {
				v = ""
			}
			line = append(line, v)
			cl := t.cell(r, c)
			if noted[c] {
				line = append(line, cl.Note)
			}
			if ciCols[c] {
				lo, hi := "", ""
				if iv := finiteCI(cl.CI); iv != nil {
					lo, hi = Format(iv.Lo, t.Columns[c].Decimals), Format(iv.Hi, t.Columns[c].Decimals)
				}
				line = append(line, lo, hi)
			}
			if vsCols[c] {
				d, p := "", ""
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

// csvColumnNames names each column with its unit, prefixed with its group
// when the name alone repeats across columns.
func (t Table) csvColumnNames() []string {
	names := make([]string, len(t.Columns))
	count := map[string]int{}
	for c, col := range t.Columns {
		names[c] = col.Name
		if col.Unit != "" {
			names[c] += " (" + col.Unit + ")"
		}
		count[names[c]]++
	}
	group := make([]string, len(t.Columns))
	c := 0
	for _, g := range t.Groups {
		for i := 0; i < g.Span && c < len(group); i++ {
			group[c] = g.Name
			c++
		}
	}
	for c := range names {
		if count[names[c]] > 1 && group[c] != "" {
			names[c] = group[c] + ": " + names[c]
		}
	}
	return names
}

// uniqueNames appends " (2)", " (3)" … to names that still repeat.
func uniqueNames(names []string) []string {
	seen := map[string]int{}
	out := make([]string, len(names))
	for i, n := range names {
		seen[n]++
		out[i] = n
		if seen[n] > 1 {
			out[i] = n + " (" + strconv.Itoa(seen[n]) + ")"
		}
	}
	return out
}
