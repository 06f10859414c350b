package scoring

// Aggregation: pure functions from sample records (pkg/record) to tables
// (pkg/table). Nothing here reads files or calls models, so `arbor report`
// rebuilds every table from samples.jsonl alone (DESIGN.md, "What every run
// leaves behind"). Every function is deterministic: maps are walked in sorted
// order and ties are broken by name.

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// systemOrder is the paper's column order (Table "main-results"): the four
// context-and-retrieval baselines, then the memory systems, ArborMem last.
var systemOrder = []string{"full", "recent", "bm25", "summary", "graphiti", "amem", "mem0", "licomemory", "arbormem"}

// contextSystems is how many of systemOrder form the "Context and Retrieval"
// group (paper Table "main-results").
const contextSystems = 4

var systemDisplay = map[string]string{
	"full": "Full", "recent": "Recent", "bm25": "BM25", "summary": "Summary",
	"graphiti": "Graphiti", "amem": "A-MEM", "mem0": "Mem0", "licomemory": "LiCoMem.",
	"arbormem": "ArborMem",
}

// benchOrder is the paper's row order (Table "main-results").
var benchOrder = []string{"longmemeval", "locomo", "beam", "branchmemeval"}

var benchDisplay = map[string]string{
	"longmemeval": "LongMemEval", "locomo": "LoCoMo", "beam": "BEAM 100K", "branchmemeval": "BranchMemEval",
}

// foldName lower-cases s and drops everything but letters and digits, so that
// "A-MEM", "a_mem" and "amem" name one system.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// systemKey maps a system name to its key in systemOrder ("" when unknown).
func systemKey(name string) string {
	k := foldName(name)
	if _, ok := systemDisplay[k]; ok {
		return k
	}
	return ""
}

// canonSystem is a system's identity in tables: its key in systemOrder when
// known ("a-mem" → "amem"), else the name as recorded.
func canonSystem(name string) string {
	if k := systemKey(name); k != "" {
		return k
	}
	return name
}

// SystemName is a system's display name in tables (the paper's column
// headers); unknown systems keep their own name.
func SystemName(name string) string {
	if k := systemKey(name); k != "" {
		return systemDisplay[k]
	}
	return name
}

// benchKey maps a benchmark name to its key in benchOrder ("" when unknown).
func benchKey(name string) string {
	switch k := foldName(name); k {
	case "longmemeval", "lme", "longmemevals":
		return "longmemeval"
	case "locomo", "locomo10":
		return "locomo"
	case "beam", "beam100k":
		return "beam"
	case "branchmemeval", "bme":
		return "branchmemeval"
	}
	return ""
}

// BenchmarkName is a benchmark's display name (the paper's row labels).
func BenchmarkName(name string) string {
	if k := benchKey(name); k != "" {
		return benchDisplay[k]
	}
	return name
}

// orderByKnown sorts names by their position in known (through key), unknown
// names after them alphabetically.
func orderByKnown(names []string, known []string, key func(string) string) []string {
	pos := func(n string) int {
		if i := slices.Index(known, key(n)); i >= 0 {
			return i
		}
		return len(known)
	}
	out := slices.Clone(names)
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := pos(out[i]), pos(out[j])
		if pi != pj {
			return pi < pj
		}
		return out[i] < out[j]
	})
	return out
}

func orderSystems(names []string) []string { return orderByKnown(names, systemOrder, systemKey) }

func orderBenchmarks(names []string) []string { return orderByKnown(names, benchOrder, benchKey) }

// uniqBy returns the distinct values of f over xs in first-seen order.
func uniqBy[T any](xs []T, f func(T) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if v := f(x); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// systemGroups returns the paper's two header groups over ordered systems:
// the known context-and-retrieval baselines, then everything else.
func systemGroups(systems []string) []table.Group {
	n := 0
	for _, s := range systems {
		if i := slices.Index(systemOrder, systemKey(s)); i >= 0 && i < contextSystems {
			n++
		}
	}
	var g []table.Group
	if n > 0 {
		g = append(g, table.Group{Name: "Context and Retrieval", Span: n})
	}
	if len(systems) > n {
		g = append(g, table.Group{Name: "Memory Systems", Span: len(systems) - n})
	}
	return g
}

// systemColumns returns one column per system with the paper's headers.
func systemColumns(systems []string, decimals int) []table.Column {
	cols := make([]table.Column, len(systems))
	for i, s := range systems {
		cols[i] = table.Column{Name: SystemName(s), Align: table.Center, Better: table.Higher, Decimals: decimals}
	}
	return cols
}

// dedupeSamples keeps the last record of each sample key (a resumed run may
// append a retried question again), in first-seen order. The model label is
// part of the key here: runs of one configuration under two models (paper
// Table "ablation") share record keys but are different samples. Known
// systems are renamed to their canonical key first, so that "Mem0" and
// "mem0" are one column.
func dedupeSamples(samples []record.Sample) []record.Sample {
	idx := make(map[string]int, len(samples))
	out := make([]record.Sample, 0, len(samples))
	canon := map[string]string{}
	for _, s := range samples {
		c, ok := canon[s.System]
		if !ok {
			c = canonSystem(s.System)
			canon[s.System] = c
		}
		s.System = c
		k := s.Key() + "\x1f" + s.Labels["model"]
		if i, ok := idx[k]; ok {
			out[i] = s
			continue
		}
		idx[k] = len(out)
		out = append(out, s)
	}
	return out
}

func keepSamples(samples []record.Sample, keep func(record.Sample) bool) []record.Sample {
	out := make([]record.Sample, 0, len(samples))
	for _, s := range samples {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// largestBudget keeps, for each group of samples (by key), only the samples
// at the group's largest budget: tables that are not about budgets report
// the main setting (paper §6.1: "approximately 32K answer-time evidence
// budget"). It returns a note naming the groups where other budgets were set
// aside ("" when none were).
func largestBudget(samples []record.Sample, key func(record.Sample) string, name func(string) string) ([]record.Sample, string) {
	budgets := map[string]map[int]bool{}
	for _, s := range samples {
		k := key(s)
		if budgets[k] == nil {
			budgets[k] = map[int]bool{}
		}
		budgets[k][s.Budget] = true
	}
	best := map[string]int{}
	var dropped []string
	for _, k := range sortedKeysOf(budgets) {
		bs := sortedKeysOf(budgets[k])
		best[k] = bs[len(bs)-1]
		if len(bs) > 1 {
			var other []string
			for _, b := range bs[:len(bs)-1] {
				other = append(other, BudgetLabel(b))
			}
			dropped = append(dropped, fmt.Sprintf("%s (budget %s reported; %s left out)", name(k), BudgetLabel(best[k]), strings.Join(other, ", ")))
		}
	}
	out := keepSamples(samples, func(s record.Sample) bool { return s.Budget == best[key(s)] })
	if len(dropped) == 0 {
		return out, ""
	}
	return out, "Several budgets in the samples; the largest is reported: " + strings.Join(dropped, "; ") + "."
}

func sortedKeysOf[K int | string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// accAgg accumulates answer accuracy: the mean primary score, with failed
// samples counted as wrong (a run that crashes on hard questions must not
// look better for it).
type accAgg struct {
	n, errs int
	sum     float64
	// obs are the per-question scores, for intervals (aggregate_stats.go).
	obs []obs
}

func (a *accAgg) add(s record.Sample) {
	a.n++
	a.obs = append(a.obs, scoreObs(s))
	if s.Error != "" {
		a.errs++
		return
	}
	if v := s.PrimaryScore(); !math.IsNaN(v) && !math.IsInf(v, 0) {
		a.sum += v
	}
}

// pct is accuracy in percent, nil without samples.
func (a accAgg) pct() *float64 {
	if a.n == 0 {
		return nil
	}
	v := a.sum / float64(a.n) * 100
	return &v
}

func valueCell(v *float64) table.Cell {
	if v == nil {
		return table.Cell{}
	}
	return table.Cell{Value: v}
}

// aggMean accumulates a plain mean.
type aggMean struct {
	n   int
	sum float64
}

func (m *aggMean) add(v float64) {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		m.n++
		m.sum += v
	}
}

func (m aggMean) value(scale float64) *float64 {
	if m.n == 0 {
		return nil
	}
	v := m.sum / float64(m.n) * scale
	return &v
}

// heuristicLabels spells the offline stand-ins recorded in samples for
// captions (DESIGN.md, "The offline default": tables made with heuristics
// say so in their caption).
var heuristicLabels = map[string]string{
	"answerer":   "answers (extractive answerer)",
	"memory-ops": "memory operations (rule-based)",
	"judge":      "judging (lexical judge)",
}

var heuristicOrder = []string{"answerer", "memory-ops", "judge"}

// heuristicNote names the judge models behind samples (judgeNote) and the
// heuristic components behind samples and episodes: Sample.Heuristic,
// EpisodeStat.Heuristic and heuristic scorers (only the primary one unless
// allScorers). Every table caption carries it; it is "" when no model
// judged and everything came from models.
func heuristicNote(samples []record.Sample, episodes []record.EpisodeStat, allScorers bool) string {
	judges := judgeNote(samples)
	h := heuristicParts(samples, episodes, allScorers)
	if judges == "" || h == "" {
		return judges + h
	}
	return judges + " " + h
}

// judgeNote names the model that judged the samples' primary scores
// (Sample.Judge), per system when systems were judged by different models
// (P:668, P:1469: "the two settings use different automatic judges"), so
// that a table never compares differently judged columns unawares. It is
// "" when no sample records a judge model.
func judgeNote(samples []record.Sample) string {
	bySystem := map[string]map[string]bool{}
	judges := map[string]bool{}
	for _, s := range samples {
		if s.Judge == "" {
			continue
		}
		judges[s.Judge] = true
		name := SystemName(s.System)
		if bySystem[s.Judge] == nil {
			bySystem[s.Judge] = map[string]bool{}
		}
		bySystem[s.Judge][name] = true
	}
	switch len(judges) {
	case 0:
		return ""
	case 1:
		return "Judge: " + sortedKeysOf(judges)[0] + "."
	}
	var parts []string
	for _, j := range sortedKeysOf(judges) {
		parts = append(parts, j+" ("+strings.Join(sortedKeysOf(bySystem[j]), ", ")+")")
	}
	return "Judges differ: " + strings.Join(parts, "; ") + " — cells judged by different models are not comparable."
}

// heuristicParts is heuristicNote's sentence on the offline stand-ins.
func heuristicParts(samples []record.Sample, episodes []record.EpisodeStat, allScorers bool) string {
	parts := map[string]bool{}
	scorers := map[string]bool{}
	for _, s := range samples {
		for _, h := range s.Heuristic {
			parts[h] = true
		}
		for name, r := range s.Scores {
			if r.Heuristic && (allScorers || name == s.Primary) {
				scorers[name] = true
			}
		}
	}
	for _, e := range episodes {
		for _, h := range e.Heuristic {
			parts[h] = true
		}
	}
	if len(parts) == 0 && len(scorers) == 0 {
		return ""
	}
	var names []string
	for _, h := range orderByKnown(sortedKeysOf(parts), heuristicOrder, func(s string) string { return s }) {
		if l, ok := heuristicLabels[h]; ok {
			names = append(names, l)
		} else {
			names = append(names, h)
		}
	}
	if len(scorers) > 0 {
		names = append(names, "scoring ("+strings.Join(sortedKeysOf(scorers), ", ")+")")
	}
	return "Heuristic: " + strings.Join(names, ", ") + " — offline default; not comparable with the paper's model results."
}

// scoredByTokenF1 reports whether LoCoMo samples are scored by LoCoMo's official
// token F1 (the primary scorer "locomo-f1"), so that labels and captions say
// F1 rather than accuracy.
func scoredByTokenF1(samples []record.Sample) bool {
	for _, s := range samples {
		if benchKey(s.Benchmark) == "locomo" && s.Primary == "locomo-f1" {
			return true
		}
	}
	return false
}

// beamScoringNote names the BEAM scoring protocol of the BEAM samples (the
// primary scorer "beam-rubric-official:…" or "beam-rubric:…",
// judge.beam_scoring), as a caption sentence with a leading space; "" when
// there are none.
func beamScoringNote(samples []record.Sample) string {
	modes := map[string]bool{}
	for _, s := range samples {
		if benchKey(s.Benchmark) != "beam" {
			continue
		}
		switch {
		case strings.HasPrefix(s.Primary, "beam-rubric-official"):
			modes["the official BEAM evaluation code's protocol"] = true
		case strings.HasPrefix(s.Primary, "beam-rubric"):
			modes["the corrected BEAM protocol"] = true
		}
	}
	if len(modes) == 0 {
		return ""
	}
	return " BEAM is scored with " + strings.Join(sortedKeysOf(modes), " and ") + " (--beam-scoring)."
}

// withHeuristic appends the heuristic note to a caption.
func withHeuristic(caption, note string) string {
	if note == "" {
		return caption
	}
	return caption + " " + note
}

// errorNote lists failed samples per labelled cell, in the table's order
// (labels missing from order follow by name), or is "" when none failed.
// how says what became of them ("counted as wrong answers").
func errorNote(counts map[string]int, order []string, how string) string {
	labels := orderByKnown(sortedKeysOf(counts), order, func(s string) string { return s })
	var parts []string
	total := 0
	for _, k := range labels {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
			total += counts[k]
		}
	}
	if total == 0 {
		return ""
	}
	noun := "failed samples"
	if total == 1 {
		noun = "failed sample"
	}
	return fmt.Sprintf("%d %s %s (%s).", total, noun, how, strings.Join(parts, ", "))
}

// wrongAnswers is how accuracy tables treat failed samples.
const wrongAnswers = "counted as wrong answers"

// crossLabels returns "row/col" for every pair, rows outer: the order of
// the cells of a table with those rows and columns.
func crossLabels(rows, cols []string) []string {
	var out []string
	for _, r := range rows {
		for _, c := range cols {
			out = append(out, r+"/"+c)
		}
	}
	return out
}

// displayNames maps names through f.
func displayNames[T any](names []T, f func(T) string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = f(n)
	}
	return out
}

// countNote reports the questions behind each row, and the systems that
// answered fewer than the others (an unfinished or partly failed run).
func countNote(what string, rows []string, label func(string) string, counts map[string]map[string]int) string {
	var parts, short []string
	for _, r := range rows {
		most := 0
		for _, n := range counts[r] {
			most = max(most, n)
		}
		parts = append(parts, fmt.Sprintf("%s %d", label(r), most))
		for _, sys := range orderSystems(sortedKeysOf(counts[r])) {
			if n := counts[r][sys]; n < most {
				short = append(short, fmt.Sprintf("%s has %d of %d on %s", SystemName(sys), n, most, label(r)))
			}
		}
	}
	out := what + ": " + strings.Join(parts, ", ") + "."
	if len(short) > 0 {
		out += " Incomplete: " + strings.Join(short, "; ") + "."
	}
	return out
}

// isLoCoMoCore reports whether a LoCoMo sample belongs to Categories 1–4,
// the paper's LoCoMo scope (§6.1: Category 5 is excluded).
func isLoCoMoCore(s record.Sample) bool {
	switch strings.TrimSpace(s.Category) {
	case "1", "2", "3", "4":
		return true
	}
	return false
}

// MainTable lays out paper Table "main-results": benchmarks as rows,
// systems as columns in the paper's order, answer accuracy in percent with
// two decimals, the best result bold and the second best underlined per
// benchmark. Only reference-configuration samples count (Variant ""), at each
// system's largest budget; LoCoMo rows cover Categories 1–4 (paper §6.1).
// With StatsOptions every cell carries its confidence interval and its
// paired comparison with the row's best.
func MainTable(samples []record.Sample, st ...StatsOptions) table.Table {
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool { return s.Variant == "" })
	var locomo5 int
	samples = keepSamples(samples, func(s record.Sample) bool {
		if benchKey(s.Benchmark) == "locomo" && !isLoCoMoCore(s) {
			locomo5++
			return false
		}
		return true
	})
	samples, budgetNote := largestBudget(samples,
		func(s record.Sample) string { return s.Benchmark + "\x1f" + s.System },
		func(k string) string {
			b, sys, _ := strings.Cut(k, "\x1f")
			return BenchmarkName(b) + "/" + SystemName(sys)
		})

	systems := orderSystems(uniqBy(samples, func(s record.Sample) string { return s.System }))
	benches := orderBenchmarks(uniqBy(samples, func(s record.Sample) string { return s.Benchmark }))
	cells := map[string]map[string]*accAgg{}
	counts := map[string]map[string]int{}
	errs := map[string]int{}
	for _, s := range samples {
		if cells[s.Benchmark] == nil {
			cells[s.Benchmark] = map[string]*accAgg{}
			counts[s.Benchmark] = map[string]int{}
		}
		a := cells[s.Benchmark][s.System]
		if a == nil {
			a = &accAgg{}
			cells[s.Benchmark][s.System] = a
		}
		a.add(s)
		counts[s.Benchmark][s.System]++
		if s.Error != "" {
			errs[BenchmarkName(s.Benchmark)+"/"+SystemName(s.System)]++
		}
	}

	var baselineCols []int
	for i, sys := range systems {
		if systemKey(sys) != "arbormem" {
			baselineCols = append(baselineCols, i)
		}
	}
	t := table.Table{
		Title:   "Answer accuracy (%) on conversational memory benchmarks",
		Stub:    "Benchmark",
		Groups:  systemGroups(systems),
		Columns: systemColumns(systems, 2),
		// The paper's Table 1: "The best result is shown in bold, and the
		// strongest baseline is underlined."
		Highlight: table.Highlight{By: table.ByRow, Second: true, SecondAmong: baselineCols},
	}
	grid := newGrid(len(benches), len(systems))
	for r, b := range benches {
		row := table.Row{Label: BenchmarkName(b)}
		if benchKey(b) == "locomo" && scoredByTokenF1(samples) {
			row.Label += " (token F1)"
		}
		for c, sys := range systems {
			var v *float64
			if a := cells[b][sys]; a != nil {
				v = a.pct()
				grid[r][c] = a.obs
			}
			row.Cells = append(row.Cells, valueCell(v))
		}
		t.Rows = append(t.Rows, row)
	}
	if o, ok := firstStats(st); ok {
		addStats(&t, grid, 100, o)
	}
	// The caption speaks of the benchmarks in the table only.
	caption := "Answer accuracy (%) per benchmark."
	if slices.ContainsFunc(benches, func(b string) bool { return benchKey(b) == "locomo" }) {
		caption = strings.TrimSuffix(caption, ".") + ". LoCoMo results cover Categories 1–4"
		if scoredByTokenF1(samples) {
			caption += " and are token F1 (%), LoCoMo's official metric"
		}
		caption += "."
	}
	caption += beamScoringNote(samples) + " The best result is shown in bold, and the strongest baseline is underlined."
	t.Caption = withHeuristic(caption, heuristicNote(samples, nil, false))
	if len(benches) > 0 {
		t.Notes = append(t.Notes, countNote("Questions", benches, BenchmarkName, counts))
	}
	if locomo5 > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d LoCoMo samples outside Categories 1–4 left out (paper §6.1).", locomo5))
	}
	errOrder := crossLabels(displayNames(benches, BenchmarkName), displayNames(systems, SystemName))
	for _, n := range []string{errorNote(errs, errOrder, wrongAnswers), budgetNote} {
		if n != "" {
			t.Notes = append(t.Notes, n)
		}
	}
	return t
}

// catRow is one row of a per-category table.
type catRow struct {
	label string
	keep  func(record.Sample) bool
}

// locomoCategories follows the Mem0 paper's names for LoCoMo's numeric
// categories (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
// 5 adversarial), which the ArborMem paper's "Categories 1–4" refers to.
var locomoCategories = []struct{ id, name string }{
	{"1", "Multi-hop"}, {"2", "Temporal"}, {"3", "Open-domain"}, {"4", "Single-hop"}, {"5", "Adversarial"},
}

// longMemEvalTypes is the question-type order of LongMemEval's own metrics
// script (xiaowu0162/LongMemEval, src/evaluation/print_qa_metrics.py).
var longMemEvalTypes = []string{
	"single-session-user", "single-session-preference", "single-session-assistant",
	"multi-session", "temporal-reasoning", "knowledge-update",
}

// longMemEvalLabels are the question types' row labels.
var longMemEvalLabels = map[string]string{
	"single-session-user": "Single-session user", "single-session-preference": "Single-session preference",
	"single-session-assistant": "Single-session assistant", "multi-session": "Multi-session",
	"temporal-reasoning": "Temporal reasoning", "knowledge-update": "Knowledge update",
}

// beamCategories are BEAM's ten memory abilities in the order of the
// official evaluation code (mohammadtavakoli78/BEAM, evaluation.py).
var beamCategories = []string{
	"abstention", "contradiction_resolution", "event_ordering", "information_extraction",
	"instruction_following", "knowledge_update", "multi_session_reasoning",
	"preference_following", "summarization", "temporal_reasoning",
}

// humanizeCategory turns "multi_session_reasoning" or "knowledge-update" into
// "Multi session reasoning" / "Knowledge update".
func humanizeCategory(s string) string {
	s = strings.NewReplacer("_", " ", "-", " ").Replace(strings.TrimSpace(s))
	if s == "" {
		return "(none)"
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// isAbstention reports LongMemEval abstention questions: their question_id
// contains "_abs" (LongMemEval print_qa_metrics.py); a runner may also label
// them explicitly.
func isAbstention(s record.Sample) bool {
	return strings.Contains(s.Question, "_abs") || s.Labels["abstention"] == "true"
}

// CategoryTable breaks answer accuracy (%) down by question category for
// one benchmark, systems as columns (the paper's order and groups):
// LoCoMo by category (1–4, and 5 when present) with the Categories 1–4
// overall; LongMemEval by question type with overall, task-averaged (mean of
// the type means) and abstention accuracy, as LongMemEval's metrics script
// reports them; BEAM by its ten abilities; any other benchmark by its
// categories in name order. Reference configuration only, at each system's
// largest budget. With StatsOptions every category and overall cell carries
// its interval and its comparison with the row's best (the task-averaged
// row, a mean of means, carries none).
func CategoryTable(benchmark string, samples []record.Sample, st ...StatsOptions) table.Table {
	bk := benchKey(benchmark)
	samples = keepSamples(dedupeSamples(samples), func(s record.Sample) bool {
		if bk != "" {
			return s.Variant == "" && benchKey(s.Benchmark) == bk
		}
		return s.Variant == "" && s.Benchmark == benchmark
	})
	samples, budgetNote := largestBudget(samples, func(s record.Sample) string { return s.System }, SystemName)
	systems := orderSystems(uniqBy(samples, func(s record.Sample) string { return s.System }))
	present := map[string]bool{}
	for _, s := range samples {
		present[strings.TrimSpace(s.Category)] = true
	}
	byCat := func(c string) func(record.Sample) bool {
		return func(s record.Sample) bool { return strings.TrimSpace(s.Category) == c }
	}
	all := func(record.Sample) bool { return true }

	var cats []catRow
	known := map[string]bool{}
	addKnown := func(id, label string) {
		known[id] = true
		if present[id] {
			cats = append(cats, catRow{label, byCat(id)})
		}
	}
	addOthers := func() {
		for _, c := range sortedKeysOf(present) {
			if !known[c] {
				cats = append(cats, catRow{humanizeCategory(c), byCat(c)})
			}
		}
	}
	var extra []catRow // summary rows after the categories
	taskAveraged := false
	switch bk {
	case "locomo":
		for _, c := range locomoCategories {
			addKnown(c.id, fmt.Sprintf("%s (%s)", c.name, c.id))
		}
		addOthers()
		extra = append(extra, catRow{"Overall (Categories 1–4)", isLoCoMoCore})
		if len(cats) > 0 && len(present) > countPresent(present, "1", "2", "3", "4") {
			extra = append(extra, catRow{"Overall (all categories)", all})
		}
	case "longmemeval":
		for _, c := range longMemEvalTypes {
			addKnown(c, longMemEvalLabels[c])
		}
		addOthers()
		extra = append(extra, catRow{"Overall", all})
		taskAveraged = true
		extra = append(extra, catRow{"Abstention", isAbstention})
	case "beam":
		for _, c := range beamCategories {
			addKnown(c, humanizeCategory(c))
		}
		addOthers()
		extra = append(extra, catRow{"Overall", all})
	default:
		addOthers()
		extra = append(extra, catRow{"Overall", all})
	}

	name := BenchmarkName(benchmark)
	metric := "Answer accuracy (%)"
	if bk == "locomo" && scoredByTokenF1(samples) {
		metric = "Token F1 (%)"
	}
	t := table.Table{
		Title:     metric + " by category on " + name,
		Stub:      "Category",
		Groups:    systemGroups(systems),
		Columns:   systemColumns(systems, 2),
		Highlight: table.Highlight{By: table.ByRow, Second: true},
	}
	counts := map[string]map[string]int{}
	var rowNames []string
	var grid statGrid
	addRow := func(c catRow, indent int) {
		row := table.Row{Label: c.label, Indent: indent}
		counts[c.label] = map[string]int{}
		var cells [][]obs
		for _, sys := range systems {
			a := accAgg{}
			for _, s := range samples {
				if s.System == sys && c.keep(s) {
					a.add(s)
				}
			}
			counts[c.label][sys] = a.n
			row.Cells = append(row.Cells, valueCell(a.pct()))
			cells = append(cells, a.obs)
		}
		t.Rows = append(t.Rows, row)
		grid = append(grid, cells)
		rowNames = append(rowNames, c.label)
	}
	for _, c := range cats {
		addRow(c, 0)
	}
	if len(samples) > 0 {
		for i, c := range extra {
			addRow(c, 0)
			if taskAveraged && i == 0 {
				t.Rows = append(t.Rows, taskAveragedRow(samples, systems, cats))
				grid = append(grid, nil)
			}
		}
	}
	if o, ok := firstStats(st); ok {
		addStats(&t, grid, 100, o)
	}
	errs := map[string]int{}
	for _, s := range samples {
		if s.Error != "" {
			errs[SystemName(s.System)]++
		}
	}
	caption := metric + " on " + name + " by question category." + beamScoringNote(samples) + " The best result per row is shown in bold, and the second best is underlined."
	if taskAveraged {
		caption += " Task-averaged accuracy is the mean of the question-type accuracies; abstention accuracy covers the _abs questions."
	}
	t.Caption = withHeuristic(caption, heuristicNote(samples, nil, false))
	if len(cats) > 0 {
		t.Notes = append(t.Notes, countNote("Questions per row", rowNames, func(s string) string { return s }, counts))
	}
	for _, n := range []string{errorNote(errs, displayNames(systems, SystemName), wrongAnswers), budgetNote} {
		if n != "" {
			t.Notes = append(t.Notes, n)
		}
	}
	return t
}

// taskAveragedRow is LongMemEval's task-averaged accuracy: the mean over
// question types of each type's accuracy (print_qa_metrics.py), over the
// types a system answered.
func taskAveragedRow(samples []record.Sample, systems []string, cats []catRow) table.Row {
	row := table.Row{Label: "Task-averaged"}
	for _, sys := range systems {
		m := aggMean{}
		for _, c := range cats {
			a := accAgg{}
			for _, s := range samples {
				if s.System == sys && c.keep(s) {
					a.add(s)
				}
			}
			if v := a.pct(); v != nil {
				m.add(*v)
			}
		}
		row.Cells = append(row.Cells, valueCell(m.value(1)))
	}
	return row
}

func countPresent(m map[string]bool, keys ...string) int {
	n := 0
	for _, k := range keys {
		if m[k] {
			n++
		}
	}
	return n
}
