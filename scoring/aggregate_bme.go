package scoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// bmeDimensions are BranchMemEval's five diagnostic dimensions (paper §5,
// Table "bme-composition"): backjump, state update, assistant artifacts,
// cross-branch bridging, twin threads.
var bmeDimensions = []string{"B1", "B2", "B3", "B4", "B5"}

// bmeOutcomes are the four rule-based outcomes (paper appendix B, Table
// "bme-scoring").
var bmeOutcomes = []struct{ key, name string }{
	{"correct", "Correct"}, {"confusion", "Confusion"}, {"ambiguous", "Ambiguous"}, {"miss", "Miss"},
}

// variantOrder is the ablation order of paper Table "ablation"; "" is the
// reference configuration.
var variantOrder = []string{"", "no-localization", "no-keyword-routing", "no-atomic-facts", "no-structured-extraction", "no-structured-evidence"}

var variantDisplay = map[string]string{
	"":                         "Reference configuration",
	"no-localization":          "w/o state localization",
	"no-keyword-routing":       "w/o keyword/entity routing",
	"no-atomic-facts":          "w/o atomic-fact retrieval",
	"no-structured-extraction": "w/o structured extraction",
	"no-structured-evidence":   "w/o structured evidence",
}

// runKey identifies one system configuration: system and ablation variant.
type runKey struct{ system, variant string }

// label names a configuration in a row: "ArborMem", or
// "ArborMem (w/o state localization)" for a variant.
func (k runKey) label() string {
	if k.variant == "" {
		return SystemName(k.system)
	}
	if v, ok := variantDisplay[k.variant]; ok {
		return SystemName(k.system) + " (" + v + ")"
	}
	return SystemName(k.system) + " (" + k.variant + ")"
}

// orderRuns sorts configurations by system (paper order), then variant
// (ablation order, unknown variants by name).
func orderRuns(keys []runKey) []runKey {
	systems := orderSystems(uniqBy(keys, func(k runKey) string { return k.system }))
	variants := orderByKnown(uniqBy(keys, func(k runKey) string { return k.variant }), variantOrder, func(s string) string { return s })
	out := slices.Clone(keys)
	slices.SortStableFunc(out, func(a, b runKey) int {
		if d := slices.Index(systems, a.system) - slices.Index(systems, b.system); d != 0 {
			return d
		}
		return slices.Index(variants, a.variant) - slices.Index(variants, b.variant)
	})
	return out
}

// pctOf is a share in percent, nil when the denominator is zero.
func pctOf(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	v := float64(num) / float64(den) * 100
	return &v
}

func countCell(n int) table.Cell { return table.V(float64(n)) }

// BMETable is the BranchMemEval diagnostic table: one row per system (and
// ablation variant), with overall and per-dimension accuracy (B1–B5), the
// counts of the four rule-based outcomes (paper appendix B, Table
// "bme-scoring"), evidence recall and confounder presence in the bundle, and
// for localizing systems the localization accuracy (DESIGN.md, "Measuring
// memory without a chat model"): the question's chosen parent inside its
// latent branch (Sample.QuestionParentInBranch), commit placements inside
// the latent branch and root decisions (EpisodeStat.PlacedInBranch,
// OpenedCorrectly, both over Committed). Each column's best value is bold.
// Samples at several budgets are reduced to each configuration's largest.
// With StatsOptions the accuracy, evidence and question-parent cells carry
// intervals and their paired comparison with the column's best (commit
// placements and root decisions, counted per episode, do not).
func BMETable(samples []record.Sample, episodes []record.EpisodeStat, opts ...StatsOptions) table.Table {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return benchKey(s.Benchmark) == "branchmemeval" })
	samples, budgetNote := largestBudget(samples,
		func(s record.Sample) string { return s.System + "\x1f" + s.Variant },
		func(k string) string { sys, v, _ := strings.Cut(k, "\x1f"); return runKey{sys, v}.label() })

	type stats struct {
		overall   accAgg
		dims      map[string]*accAgg
		outcomes  map[string]int
		errors    int
		recall    aggMean
		confIn    aggMean
		recallObs []obs
		confObs   []obs
		parentObs []obs
		parent    aggMean
		committed int
		placed    int
		opened    int
		localizes bool
	}
	by := map[runKey]*stats{}
	var keys []runKey
	get := func(k runKey) *stats {
		st := by[k]
		if st == nil {
			st = &stats{dims: map[string]*accAgg{}, outcomes: map[string]int{}}
			by[k] = st
			keys = append(keys, k)
		}
		return st
	}
	dimsPresent := map[string]bool{}
	for _, s := range samples {
		st := get(runKey{s.System, s.Variant})
		st.overall.add(s)
		c := strings.TrimSpace(s.Category)
		dimsPresent[c] = true
		if st.dims[c] == nil {
			st.dims[c] = &accAgg{}
		}
		st.dims[c].add(s)
		if s.Error != "" {
			st.errors++
		} else {
			st.outcomes[strings.ToLower(s.Scores[s.Primary].Outcome)]++
		}
		if s.EvidenceRecall >= 0 {
			st.recall.add(s.EvidenceRecall)
			st.recallObs = append(st.recallObs, sampleObs(s, s.EvidenceRecall))
		}
		if s.ConfounderInBundle != nil {
			st.confIn.add(boolToFloat(*s.ConfounderInBundle))
			st.confObs = append(st.confObs, sampleObs(s, boolToFloat(*s.ConfounderInBundle)))
		}
		if s.QuestionParentInBranch != nil {
			st.parent.add(boolToFloat(*s.QuestionParentInBranch))
			st.parentObs = append(st.parentObs, sampleObs(s, boolToFloat(*s.QuestionParentInBranch)))
			st.localizes = true
		}
	}
	for _, e := range episodes {
		k := runKey{canonSystem(e.System), e.Variant}
		if benchKey(e.Benchmark) != "branchmemeval" || by[k] == nil || !e.Localizes {
			continue
		}
		st := by[k]
		st.localizes = true
		st.committed += e.Committed
		st.placed += e.PlacedInBranch
		st.opened += e.OpenedCorrectly
	}

	dims := slices.Clone(bmeDimensions)
	for _, c := range sortedKeysOf(dimsPresent) {
		if !slices.Contains(dims, c) {
			dims = append(dims, c)
		}
	}
	anyErrors := false
	for _, st := range by {
		anyErrors = anyErrors || st.errors > 0
	}

	pct := func(name string, better table.Better) table.Column {
		return table.Column{Name: name, Align: table.Center, Better: better, Decimals: 1}
	}
	count := func(name string, better table.Better) table.Column {
		return table.Column{Name: name, Align: table.Center, Better: better, Decimals: 0}
	}
	t := table.Table{
		Title:     "BranchMemEval diagnostics",
		Stub:      "System",
		Highlight: table.Highlight{By: table.ByColumn},
	}
	t.Columns = append(t.Columns, pct("Overall", table.Higher))
	for _, d := range dims {
		t.Columns = append(t.Columns, pct(d, table.Higher))
	}
	t.Columns = append(t.Columns, count("Correct", table.Higher), count("Confusion", table.Lower),
		count("Ambiguous", table.Lower), count("Miss", table.Lower))
	nOutcomes := 4
	if anyErrors {
		t.Columns = append(t.Columns, count("Error", table.Lower))
		nOutcomes++
	}
	t.Columns = append(t.Columns, pct("Gold in bundle", table.Higher), pct("Confounder in bundle", table.Lower),
		pct("Question parent", table.Higher), pct("Commit placement", table.Higher), pct("Root decision", table.Higher))
	t.Groups = []table.Group{
		{Name: "Accuracy (%)", Span: 1 + len(dims)},
		{Name: "Outcomes (count)", Span: nOutcomes},
		{Name: "Evidence (%)", Span: 2},
		{Name: "Localization (%)", Span: 3},
	}

	var grid statGrid
	for _, k := range orderRuns(keys) {
		st := by[k]
		row := table.Row{Label: k.label(), Cells: []table.Cell{valueCell(st.overall.pct())}}
		g := make([][]obs, len(t.Columns))
		g[0] = st.overall.obs
		for i, d := range dims {
			var v *float64
			if a := st.dims[d]; a != nil {
				v = a.pct()
				g[1+i] = a.obs
			}
			row.Cells = append(row.Cells, valueCell(v))
		}
		evidence := 1 + len(dims) + nOutcomes
		g[evidence], g[evidence+1], g[evidence+2] = st.recallObs, st.confObs, st.parentObs
		grid = append(grid, g)
		for _, o := range bmeOutcomes {
			row.Cells = append(row.Cells, countCell(st.outcomes[o.key]))
		}
		if anyErrors {
			row.Cells = append(row.Cells, countCell(st.errors))
		}
		row.Cells = append(row.Cells, valueCell(st.recall.value(100)), valueCell(st.confIn.value(100)))
		if st.localizes {
			row.Cells = append(row.Cells, valueCell(st.parent.value(100)), valueCell(pctOf(st.placed, st.committed)), valueCell(pctOf(st.opened, st.committed)))
		} else {
			row.Cells = append(row.Cells, table.Cell{}, table.Cell{}, table.Cell{})
		}
		t.Rows = append(t.Rows, row)
	}

	if o, ok := firstStats(opts); ok {
		addStats(&t, grid, 100, o)
	}
	var eps []record.EpisodeStat
	for _, e := range episodes {
		if benchKey(e.Benchmark) == "branchmemeval" && by[runKey{canonSystem(e.System), e.Variant}] != nil {
			eps = append(eps, e)
		}
	}
	t.Caption = withHeuristic("BranchMemEval accuracy (%) overall and by dimension (B1 backjump, B2 state update, B3 assistant artifacts, B4 cross-branch bridging, B5 twin threads); "+
		"outcome counts by the rule-based scoring (correct, trajectory confusion, ambiguous, miss); "+
		"evidence recall (gold answer in the evidence bundle) and confounder presence; "+
		"localization accuracy for localizing systems: question parent in the latent branch, commit placement in the latent branch, and new-root decisions matching latent branch openings.",
		heuristicNote(samples, eps, false))
	if len(keys) > 0 {
		var parts []string
		for _, k := range orderRuns(keys) {
			parts = append(parts, fmt.Sprintf("%s %d", k.label(), by[k].overall.n))
		}
		t.Notes = append(t.Notes, "Questions: "+strings.Join(parts, ", ")+".")
	}
	if budgetNote != "" {
		t.Notes = append(t.Notes, budgetNote)
	}
	return t
}

func boolToFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
