package scoring

import (
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// CompareTable is the detailed paired comparison of systems a and b (`arbor
// report RUN --compare a,b`): per benchmark one overall row and one row per
// question category, each over the questions both systems answered, with
// both accuracies, their difference a − b in points, its confidence
// interval and the permutation test's p-value. Reference configuration
// only, at each system's largest budget; LoCoMo's overall row covers
// Categories 1–4 (paper §6.1) and Category 5, when present, has its own row.
func CompareTable(samples []record.Sample, a, b string, o StatsOptions) (table.Table, error) {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return s.Variant == "" })
	samples, _ = largestBudget(samples,
		func(s record.Sample) string { return s.Benchmark + "\x1f" + s.System },
		func(k string) string { return k })
	systems := orderSystems(uniqBy(samples, func(s record.Sample) string { return s.System }))
	find := func(name string) (string, error) {
		for _, s := range systems {
			if s == canonSystem(name) || foldName(s) == foldName(name) {
				return s, nil
			}
		}
		return "", fmt.Errorf("compare: system %q has no reference-configuration samples (systems: %s)", name, strings.Join(systems, ", "))
	}
	sa, err := find(a)
	if err != nil {
		return table.Table{}, err
	}
	sb, err := find(b)
	if err != nil {
		return table.Table{}, err
	}
	if sa == sb {
		return table.Table{}, fmt.Errorf("compare: %q and %q name one system", a, b)
	}
	na, nb := SystemName(sa), SystemName(sb)
	t := table.Table{
		Title: fmt.Sprintf("%s vs. %s: paired comparison on the same questions", na, nb),
		Stub:  "Benchmark / category",
		Columns: []table.Column{
			{Name: "Questions", Decimals: 0},
			{Name: na, Unit: "%", Decimals: 1},
			{Name: nb, Unit: "%", Decimals: 1},
			{Name: "Difference", Unit: "pts", Decimals: 1},
			{Name: "CI low", Unit: "pts", Decimals: 1},
			{Name: "CI high", Unit: "pts", Decimals: 1},
			{Name: "p", Decimals: 4},
		},
	}
	addRow := func(label string, indent int, keep func(record.Sample) bool) {
		var xa, xb []obs
		for _, s := range samples {
			if !keep(s) {
				continue
			}
			switch s.System {
			case sa:
				xa = append(xa, scoreObs(s))
			case sb:
				xb = append(xb, scoreObs(s))
			}
		}
		pr := o.compare(xa, xb)
		if pr.N == 0 {
			return
		}
		meanA, meanB := pairedMeans(xa, xb)
		row := table.Row{Label: label, Indent: indent, Cells: []table.Cell{
			table.V(float64(pr.N)), table.V(meanA * 100), table.V(meanB * 100),
			table.V(pr.Diff * 100), table.V(pr.CI.Lo * 100), table.V(pr.CI.Hi * 100), table.V(pr.P),
		}}
		if !pr.Distinct() {
			row.Cells[3].Note = "(not distinguishable)"
		}
		t.Rows = append(t.Rows, row)
	}
	benches := orderBenchmarks(uniqBy(samples, func(s record.Sample) string { return s.Benchmark }))
	for _, bench := range benches {
		inBench := func(s record.Sample) bool { return s.Benchmark == bench }
		overall, label := inBench, BenchmarkName(bench)
		if benchKey(bench) == "locomo" {
			overall = func(s record.Sample) bool { return inBench(s) && isLoCoMoCore(s) }
			label += " (Categories 1–4)"
		}
		addRow(label, 0, overall)
		cats := sortedKeysOf(stringSet(uniqBy(keepSamples(samples, inBench), func(s record.Sample) string { return strings.TrimSpace(s.Category) })))
		for _, c := range cats {
			addRow(categoryRowLabel(bench, c), 1, func(s record.Sample) bool { return inBench(s) && strings.TrimSpace(s.Category) == c })
		}
	}
	t.Stats = &table.StatsInfo{Level: o.norm().Level, Method: o.methodFor(benches)}
	lv := table.Format(o.norm().Level*100, 0)
	t.Caption = withHeuristic(fmt.Sprintf("%s minus %s in accuracy points on the questions both answered, with the %s%% paired interval of the difference (%s) "+
		"and the two-sided p-value read off the same resamples (never below 2^(1−K) for K units). "+
		"A difference whose interval includes zero (equivalently, p ≥ %s) is not distinguishable from no difference.", na, nb, lv, o.methodFor(benches), table.Format(1-o.norm().Level, 2)),
		heuristicNote(keepSamples(samples, func(s record.Sample) bool { return s.System == sa || s.System == sb }), nil, false))
	return t, nil
}

// pairedMeans are the means of xa and xb over the questions both hold.
func pairedMeans(xa, xb []obs) (float64, float64) {
	at := map[string]float64{}
	for _, x := range xa {
		at[x.key()] = x.v
	}
	var sa, sb, n float64
	for _, y := range xb {
		if v, ok := at[y.key()]; ok {
			sa, sb, n = sa+v, sb+y.v, n+1
		}
	}
	return sa / n, sb / n
}

// categoryRowLabel names a category as the category tables do.
func categoryRowLabel(bench, c string) string {
	switch benchKey(bench) {
	case "locomo":
		for _, lc := range locomoCategories {
			if lc.id == c {
				return fmt.Sprintf("%s (%s)", lc.name, lc.id)
			}
		}
	case "longmemeval":
		if l, ok := longMemEvalLabels[c]; ok {
			return l
		}
	}
	return humanizeCategory(c)
}
