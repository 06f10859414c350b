package scoring

import (
	"fmt"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// JudgeAgreementTable compares the scorers of samples scored by more than
// one (a model judge and its lexical stand-in, or two judges): one row per
// benchmark and pair of scorers, over the samples both scored (failed
// samples left out), with the number of questions and of compared units,
// each scorer's accuracy (mean score, %), their percent agreement and
// Cohen's kappa. Units and agreement are the package's judge comparison
// (JudgeLabels, CompareLabels): one label per rubric item where a score has
// parts, else one per question. Where kappa is undefined because both
// scorers gave one and the same label throughout, it is shown as 1 (perfect
// agreement) marked "(constant)"; it is never NaN.
func JudgeAgreementTable(samples []record.Sample) table.Table {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return s.Error == "" && len(s.Scores) > 1 })
	t := table.Table{
		Title: "Judge agreement",
		Stub:  "Benchmark: scorers A vs B",
		Columns: []table.Column{
			{Name: "Questions", Decimals: 0},
			{Name: "Units", Decimals: 0},
			{Name: "Accuracy A", Unit: "%", Decimals: 2},
			{Name: "Accuracy B", Unit: "%", Decimals: 2},
			{Name: "Agreement", Unit: "%", Decimals: 2},
			{Name: "Cohen's κ", Decimals: 3},
		},
	}
	for _, bench := range orderBenchmarks(uniqBy(samples, func(s record.Sample) string { return s.Benchmark })) {
		scorers := map[string]bool{}
		for _, s := range samples {
			if s.Benchmark == bench {
				for name := range s.Scores {
					scorers[name] = true
				}
			}
		}
		names := sortedKeysOf(scorers)
		for i, x := range names {
			for _, y := range names[i+1:] {
				var la, lb [][]string
				var sa, sb aggMean
				for _, s := range samples {
					ra, okA := s.Scores[x]
					rb, okB := s.Scores[y]
					if s.Benchmark == bench && okA && okB {
						la = append(la, JudgeLabels(ra.Score, ra.Parts))
						lb = append(lb, JudgeLabels(rb.Score, rb.Parts))
						sa.add(ra.Score)
						sb.add(rb.Score)
					}
				}
				if len(la) == 0 {
					continue
				}
				ag := CompareLabels(x, y, la, lb)
				kappa := valueCell(nil)
				switch {
				case ag.KappaDefined:
					kappa = table.V(ag.Kappa)
				case ag.Units > 0:
					// Chance agreement is 1: both gave one and the same
					// label throughout, so agreement is perfect.
					kappa = table.Cell{Value: ptr(1.0), Note: "(constant)"}
				}
				t.Rows = append(t.Rows, table.Row{
					Label: fmt.Sprintf("%s: %s vs %s", BenchmarkName(bench), x, y),
					Cells: []table.Cell{
						countCell(len(la)), countCell(ag.Units), valueCell(sa.value(100)), valueCell(sb.value(100)),
						table.V(ag.Percent * 100), kappa,
					},
				})
			}
		}
	}
	t.Caption = withHeuristic("Agreement between scorers on the same predictions: each scorer's accuracy, percent agreement and Cohen's kappa over the samples both scored; units are rubric items where scores have parts, else questions.",
		heuristicNote(samples, nil, true))
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "No sample was scored by more than one scorer.")
	}
	return t
}

func ptr[T any](v T) *T { return &v }
