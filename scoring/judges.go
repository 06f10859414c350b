package scoring

import (
	"fmt"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// A table that puts several scorers side by side: each judge
// configuration's accuracy per category. Judge choice alone can move
// published numbers by tens of points, so a run scored by two judges reports
// both, with their agreement (JudgeAgreementTable).

// JudgeTable is the per-category accuracy (%) of one system on one
// benchmark (reference variant, largest budget) under every scorer recorded
// in its samples (primary first):
// categories, then Overall, and for LongMemEval task-averaged and
// abstention accuracy; for LoCoMo with category 5 present also the
// Categories 1–4 overall.
func JudgeTable(bench, system string, samples []record.Sample) table.Table {
	var ss []record.Sample
	budget := 0
	for _, s := range samples {
		if s.Benchmark == bench && s.System == system && s.Variant == "" {
			ss = append(ss, s)
			budget = max(budget, s.Budget)
		}
	}
	// A budget sweep is summarised at its largest budget.
	kept := ss[:0]
	for _, s := range ss {
		if s.Budget == budget {
			kept = append(kept, s)
		}
	}
	ss = kept
	names := ScorerNames(ss)
	t := table.Table{
		Title:     fmt.Sprintf("Accuracy (%%) by scorer on %s, %s", bench, system),
		Stub:      "Category",
		Highlight: table.Highlight{},
	}
	heur := false
	for _, n := range names {
		col := table.Column{Name: n, Decimals: 2, Align: table.Center}
		for _, s := range ss {
			if r, ok := s.Scores[n]; ok && r.Heuristic {
				col.Name = n + " (heuristic)"
				heur = true
				break
			}
		}
		t.Columns = append(t.Columns, col)
	}
	type group struct {
		label string
		keep  func(record.Sample) bool
	}
	var groups []group
	for _, c := range orderedCategories(bench, ss) {
		groups = append(groups, group{categoryLabel(bench, c, ss), func(s record.Sample) bool { return s.Category == c }})
	}
	groups = append(groups, group{"Overall", func(record.Sample) bool { return true }})
	if bench == "locomo" && hasCategory(ss, "5") {
		groups = append(groups, group{"Overall (Categories 1–4)", func(s record.Sample) bool { return s.Category != "5" }})
	}
	var counts []string
	for _, g := range groups {
		row := table.Row{Label: g.label}
		n := 0
		for _, name := range names {
			var xs []float64
			for _, s := range ss {
				if r, ok := s.Scores[name]; ok && g.keep(s) {
					xs = append(xs, r.Score)
				}
			}
			n = max(n, len(xs))
			if len(xs) == 0 {
				row.Cells = append(row.Cells, table.Cell{})
				continue
			}
			row.Cells = append(row.Cells, table.V(100*Mean(xs)))
		}
		t.Rows = append(t.Rows, row)
		counts = append(counts, fmt.Sprintf("%s %d", g.label, n))
	}
	if bench == "longmemeval" {
		t.Rows = append(t.Rows, lmeSummaryRows(ss, names)...)
	}
	t.Caption = fmt.Sprintf("Mean score (%%) of each scorer on %s for %s; the first column is the benchmark's primary protocol.", bench, system)
	if bench == "longmemeval" {
		t.Caption += " Task-averaged is the mean of the question-type accuracies; abstention covers the _abs questions."
	}
	if heur {
		t.Caption += " Columns marked heuristic use the offline lexical judge, not the benchmark's judge model; their numbers are not comparable with published ones."
	}
	t.Notes = append(t.Notes, "Questions per row: "+strings.Join(counts, ", ")+".")
	return t
}

// lmeSummaryRows are LongMemEval's task-averaged and abstention rows.
func lmeSummaryRows(ss []record.Sample, names []string) []table.Row {
	ta := table.Row{Label: "Task-averaged"}
	ab := table.Row{Label: "Abstention"}
	for _, name := range names {
		var rows []Row
		for _, s := range ss {
			if r, ok := s.Scores[name]; ok {
				rows = append(rows, Row{Category: s.Category, Abstention: isAbstentionSample(s), Score: r.Score})
			}
		}
		if len(rows) == 0 {
			ta.Cells = append(ta.Cells, table.Cell{})
			ab.Cells = append(ab.Cells, table.Cell{})
			continue
		}
		sum := Summarize(rows)
		ta.Cells = append(ta.Cells, table.V(100*sum.TaskAveraged))
		if sum.NAbstention == 0 {
			ab.Cells = append(ab.Cells, table.Cell{})
		} else {
			ab.Cells = append(ab.Cells, table.V(100*sum.Abstention))
		}
	}
	return []table.Row{ta, ab}
}

func isAbstentionSample(s record.Sample) bool {
	return strings.Contains(s.Question, "_abs") || s.Labels["abstention"] == "true"
}

func hasCategory(ss []record.Sample, c string) bool {
	for _, s := range ss {
		if s.Category == c {
			return true
		}
	}
	return false
}

// orderedCategories lists the categories present: LoCoMo numerically,
// others by name.
func orderedCategories(bench string, ss []record.Sample) []string {
	set := map[string]bool{}
	for _, s := range ss {
		set[s.Category] = true
	}
	cats := make([]string, 0, len(set))
	for c := range set {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(i, j int) bool {
		if len(cats[i]) != len(cats[j]) && bench == "locomo" {
			return len(cats[i]) < len(cats[j])
		}
		return cats[i] < cats[j]
	})
	return cats
}

// categoryLabel shows LoCoMo's category number with its name when the
// samples carry one.
func categoryLabel(bench, c string, ss []record.Sample) string {
	if bench == "locomo" {
		for _, s := range ss {
			if s.Category == c && s.Labels["category_name"] != "" {
				return fmt.Sprintf("%s (%s)", c, s.Labels["category_name"])
			}
		}
	}
	if c == "" {
		return "(none)"
	}
	return c
}
