package scoring

import (
	"fmt"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// ReadingsTable compares ArborMem's configurations (the reference and the
// ablation variants in the samples, typically the scoring readings
// ce-logit, ce-scaled, no-rerank-instruction, tau=<τ>) by what they do to
// the forest beside accuracy: accuracy, the share of committed interactions
// that started a new root (EpisodeStat.NewRoots over Committed, from the
// instance that ingested the variant; the reference's for recall-only
// variants), and the question-parent accuracy
// (Sample.QuestionParentInBranch, BranchMemEval only). Samples at several
// budgets are reduced to each variant's largest.
func ReadingsTable(samples []record.Sample, episodes []record.EpisodeStat) table.Table {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return systemKey(s.System) == "arbormem" })
	samples, budgetNote := largestBudget(samples, func(s record.Sample) string { return s.Variant }, variantLabel)
	variants := orderByKnown(uniqBy(samples, func(s record.Sample) string { return s.Variant }), variantOrder, func(s string) string { return s })
	acc := map[string]*accAgg{}
	parent := map[string]*aggMean{}
	for _, s := range samples {
		if acc[s.Variant] == nil {
			acc[s.Variant], parent[s.Variant] = &accAgg{}, &aggMean{}
		}
		acc[s.Variant].add(s)
		if s.QuestionParentInBranch != nil {
			parent[s.Variant].add(boolToFloat(*s.QuestionParentInBranch))
		}
	}
	roots, committed := map[string]int{}, map[string]int{}
	for _, e := range episodes {
		if systemKey(e.System) == "arbormem" && e.Localizes {
			roots[e.Variant] += e.NewRoots
			committed[e.Variant] += e.Committed
		}
	}
	t := table.Table{Title: "Scoring readings", Stub: "Configuration", Columns: []table.Column{
		{Name: "Accuracy", Align: table.Center, Decimals: 1},
		{Name: "New roots (%)", Align: table.Center, Decimals: 1},
		{Name: "Question parent (%)", Align: table.Center, Decimals: 1},
	}}
	for _, v := range variants {
		ingested := v
		if committed[v] == 0 {
			ingested = "" // recall-only: answered from the reference's forest
		}
		var share *float64
		if c := committed[ingested]; c > 0 {
			x := 100 * float64(roots[ingested]) / float64(c)
			share = &x
		}
		row := table.Row{Label: variantLabel(v), Cells: []table.Cell{valueCell(acc[v].pct()), valueCell(share), valueCell(parent[v].value(100))}}
		if v != "" {
			row.Indent = 1
		}
		t.Rows = append(t.Rows, row)
	}
	t.Caption = withHeuristic(fmt.Sprintf("Accuracy (%%), share of committed interactions that started a new root (%%) and question-parent accuracy (%%, BranchMemEval) of ArborMem's configurations on %s. "+
		"The scoring readings change where interactions are placed at commit, so each ingests on its own.", dashIfEmpty(benchList(samples))),
		heuristicNote(samples, nil, false))
	if budgetNote != "" {
		t.Notes = append(t.Notes, budgetNote)
	}
	return t
}
