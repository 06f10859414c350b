package table

import (
	"os"
	"strings"
	"testing"
)

func TestSplitGroupsAndLabels(t *testing.T) {
	tb := Table{Title: "Wide", Caption: "cap", Notes: []string{"n"}, Stub: "S",
		Groups:  []Group{{Name: "A", Span: 2}, {Name: "B", Span: 1}},
		Columns: []Column{{Name: "a1"}, {Name: "a2"}, {Name: "b1"}},
		Rows:    []Row{{Label: "r", Cells: []Cell{V(1), V(2), V(3)}}}}
	parts := tb.SplitGroups(1)
	if len(parts) != 2 || len(parts[0].Columns) != 2 || len(parts[1].Columns) != 1 || parts[1].Rows[0].Cells[0].Value == nil || *parts[1].Rows[0].Cells[0].Value != 3 {
		t.Fatalf("parts: %+v", parts)
	}
	if parts[0].Caption != "" || parts[1].Caption != "cap" || len(parts[1].Notes) != 1 {
		t.Errorf("caption and notes belong to the last part: %+v", parts)
	}
	if len(tb.SplitGroups(0)) != 1 || len(tb.SplitGroups(2)) != 1 {
		t.Error("no boundary must give the table whole")
	}
	dir := t.TempDir()
	tb.Split = 1
	if err := WriteAllLabel(dir, "wide", "tab:run1:wide", tb); err != nil {
		t.Fatal(err)
	}
	tex := readFile(t, dir+"/wide.tex")
	if strings.Count(tex, `\begin{table`) != 2 || !strings.Contains(tex, `\label{tab:run1:wide}`) || !strings.Contains(tex, `\label{tab:run1:wide-2}`) {
		t.Errorf("split LaTeX:\n%s", tex)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
