package table

import (
	"html"
	"strconv"
	"strings"
)

// HTML renders the table as a plain HTML <table> (with its title as a
// <caption>, column groups as a second header row, caption and notes as a
// paragraph and list after it), so a report reads without JavaScript. Best
// values are <strong>, second best <u> (as in the paper's LaTeX). Every
// string is escaped.
func (t Table) HTML() string {
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString(`<table class="result">`)
	if t.Title != "" {
		b.WriteString("<caption>" + esc(t.Title) + "</caption>")
	}
	b.WriteString("<thead>")
	if gs := t.groupSpans(); len(gs) > 0 {
		b.WriteString(`<tr class="groups"><th></th>`)
		at := 0
		for _, g := range gs {
			for ; at < g.First; at++ {
				b.WriteString("<th></th>")
			}
			b.WriteString(`<th colspan="` + strconv.Itoa(g.Last-g.First+1) + `">` + esc(g.Name) + "</th>")
			at = g.Last + 1
		}
		for ; at < len(t.Columns); at++ {
			b.WriteString("<th></th>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString(`<tr><th class="stub">` + esc(t.Stub) + "</th>")
	for c, col := range t.Columns {
		h := esc(col.Name)
		if col.Unit != "" {
			h += ` <span class="unit">(` + esc(col.Unit) + ")</span>"
		}
		switch t.arrow(c) {
		case Higher:
			h += " ↑"
		case Lower:
			h += " ↓"
		}
		b.WriteString("<th" + alignAttr(col.Align) + ">" + h + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	styles := t.Styles()
	for r, row := range t.Rows {
		b.WriteString(`<tr><th class="stub"`)
		if row.Indent > 0 {
			b.WriteString(` style="padding-left:` + strconv.Itoa(row.Indent+1) + `em"`)
		}
		b.WriteString(">" + esc(row.Label) + "</th>")
		for c, col := range t.Columns {
			s := esc(t.text(r, c))
			switch styles[r][c] {
			case Best:
				s = "<strong>" + s + "</strong>"
			case Second:
				s = "<u>" + s + "</u>"
			}
			if n := t.cell(r, c).Note; n != "" {
				s += ` <small>` + esc(n) + "</small>"
			}
			b.WriteString("<td" + alignAttr(col.Align) + ">" + s + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	if t.Caption != "" {
		b.WriteString(`<p class="caption">` + esc(t.Caption) + "</p>")
	}
	if len(t.Notes) > 0 {
		b.WriteString(`<ul class="notes">`)
		for _, n := range t.Notes {
			b.WriteString("<li>" + esc(n) + "</li>")
		}
		b.WriteString("</ul>")
	}
	return b.String()
}

func alignAttr(a Align) string {
	switch a {
	case Left:
		return ` class="l"`
	case Center:
		return ` class="c"`
	}
	return ""
}
