package scoring

import (
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/stats"
	"github.com/arbor-eval/arbor/pkg/table"
)

// SpreadRow is one figure measured once per seed.
type SpreadRow struct {
	Label    string
	Indent   int
	Decimals int
	// Values maps a seed to the figure on the set generated with it.
	Values map[int64]float64
}

// SpreadTable lays out figures measured on sets generated with several
// seeds: the reference seed's figure (the shipped set's, seed 42), then the
// mean, sample standard deviation, minimum and maximum over every seed.
func SpreadTable(title, caption string, ref int64, seeds []int64, rows []SpreadRow) table.Table {
	t := table.Table{
		Title: title,
		Stub:  "Figure",
		Columns: []table.Column{
			{Name: fmt.Sprintf("Seed %d", ref)}, {Name: "Mean"}, {Name: "SD"}, {Name: "Min"}, {Name: "Max"},
		},
	}
	var names []string
	for _, s := range seeds {
		names = append(names, fmt.Sprint(s))
	}
	t.Caption = caption + fmt.Sprintf(" Spread over %d seeds (%s); SD is the sample standard deviation.", len(seeds), strings.Join(names, ", "))
	for _, r := range rows {
		var xs []float64
		for _, s := range seeds {
			if v, ok := r.Values[s]; ok {
				xs = append(xs, v)
			}
		}
		sm := stats.Summarize(xs)
		// Each row keeps its own decimals: the value drives JSON, the
		// text what is shown.
		cell := func(v float64) table.Cell {
			c := table.V(v)
			c.Text = table.Format(v, r.Decimals)
			return c
		}
		refCell := table.Cell{}
		if v, ok := r.Values[ref]; ok {
			refCell = cell(v)
		}
		t.Rows = append(t.Rows, table.Row{Label: r.Label, Indent: r.Indent, Cells: []table.Cell{refCell, cell(sm.Mean), cell(sm.SD), cell(sm.Min), cell(sm.Max)}})
	}
	return t
}

// SeedAccuracyTable is the spread of every system's answer accuracy (%),
// overall and by question category, over runs on sets generated with each
// seed, beside the reference seed's figure.
func SeedAccuracyTable(runs map[int64][]record.Sample, ref int64, seeds []int64) table.Table {
	var all []record.Sample
	for _, s := range seeds {
		all = append(all, runs[s]...)
	}
	return SpreadTable("Answer accuracy (%) across generated sets",
		withHeuristic("Answer accuracy (%) of each system, overall and by category, on the sets generated with each seed (BranchMemEval: seed 42 is the shipped set).", heuristicNote(all, nil, false)),
		ref, seeds, seedAccuracyRows(runs))
}

// seedAccuracyRows are each system's answer accuracy (%) per seed, overall
// and by question category: reference configuration, largest budget,
// failed samples counted as wrong (as in MainTable).
func seedAccuracyRows(runs map[int64][]record.Sample) []SpreadRow {
	byLabel := map[string]*SpreadRow{}
	var order []string
	systems := map[string]bool{}
	cats := map[string]bool{}
	for seed, samples := range runs {
		samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return s.Variant == "" })
		samples, _ = largestBudget(samples, func(s record.Sample) string { return s.System }, SystemName)
		acc := map[string]*accAgg{}
		get := func(k string) *accAgg {
			if acc[k] == nil {
				acc[k] = &accAgg{}
			}
			return acc[k]
		}
		for _, s := range samples {
			systems[s.System] = true
			c := strings.TrimSpace(s.Category)
			cats[c] = true
			get(s.System + "\x1f").add(s)
			get(s.System + "\x1f" + c).add(s)
		}
		for k, a := range acc {
			if v := a.pct(); v != nil {
				if byLabel[k] == nil {
					byLabel[k] = &SpreadRow{Decimals: 1, Values: map[int64]float64{}}
				}
				byLabel[k].Values[seed] = *v
			}
		}
	}
	for _, sys := range orderSystems(sortedKeysOf(systems)) {
		order = append(order, sys+"\x1f")
		for _, c := range sortedKeysOf(cats) {
			order = append(order, sys+"\x1f"+c)
		}
	}
	var out []SpreadRow
	for _, k := range order {
		r := byLabel[k]
		if r == nil {
			continue
		}
		sys, c, _ := strings.Cut(k, "\x1f")
		r.Label = SystemName(sys)
		if c != "" {
			r.Label, r.Indent = humanizeCategory(c), 1
		}
		out = append(out, *r)
	}
	return out
}
