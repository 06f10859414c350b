package table

import (
	"strings"
	"unicode/utf8"
)

// Markdown renders the table as a GitHub-style Markdown table with columns
// padded to equal width, so it reads well printed to a terminal too. Best
// values are bold; second-best italic (Markdown has no underline). Markdown
// tables have one header row, so column groups are listed on a line above.
func (t Table) Markdown() string {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("### " + oneLine(t.Title) + "\n\n")
	}
	if gs := t.groupSpans(); len(gs) > 0 {
		var parts []string
		for _, g := range gs {
			if g.Name == "" {
				continue
			}
			var names []string
			for c := g.First; c <= g.Last; c++ {
				names = append(names, mdEscape(t.Columns[c].Name))
			}
			parts = append(parts, "*"+mdEscape(g.Name)+"*: "+strings.Join(names, ", "))
		}
		if len(parts) > 0 {
			b.WriteString(strings.Join(parts, " · ") + "\n\n")
		}
	}

	styles := t.Styles()
	grid := make([][]string, 0, len(t.Rows)+1)
	head := []string{mdEscape(t.Stub)}
	for c, col := range t.Columns {
		h := mdEscape(col.Name)
		if col.Unit != "" {
			h += " (" + mdEscape(col.Unit) + ")"
		}
		switch t.arrow(c) {
		case Higher:
			h += " ↑"
		case Lower:
			h += " ↓"
		}
		head = append(head, h)
	}
	grid = append(grid, head)
	for r, row := range t.Rows {
		line := []string{strings.Repeat("  ", max(row.Indent, 0)) + mdEscape(row.Label)}
		for c := range t.Columns {
			s := mdEscape(t.text(r, c))
			switch styles[r][c] {
			case Best:
				s = "**" + s + "**"
			case Second:
				s = "_" + s + "_"
			}
			if ci := t.ciText(r, c); ci != "" {
				s += " " + ci
			}
			if t.indistinct(r, c) {
				s += " " + Indistinct
			}
			if n := t.cell(r, c).Note; n != "" {
				s += " " + mdEscape(n)
			}
			line = append(line, s)
		}
		grid = append(grid, line)
	}

	width := make([]int, len(head))
	for _, line := range grid {
		for i, s := range line {
			width[i] = max(width[i], utf8.RuneCountInString(s), 3)
		}
	}
	align := func(i int) Align {
		if i == 0 {
			return Left
		}
		return t.Columns[i-1].Align
	}
	writeLine := func(line []string) {
		b.WriteString("|")
		for i, s := range line {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			switch align(i) {
			case Left:
				s += pad
			case Center:
				l := len(pad) / 2
				s = pad[:l] + s + pad[l:]
			default:
				s = pad + s
			}
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
	}
	writeLine(grid[0])
	b.WriteString("|")
	for i := range head {
		dash := strings.Repeat("-", width[i])
		switch align(i) {
		case Left:
			dash = ":" + dash[1:]
		case Center:
			dash = ":" + dash[2:] + ":"
		default:
			dash = dash[1:] + ":"
		}
		b.WriteString(" " + dash + " |")
	}
	b.WriteString("\n")
	for _, line := range grid[1:] {
		writeLine(line)
	}
	if caption := t.captionWithCI(); caption != "" {
		b.WriteString("\n" + oneLine(caption) + "\n")
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.Notes {
			b.WriteString("- " + oneLine(n) + "\n")
		}
	}
	return b.String()
}

// mdEscape keeps cell text from breaking the table: pipes would split cells
// and newlines would end rows.
func mdEscape(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

// oneLine folds line breaks into spaces.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", " ")
}
