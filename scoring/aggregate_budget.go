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
	// MetricEvidenceRecall is evidence recall (%) as the read-budget table
	// and plot show it: answer-in-bundle recall (Sample.AnswerInBundle; the
	// gold answer in the bundle's text) over the samples where it is
	// defined; source recall for runs recorded before it existed.
	MetricEvidenceRecall Metric = "evidence-recall"
	// MetricSourceRecall is source recall (%): the mean share of the gold
	// evidence interactions the bundle cites (Sample.EvidenceRecall).
	// A summary cites every turn it covers, whatever it kept of them.
	MetricSourceRecall Metric = "source-recall"
)

// answerInBundle reports whether samples carry answer-in-bundle recall:
// some sample records it, or all are BranchMemEval's, whose evidence recall
// is the gold answer in the bundle.
func answerInBundle(samples []record.Sample) bool {
	bme := len(samples) > 0
	for _, s := range samples {
		if s.AnswerInBundle != nil {
			return true
		}
		bme = bme && benchKey(s.Benchmark) == "branchmemeval"
	}
	return bme
}

// recallOf is s's figure for a recall metric, ok false where undefined.
// answer says the samples carry answer-in-bundle recall (answerInBundle).
func recallOf(s record.Sample, metric Metric, answer bool) (float64, bool) {
	bme := benchKey(s.Benchmark) == "branchmemeval"
	switch {
	case metric == MetricSourceRecall:
		return s.EvidenceRecall, !bme && s.EvidenceRecall >= 0
	case !answer:
		return s.EvidenceRecall, s.EvidenceRecall >= 0
	case s.AnswerInBundle != nil:
		return *s.AnswerInBundle, true
	case bme:
		return s.EvidenceRecall, s.EvidenceRecall >= 0
	}
	return 0, false
}

// BudgetLabel prints a budget as the paper's read-budget table does (256,
// 512, 1K … 16K, 32K for 30,968) and every other budget as its exact
// number, so that no two budgets share a label (config.BudgetLabel).
func BudgetLabel(b int) string { return config.BudgetLabel(b) }

// budgetCells aggregates metric per budget and system.
func budgetCells(samples []record.Sample, metric Metric) (budgets []int, systems []string, cell map[int]map[string]*float64, n map[int]map[string]int, errs map[string]int, ob map[int]map[string][]obs) {
	answer := answerInBundle(samples)
	type agg struct {
		a accAgg
		m aggMean
		// recall are the evidence-recall observations (accAgg keeps the
		// accuracy ones).
		recall []obs
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
		if v, ok := recallOf(s, metric, answer); ok {
			g.m.add(v)
			g.recall = append(g.recall, sampleObs(s, v))
		}
		n[s.Budget][s.System]++
		if s.Error != "" {
			errs[BudgetLabel(s.Budget)+"/"+SystemName(s.System)]++
		}
	}
	budgets = sortedKeysOf(by)
	systems = orderSystems(uniqBy(samples, func(s record.Sample) string { return s.System }))
	cell = map[int]map[string]*float64{}
	ob = map[int]map[string][]obs{}
	for _, b := range budgets {
		cell[b] = map[string]*float64{}
		ob[b] = map[string][]obs{}
		for sys, g := range by[b] {
			if metric == MetricEvidenceRecall || metric == MetricSourceRecall {
				cell[b][sys] = g.m.value(100)
				ob[b][sys] = g.recall
			} else {
				cell[b][sys] = g.a.pct()
				ob[b][sys] = g.a.obs
			}
		}
	}
	return budgets, systems, cell, n, errs, ob
}

// metricName titles metric; evidence recall is named for the figure the
// samples carry (answerInBundle).
func metricName(metric Metric, samples []record.Sample) (title, unit string, ok bool) {
	switch metric {
	case MetricAccuracy:
		if f1, only := tokenF1Share(samples); only {
			return "Token F1", "Token F1 (%)", true
		} else if f1 {
			return "Answer accuracy, LoCoMo token F1", "Accuracy, LoCoMo token F1 (%)", true
		}
		return "Answer accuracy", "Accuracy (%)", true
	case MetricEvidenceRecall:
		if answerInBundle(samples) {
			return "Answer-in-bundle recall", "Answer-in-bundle recall (%)", true
		}
		return "Source recall", "Source recall (%)", true
	case MetricSourceRecall:
		return "Source recall", "Source recall (%)", true
	}
	return "Answer accuracy", "Accuracy (%)", false
}

// tokenF1Share reports whether any sample is scored by LoCoMo token F1,
// and whether every one is: LoCoMo's accuracy is token F1 wherever it
// appears, and a table of LoCoMo alone is titled so.
func tokenF1Share(samples []record.Sample) (any, all bool) {
	if !scoredByTokenF1(samples) {
		return false, false
	}
	for _, s := range samples {
		if benchKey(s.Benchmark) != "locomo" || s.Primary != "locomo-f1" {
			return true, false
		}
	}
	return true, true
}

// recallCaption says which recall figure a table or plot shows; "" for
// accuracy. answer says the samples carry answer-in-bundle recall.
func recallCaption(metric Metric, answer bool) string {
	switch {
	case metric == MetricEvidenceRecall && answer:
		return " Answer-in-bundle recall is the share of questions whose gold answer, normalised as the benchmark's scorer does, appears in the evidence bundle's text (over questions with a short gold answer)."
	case metric == MetricEvidenceRecall:
		return " Source recall is the share of the gold evidence turns the evidence bundle cites (these samples predate answer-in-bundle recall); a summary cites every turn it covers."
	case metric == MetricSourceRecall:
		return " Source recall is the share of the gold evidence turns the evidence bundle cites; a summary cites every turn it covers, whatever it kept of them."
	}
	return ""
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
// unknown metric falls back to accuracy, with a note. With StatsOptions
// every cell carries its interval and its comparison with the row's best.
func BudgetTable(samples []record.Sample, metric Metric, st ...StatsOptions) table.Table {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return s.Variant == "" })
	title, _, known := metricName(metric, samples)
	budgets, systems, cell, n, errs, ob := budgetCells(samples, metric)
	t := table.Table{
		Title:     title + " (%) under answer-time evidence budgets",
		Stub:      "Budget",
		Groups:    systemGroups(systems),
		Columns:   systemColumns(systems, 1),
		Highlight: table.Highlight{By: table.ByRow, Second: true},
	}
	grid := newGrid(len(budgets), len(systems))
	for r, b := range budgets {
		row := table.Row{Label: BudgetLabel(b)}
		for c, sys := range systems {
			row.Cells = append(row.Cells, valueCell(cell[b][sys]))
			grid[r][c] = ob[b][sys]
		}
		t.Rows = append(t.Rows, row)
	}
	if o, ok := firstStats(st); ok {
		addStats(&t, grid, 100, o)
	}
	caption := fmt.Sprintf("%s (%%) on %s under different answer-time evidence budgets. Bold indicates the best result at each budget, and underlining the second best.", title, dashIfEmpty(benchList(samples)))
	caption += recallCaption(metric, answerInBundle(samples))
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
	if metric == MetricAccuracy || !known {
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
// system, on a log-scale x axis labelled 256 … 32K (paper §6.3). With
// StatsOptions each point carries its confidence interval as an error bar.
func BudgetPlot(samples []record.Sample, metric Metric, st ...StatsOptions) table.Plot {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return s.Variant == "" && s.Budget > 0 })
	title, unit, _ := metricName(metric, samples)
	budgets, systems, cell, _, _, ob := budgetCells(samples, metric)
	o, withCI := firstStats(st)
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
				if withCI {
					iv, _ := o.interval(ob[b][sys])
					s.Lo, s.Hi = append(s.Lo, iv.Lo*100), append(s.Hi, iv.Hi*100)
				}
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
// samples count when there are any (the variants are ArborMem's). With
// StatsOptions every cell carries its interval, and each variant its paired
// comparison with the reference configuration of its column.
func AblationTable(samples []record.Sample, models []string, st ...StatsOptions) table.Table {
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
	acc, _, _ := metricName(MetricAccuracy, samples)
	t.Caption = withHeuristic(fmt.Sprintf("%s (%%) of ArborMem's reference configuration and its ablations on %s. "+
		"Parenthetical values indicate relative changes from the reference configuration; compare within each model column.", acc, dashIfEmpty(benchList(samples))),
		heuristicNote(samples, nil, false))
	if o, ok := firstStats(st); ok {
		grid := newGrid(len(variants), len(models))
		for r, v := range variants {
			for c, m := range models {
				if a := accs[v][m]; a != nil {
					grid[r][c] = a.obs
				}
			}
		}
		addStats(&t, grid, 100, o)
		if len(variants) > 0 && variants[0] == "" {
			for c := range models {
				var line [][2]int
				for r := range variants {
					line = append(line, [2]int{r, c})
				}
				if len(grid.at(0, c)) > 0 {
					compareLine(&t, grid, 100, o, line, [2]int{0, c}, variantLabel(""))
				}
			}
			t.Stats.Against = "the reference configuration of its column"
		}
	}
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

// RecallTable reports both evidence-recall figures of a run, one row each,
// systems as columns: answer-in-bundle recall (the gold answer in the
// bundle's text, where defined) and source recall (the gold evidence turns
// the bundle cites). A lossy memory separates them: a summary cites every
// turn it covers but keeps few answers. Reference configuration, at each
// system's largest budget; BranchMemEval samples are left out (its own table
// reports answer-in-bundle recall and confounders).
func RecallTable(samples []record.Sample) table.Table {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool {
		return s.Variant == "" && benchKey(s.Benchmark) != "branchmemeval"
	})
	samples, budgetNote := largestBudget(samples, func(s record.Sample) string { return s.System }, SystemName)
	systems := orderSystems(uniqBy(samples, func(s record.Sample) string { return s.System }))
	t := table.Table{
		Title:     "Evidence recall (%) on " + dashIfEmpty(benchList(samples)),
		Stub:      "Figure",
		Groups:    systemGroups(systems),
		Columns:   systemColumns(systems, 1),
		Highlight: table.Highlight{By: table.ByRow, Second: true},
	}
	counts := map[string]map[string]int{}
	var rows []string
	for _, r := range []struct {
		label  string
		metric Metric
	}{{"Answer-in-bundle recall", MetricEvidenceRecall}, {"Source recall", MetricSourceRecall}} {
		answer := r.metric == MetricEvidenceRecall
		row := table.Row{Label: r.label}
		counts[r.label] = map[string]int{}
		for _, sys := range systems {
			m := aggMean{}
			for _, s := range samples {
				if s.System != sys {
					continue
				}
				if v, ok := recallOf(s, r.metric, answer); ok && (!answer || s.AnswerInBundle != nil) {
					m.add(v)
				}
			}
			counts[r.label][sys] = m.n
			row.Cells = append(row.Cells, valueCell(m.value(100)))
		}
		t.Rows = append(t.Rows, row)
		rows = append(rows, r.label)
	}
	t.Caption = withHeuristic("Evidence recall (%) of each system's evidence bundles."+
		recallCaption(MetricEvidenceRecall, true)+recallCaption(MetricSourceRecall, false)+
		" Bold indicates the best result per row, and underlining the second best.", heuristicNote(samples, nil, false))
	t.Notes = append(t.Notes, countNote("Questions per row", rows, func(s string) string { return s }, counts))
	if budgetNote != "" {
		t.Notes = append(t.Notes, budgetNote)
	}
	return t
}
