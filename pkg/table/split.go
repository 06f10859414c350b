package table

import "fmt"

// SplitGroups cuts t into two tables at a group boundary: the columns of
// its first k groups, and the rest, each with every row, its own title
// ("… (1/2)", "… (2/2)") and the caption and notes on the second. A
// table too wide for a page (BranchMemEval's diagnostics) is printed as
// two. It returns t alone when it has no such boundary.
func (t Table) SplitGroups(k int) []Table {
	cut := 0
	for i := 0; i < k && i < len(t.Groups); i++ {
		cut += t.Groups[i].Span
	}
	if k <= 0 || k >= len(t.Groups) || cut <= 0 || cut >= len(t.Columns) {
		return []Table{t}
	}
	part := func(from, to int, groups []Group, n int) Table {
		p := t
		p.Title = fmt.Sprintf("%s (%d/2)", t.Title, n)
		p.Groups = append([]Group(nil), groups...)
		p.Columns = append([]Column(nil), t.Columns[from:to]...)
		p.Rows = make([]Row, len(t.Rows))
		for r, row := range t.Rows {
			p.Rows[r] = row
			cells := make([]Cell, to-from)
			for c := from; c < to; c++ {
				cells[c-from] = t.cell(r, c)
			}
			p.Rows[r].Cells = cells
		}
		return p
	}
	a := part(0, cut, t.Groups[:k], 1)
	a.Caption, a.Notes = "", nil
	b := part(cut, len(t.Columns), t.Groups[k:], 2)
	return []Table{a, b}
}
