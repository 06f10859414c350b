package scoring

import (
	"fmt"
	"math"
	"strings"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// Metric is what a budget table or plot shows.
type Metric string

// Metrics.
const (
	// MetricAccuracy is answer accuracy (%): mean primary score, failed
	// samples counted as wrong.
	MetricAccuracy Metric = "accuracy"
	// MetricEvidenceRecall is evidence recall (%): the mean share of the
	// gold evidence present in the bundle, over samples where it is defined.
	MetricEvidenceRecall Metric = "evidence-recall"
)

// mainBudget is the paper's "32K" answer-time evidence budget, which
// appendix C.1 sets at 30,968 tokens (32,768 less the answer's share).
const mainBudget = config.PaperBudget32K

// BudgetLabel prints a budget as the paper's read-budget table does (256,
// 512, 1K … 16K, 32K for 30,968) and every other budget as its exact
// number, so that no two budgets share a label (config.BudgetLabel).
func BudgetLabel(b int) string { return config.BudgetLabel(b) }

// budgetCells aggregates metric per budget and system.
func budgetCells(samples []record.Sample, metric Metric) (budgets []int, systems []string, cell map[int]map[string]*float64, n map[int]map[string]int, errs map[string]int) {
	type agg struct {
		a accAgg
		m aggMean
	}
	by := map[int]map[string]*agg{}
	n = map[int]map[string]int{}
	errs = map[string]int{}
	for _, s := range samples {
		if by[s.Budget] == nil {
			by[s.Budget] = map[string]*agg{}
			n[s.Budget] = map[string]int{}
		}
		g := by[s.Budget][s.System]
		if g == nil {
			g = &agg{}
			by[s.Budget][s.System] = g
		}
		g.a.add(s)
		if s.EvidenceRecall >= 0 {
			g.m.add(s.EvidenceRecall)
		}
		n[s.Budget][s.System]++
		if s.Error != "" {
			errs[BudgetLabel(s.Budget)+"/"+SystemName(s.System)]++
		}
	}
	budgets = sortedKeysOf(by)
	systems = orderSystems(uniqBy(samples, func(s record.Sample) string { return s.System }))
	cell = map[int]map[string]*float64{}
	for _, b := range budgets {
		cell[b] = map[string]*float64{}
		for sys, g := range by[b] {
			if metric == MetricEvidenceRecall {
				cell[b][sys] = g.m.value(100)
			} else {
				cell[b][sys] = g.a.pct()
			}
		}
	}
	return budgets, systems, cell, n, errs
}

func metricName(metric Metric) (title, unit string, ok bool) {
	switch metric {
	case MetricAccuracy:
		return "Answer accuracy", "Accuracy (%)", true
	case MetricEvidenceRecall:
		return "Evidence recall", "Evidence recall (%)", true
	}
	return "Answer accuracy", "Accuracy (%)", false
}

// benchList names the benchmarks behind samples ("LongMemEval").
func benchList(samples []record.Sample) string {
	var names []string
	for _, b := range orderBenchmarks(uniqBy(samples, func(s record.Sample) string { return s.Benchmark })) {
		names = append(names, BenchmarkName(b))
	}
	return strings.Join(names, ", ")
}

// BudgetTable lays out paper Table "read-budget": answer-time evidence
// budgets as rows (256 … 32K), systems as columns in the paper's order and
// groups, metric in percent with one decimal; per budget the best value is
// bold and the second best underlined. Reference configuration only. An
// unknown metric falls back to accuracy, with a note.
func BudgetTable(samples []record.Sample, metric Metric) table.Table {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return s.Variant == "" })
	title, _, known := metricName(metric)
	budgets, systems, cell, n, errs := budgetCells(samples, metric)
	t := table.Table{
		Title:     title + " (%) under answer-time evidence budgets",
		Stub:      "Budget",
		Groups:    systemGroups(systems),
		Columns:   systemColumns(systems, 1),
		Highlight: table.Highlight{By: table.ByRow, Second: true},
	}
	for _, b := range budgets {
		row := table.Row{Label: BudgetLabel(b)}
		for _, sys := range systems {
			row.Cells = append(row.Cells, valueCell(cell[b][sys]))
		}
		t.Rows = append(t.Rows, row)
	}
	caption := fmt.Sprintf("%s (%%) on %s under different answer-time evidence budgets. Bold indicates the best result at each budget, and underlining the second best.", title, dashIfEmpty(benchList(samples)))
	if metric == MetricEvidenceRecall {
		caption += " Evidence recall is the share of the gold evidence present in the evidence bundle."
	}
	t.Caption = withHeuristic(caption, heuristicNote(samples, nil, false))
	if !known {
		t.Notes = append(t.Notes, fmt.Sprintf("Unknown metric %q; answer accuracy is shown.", metric))
	}
	if len(budgets) > 0 {
		var rows []string
		counts := map[string]map[string]int{}
		for _, b := range budgets {
			rows = append(rows, BudgetLabel(b))
			counts[BudgetLabel(b)] = n[b]
		}
		t.Notes = append(t.Notes, countNote("Questions per budget", rows, func(s string) string { return s }, counts))
	}
	if metric != MetricEvidenceRecall {
		order := crossLabels(displayNames(budgets, BudgetLabel), displayNames(systems, SystemName))
		if e := errorNote(errs, order, wrongAnswers); e != "" {
			t.Notes = append(t.Notes, e)
		}
	}
	return t
}

func dashIfEmpty(s string) string {
	if s == "" {
		return table.Missing
	}
	return s
}

// BudgetPlot draws metric against the answer-time budget, one line per
// system, on a log-scale x axis labelled 256 … 32K (paper §6.3).
func BudgetPlot(samples []record.Sample, metric Metric) table.Plot {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return s.Variant == "" && s.Budget > 0 })
	title, unit, _ := metricName(metric)
	budgets, systems, cell, _, _ := budgetCells(samples, metric)
	p := table.Plot{
		Title:  title + " vs. answer-time evidence budget (" + dashIfEmpty(benchList(samples)) + ")",
		XLabel: "Answer-time evidence budget (tokens)",
		YLabel: unit,
		LogX:   true,
	}
	for _, b := range budgets {
		p.XTicks = append(p.XTicks, table.Tick{Value: float64(b), Label: BudgetLabel(b)})
	}
	for _, sys := range systems {
		s := table.Series{Name: SystemName(sys)}
		for _, b := range budgets {
			if v := cell[b][sys]; v != nil {
				s.X = append(s.X, float64(b))
				s.Y = append(s.Y, *v)
			}
		}
		p.Series = append(p.Series, s)
	}
	return p
}

// AblationTable lays out paper Table "ablation": ArborMem's reference
// configuration and its ablation variants as rows, one column per model
// (Sample.Labels["model"]), accuracy in percent with one decimal; each
// variant shows its relative change from the reference in parentheses
// ("(−14.6%)") and the reference is bold. models fixes the columns and their
// order; empty means every model in the samples, by name. Only ArborMem's
// samples count when there are any (the variants are ArborMem's).
func AblationTable(samples []record.Sample, models []string) table.Table {
	samples = dedupeSamples(samples)
	if arbor := keepSamples(samples, func(s record.Sample) bool { return systemKey(s.System) == "arbormem" }); len(arbor) > 0 {
		samples = arbor
	}
	model := func(s record.Sample) string { return s.Labels["model"] }
	samples, budgetNote := largestBudget(samples,
		func(s record.Sample) string { return s.Variant + "\x1f" + model(s) },
		func(k string) string {
			v, m, _ := strings.Cut(k, "\x1f")
			return variantLabel(v) + "/" + modelLabel(m)
		})
	if len(models) == 0 {
		models = sortedKeysOf(stringSet(uniqBy(samples, model)))
	}
	variants := orderByKnown(uniqBy(samples, func(s record.Sample) string { return s.Variant }), variantOrder, func(s string) string { return s })

	accs := map[string]map[string]*accAgg{}
	errs := map[string]int{}
	for _, s := range samples {
		if accs[s.Variant] == nil {
			accs[s.Variant] = map[string]*accAgg{}
		}
		a := accs[s.Variant][model(s)]
		if a == nil {
			a = &accAgg{}
			accs[s.Variant][model(s)] = a
		}
		a.add(s)
		if s.Error != "" {
			errs[variantLabel(s.Variant)+"/"+modelLabel(model(s))]++
		}
	}
	value := func(v, m string) *float64 {
		if a := accs[v][m]; a != nil {
			return a.pct()
		}
		return nil
	}

	t := table.Table{Title: "Component ablations", Stub: "Configuration"}
	for _, m := range models {
		t.Columns = append(t.Columns, table.Column{Name: modelLabel(m), Align: table.Center, Decimals: 1})
	}
	for _, v := range variants {
		row := table.Row{Label: variantLabel(v)}
		if v != "" {
			row.Indent = 1
		}
		for _, m := range models {
			c := valueCell(value(v, m))
			if v == "" {
				if c.Value != nil {
					c.Style = table.Best
				}
			} else if ref := value("", m); ref != nil && c.Value != nil && *ref != 0 {
				c.Note = relChange(*c.Value, *ref)
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Caption = withHeuristic(fmt.Sprintf("Accuracy (%%) of ArborMem's reference configuration and its ablations on %s. "+
		"Parenthetical values indicate relative changes from the reference configuration; compare within each model column.", dashIfEmpty(benchList(samples))),
		heuristicNote(samples, nil, false))
	order := crossLabels(displayNames(variants, variantLabel), displayNames(models, modelLabel))
	for _, n := range []string{errorNote(errs, order, wrongAnswers), budgetNote} {
		if n != "" {
			t.Notes = append(t.Notes, n)
		}
	}
	return t
}

func stringSet(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func variantLabel(v string) string {
	if l, ok := variantDisplay[v]; ok {
		return l
	}
	return v
}

func modelLabel(m string) string {
	if m == "" {
		return "Accuracy"
	}
	return m
}

// relChange prints the change of v relative to ref as the paper's ablation
// table does: "(−14.6%)" for 70 against 82, "(+2.4%)" for a gain.
func relChange(v, ref float64) string {
	d := (v - ref) / ref * 100
	s := table.Format(math.Abs(d), 1)
	switch {
	case s == "0.0":
	case d < 0:
		s = "−" + s
	default:
		s = "+" + s
	}
	return "(" + s + "%)"
}
