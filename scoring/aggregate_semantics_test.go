package scoring

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

// mk builds n samples of one configuration with the first `right` correct.
func mk(bench, system, category string, budget, n, right int) []record.Sample {
	var out []record.Sample
	for i := range n {
		sc := 0.0
		if i < right {
			sc = 1
		}
		out = append(out, record.Sample{
			Benchmark: bench, Episode: fmt.Sprintf("%s-e%d", category, i), Question: fmt.Sprintf("%s-%s-q%d", bench, category, i),
			System: system, Budget: budget, Category: category, Primary: "p",
			Scores: map[string]record.ScoreRecord{"p": {Score: sc}}, EvidenceRecall: -1,
		})
	}
	return out
}

func cat(xs ...[]record.Sample) []record.Sample {
	var out []record.Sample
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// grid reads a table back as label → column name → displayed text.
func grid(tb table.Table) map[string]map[string]string {
	out := map[string]map[string]string{}
	for r, row := range tb.Rows {
		out[row.Label] = map[string]string{}
		for c, col := range tb.Columns {
			cl := tb.Rows[r].Cells[c]
			s := table.Missing
			switch {
			case cl.Text != "":
				s = cl.Text
			case cl.Value != nil:
				s = table.Format(*cl.Value, col.Decimals)
			}
			if cl.Note != "" {
				s += " " + cl.Note
			}
			out[row.Label][col.Name] = s
		}
	}
	return out
}

func colNames(tb table.Table) string {
	var n []string
	for _, c := range tb.Columns {
		n = append(n, c.Name)
	}
	return strings.Join(n, ",")
}

func TestMainTableSemantics(t *testing.T) {
	samples := cat(
		mk("longmemeval", "arbormem", "multi-session", 30968, 4, 3), // 75.00
		mk("longmemeval", "Mem0", "multi-session", 30968, 4, 2),     // 50.00
		mk("longmemeval", "mem0", "multi-session", 1024, 4, 4),      // smaller budget: left out
		mk("longmemeval", "a-mem", "multi-session", 30968, 3, 1),    // 33.33
		mk("longmemeval", "zz-new", "multi-session", 30968, 2, 2),   // unknown system, 100.00
		mk("longmemeval", "full", "multi-session", 30968, 4, 0),
		mk("locomo", "arbormem", "1", 30968, 2, 1),
		mk("locomo", "arbormem", "5", 30968, 2, 2), // category 5: left out
		mk("BEAM", "bm25", "summarization", 30968, 1, 1),
	)
	// One error on arbormem LoCoMo: scored 1 but failed, so it counts 0.
	for i := range samples {
		if samples[i].Benchmark == "locomo" && samples[i].Category == "1" && samples[i].Scores["p"].Score == 1 {
			samples[i].Error = "boom"
		}
	}
	// A variant and a duplicate (the later record wins) must not change
	// the reference numbers.
	v := mk("longmemeval", "arbormem", "multi-session", 30968, 4, 0)
	for i := range v {
		v[i].Variant = "no-localization"
	}
	dup := samples[0]
	dup.Scores = map[string]record.ScoreRecord{"p": {Score: 0}}
	samples = append(append(samples, v...), dup)
	samples[len(samples)-1].Heuristic = []string{"answerer"}

	tb := MainTable(samples)
	if got := colNames(tb); got != "Full,BM25,A-MEM,Mem0,ArborMem,zz-new" {
		t.Errorf("columns = %s", got)
	}
	if len(tb.Groups) != 2 || tb.Groups[0].Span != 2 || tb.Groups[1].Span != 4 {
		t.Errorf("groups = %+v", tb.Groups)
	}
	g := grid(tb)
	want := map[string]map[string]string{
		"LongMemEval": {"Full": "0.00", "A-MEM": "33.33", "Mem0": "50.00", "ArborMem": "50.00", "zz-new": "100.00", "BM25": "–"},
		"LoCoMo":      {"ArborMem": "0.00", "Mem0": "–"},
		"BEAM 100K":   {"BM25": "100.00"},
	}
	for row, cols := range want {
		for col, w := range cols {
			if g[row][col] != w {
				t.Errorf("%s/%s = %q, want %q", row, col, g[row][col], w)
			}
		}
	}
	if got := tb.Rows[0].Label + "," + tb.Rows[1].Label + "," + tb.Rows[2].Label; got != "LongMemEval,LoCoMo,BEAM 100K" {
		t.Errorf("rows = %s", got)
	}
	// The strongest baseline (zz-new, 100) is also the best: bold only, and
	// nothing else in the row is underlined (paper Table 1 underlines the
	// strongest baseline, not the second best).
	st := tb.Styles()
	if st[0][5] != table.Best || st[0][3] != table.Plain || st[0][4] != table.Plain || st[0][2] != table.Plain {
		t.Errorf("LongMemEval styles = %v", st[0])
	}
	notes := strings.Join(tb.Notes, "\n")
	for _, w := range []string{"1 failed sample counted as wrong answers (LoCoMo/ArborMem 1)", "2 LoCoMo samples outside Categories 1–4", "LongMemEval/Mem0 (budget 32K reported; 1K left out)", "Incomplete: A-MEM has 3 of 4 on LongMemEval"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if !strings.Contains(tb.Caption, "Heuristic: answers (extractive answerer)") {
		t.Errorf("caption lacks the heuristic note: %s", tb.Caption)
	}
	if clean := MainTable(mk("locomo", "full", "1", 1, 1, 1)); strings.Contains(clean.Caption, "Heuristic") {
		t.Errorf("caption claims heuristics without any: %s", clean.Caption)
	}
}

// TestMainTableStrongestBaselineAndLabels: the strongest baseline is
// underlined even when a memory system sits between it and the best; LoCoMo
// says token F1 when that is its metric; the BEAM scoring mode is named.
func TestMainTableStrongestBaselineAndLabels(t *testing.T) {
	samples := cat(
		mk("locomo", "arbormem", "1", 30968, 4, 4), // 100
		mk("locomo", "mem0", "1", 30968, 4, 3),     // 75: a memory system, but a baseline too
		mk("locomo", "full", "1", 30968, 4, 2),     // 50
		mk("beam", "full", "summarization", 30968, 1, 1),
	)
	for i := range samples {
		switch samples[i].Benchmark {
		case "locomo":
			samples[i].Primary = "locomo-f1"
		case "beam":
			samples[i].Primary = "beam-rubric-official:lexical"
		}
		samples[i].Scores = map[string]record.ScoreRecord{samples[i].Primary: samples[i].Scores["p"]}
	}
	tb := MainTable(samples)
	if tb.Rows[0].Label != "LoCoMo (token F1)" {
		t.Errorf("LoCoMo row label = %q", tb.Rows[0].Label)
	}
	st := tb.Styles()[0] // columns Full, Mem0, ArborMem
	if st[0] != table.Plain || st[1] != table.Second || st[2] != table.Best {
		t.Errorf("LoCoMo styles = %v, want Mem0 (the strongest baseline) underlined and ArborMem bold", st)
	}
	for _, w := range []string{"token F1", "the official BEAM evaluation code's protocol", "strongest baseline is underlined"} {
		if !strings.Contains(tb.Caption, w) {
			t.Errorf("caption lacks %q: %s", w, tb.Caption)
		}
	}
	if c := CategoryTable("locomo", samples); !strings.HasPrefix(c.Title, "Token F1 (%)") || !strings.Contains(c.Caption, "Token F1") {
		t.Errorf("LoCoMo category table: title %q caption %q", c.Title, c.Caption)
	}
}

func TestCategoryTableLongMemEval(t *testing.T) {
	samples := cat(
		mk("longmemeval", "arbormem", "single-session-user", 30968, 4, 4),     // 100
		mk("longmemeval", "arbormem", "temporal-reasoning", 30968, 2, 1),      // 50
		mk("longmemeval", "arbormem", "multi-session", 30968, 4, 0),           // 0
		mk("longmemeval", "mem0", "single-session-user", 30968, 4, 1),         // 25
		mk("locomo", "arbormem", "1", 30968, 4, 4),                            // other benchmark
		mk("longmemeval", "arbormem", "single-session-preference", 512, 2, 2), // other budget
	)
	samples[0].Question = "q_abs"  // abstention, correct
	samples[10].Question = "m_abs" // mem0 abstention, correct (first mem0 sample)
	tb := CategoryTable("LongMemEval", samples)
	g := grid(tb)
	var labels []string
	for _, r := range tb.Rows {
		labels = append(labels, r.Label)
	}
	if got := strings.Join(labels, "|"); got != "Single-session user|Multi-session|Temporal reasoning|Overall|Task-averaged|Abstention" {
		t.Errorf("rows = %s", got)
	}
	checks := map[[2]string]string{
		{"Overall", "ArborMem"}:            "50.00", // 5 of 10
		{"Task-averaged", "ArborMem"}:      "50.00", // (100+0+50)/3
		{"Task-averaged", "Mem0"}:          "25.00",
		{"Abstention", "ArborMem"}:         "100.00",
		{"Multi-session", "Mem0"}:          "–",
		{"Temporal reasoning", "ArborMem"}: "50.00",
	}
	for k, w := range checks {
		if g[k[0]][k[1]] != w {
			t.Errorf("%s/%s = %q, want %q", k[0], k[1], g[k[0]][k[1]], w)
		}
	}
	if !strings.Contains(strings.Join(tb.Notes, " "), "ArborMem (budget 32K reported; 512 left out)") {
		t.Errorf("notes: %q", tb.Notes)
	}
}

func TestCategoryTableLoCoMoAndBEAM(t *testing.T) {
	lo := CategoryTable("locomo", cat(mk("locomo", "arbormem", "4", 1, 2, 2), mk("locomo", "arbormem", "5", 1, 2, 0), mk("locomo", "arbormem", "2", 1, 2, 1)))
	g := grid(lo)
	if g["Overall (Categories 1–4)"]["ArborMem"] != "75.00" || g["Overall (all categories)"]["ArborMem"] != "50.00" || g["Adversarial (5)"]["ArborMem"] != "0.00" {
		t.Errorf("locomo grid = %v", g)
	}
	if lo.Rows[0].Label != "Temporal (2)" || lo.Rows[1].Label != "Single-hop (4)" {
		t.Errorf("locomo row order: %s, %s", lo.Rows[0].Label, lo.Rows[1].Label)
	}
	be := CategoryTable("beam", cat(mk("beam", "full", "temporal_reasoning", 1, 1, 1), mk("beam", "full", "abstention", 1, 1, 0), mk("beam", "full", "zz_new", 1, 1, 1)))
	var labels []string
	for _, r := range be.Rows {
		labels = append(labels, r.Label)
	}
	if got := strings.Join(labels, "|"); got != "Abstention|Temporal reasoning|Zz new|Overall" {
		t.Errorf("beam rows = %s", got)
	}
}

func TestBudgetLabel(t *testing.T) {
	for b, want := range map[int]string{256: "256", 512: "512", 1024: "1K", 2048: "2K", 16384: "16K", 32768: "32768", 30968: "32K", 3000: "3000", 0: "0"} {
		if got := BudgetLabel(b); got != want {
			t.Errorf("BudgetLabel(%d) = %q, want %q", b, got, want)
		}
	}
}

func TestBudgetTableAndPlot(t *testing.T) {
	samples := cat(
		mk("longmemeval", "arbormem", "x", 256, 4, 3),
		mk("longmemeval", "arbormem", "x", 30968, 4, 4),
		mk("longmemeval", "mem0", "x", 256, 4, 1),
		mk("longmemeval", "summary", "x", 30968, 4, 4),
	)
	for i := range samples {
		samples[i].EvidenceRecall = float64(i%2) * 0.5 // 0 or 0.5: mean 25%
	}
	samples[0].EvidenceRecall = -1 // undefined: skipped, so arbormem@256 is (0.5+0+0.5)/3
	tb := BudgetTable(samples, MetricAccuracy)
	g := grid(tb)
	if g["256"]["ArborMem"] != "75.0" || g["256"]["Mem0"] != "25.0" || g["32K"]["Summary"] != "100.0" || g["32K"]["Mem0"] != "–" {
		t.Errorf("accuracy grid = %v", g)
	}
	st := tb.Styles()
	if st[1][0] != table.Best || st[1][2] != table.Best {
		t.Errorf("32K row: tie for best must bold both: %v", st[1])
	}
	rec := grid(BudgetTable(samples, MetricEvidenceRecall))
	if rec["256"]["ArborMem"] != "33.3" || rec["256"]["Mem0"] != "25.0" {
		t.Errorf("recall grid = %v", rec)
	}
	if odd := BudgetTable(samples, "f1"); !strings.Contains(strings.Join(odd.Notes, " "), `Unknown metric "f1"`) {
		t.Errorf("unknown metric not noted: %q", odd.Notes)
	}
	p := BudgetPlot(samples, MetricAccuracy)
	if !p.LogX || len(p.XTicks) != 2 || p.XTicks[1].Label != "32K" {
		t.Errorf("plot ticks = %+v", p.XTicks)
	}
	if len(p.Series) != 3 || p.Series[0].Name != "Summary" || len(p.Series[0].X) != 1 || p.Series[2].Y[0] != 75 {
		t.Errorf("plot series = %+v", p.Series)
	}
}

func TestAblationTable(t *testing.T) {
	var samples []record.Sample
	add := func(variant, model string, n, right int) {
		for _, s := range mk("longmemeval", "arbormem", "x", 30968, n, right) {
			s.Variant = variant
			s.Labels = map[string]string{"model": model}
			samples = append(samples, s)
		}
	}
	// Paper Table "ablation", 30B column: 82.0 and 70.0 (−14.6%) on 50.
	add("", "30B", 50, 41)
	add("no-localization", "30B", 50, 35)
	add("no-atomic-facts", "30B", 50, 31)
	add("", "4B", 50, 24)
	add("no-localization", "4B", 50, 23)
	add("zz-extra", "4B", 50, 25)
	// Another system's samples are ignored when ArborMem's are present.
	samples = append(samples, mk("longmemeval", "mem0", "x", 30968, 5, 0)...)

	tb := AblationTable(samples, []string{"30B", "4B", "missing"})
	if got := colNames(tb); got != "30B,4B,missing" {
		t.Errorf("columns = %s", got)
	}
	g := grid(tb)
	checks := map[[2]string]string{
		{"Reference configuration", "30B"}:     "82.0",
		{"w/o state localization", "30B"}:      "70.0 (−14.6%)",
		{"w/o atomic-fact retrieval", "30B"}:   "62.0 (−24.4%)",
		{"w/o state localization", "4B"}:       "46.0 (−4.2%)",
		{"zz-extra", "4B"}:                     "50.0 (+4.2%)",
		{"w/o atomic-fact retrieval", "4B"}:    "–",
		{"Reference configuration", "missing"}: "–",
	}
	for k, w := range checks {
		if g[k[0]][k[1]] != w {
			t.Errorf("%s/%s = %q, want %q", k[0], k[1], g[k[0]][k[1]], w)
		}
	}
	if tb.Rows[0].Cells[0].Style != table.Best || tb.Rows[1].Indent != 1 || tb.Rows[len(tb.Rows)-1].Label != "zz-extra" {
		t.Errorf("rows = %+v", tb.Rows)
	}
	if auto := AblationTable(samples, nil); colNames(auto) != "30B,4B" {
		t.Errorf("derived columns = %s", colNames(auto))
	}
}

func TestLatencyAndCost(t *testing.T) {
	// Two ArborMem questions in one episode of 100 turns with an episode
	// record (ingest 150 s), and Mem0 without one (samples only).
	var samples []record.Sample
	for i, sys := range []string{"arbormem", "arbormem", "mem0", "mem0"} {
		s := record.Sample{Benchmark: "longmemeval", Episode: "e1", Question: fmt.Sprintf("q%d", i), System: sys, Budget: 2048, Primary: "p",
			Scores:         map[string]record.ScoreRecord{"p": {Score: 1}},
			EvidenceTokens: 1000 * (i + 1),
			Latency:        record.Latency{IngestPerInteraction: 2, Ingested: 100 - i%2*50, QueryPrep: 0.5, TTFT: 0.25, Answer: 1.5, FullQuery: 2},
			Calls: map[string]record.Calls{"chat": {Count: 2, PromptTokens: 1000, CompletionTokens: 10,
				IngestCount: 100 - i%2*50, IngestPromptTokens: 5000, IngestCompletionTokens: 500}},
		}
		samples = append(samples, s)
	}
	samples[3].Error = "x"
	samples[3].Latency.QueryPrep = 100 // excluded from the mean, but counted in totals
	eps := []record.EpisodeStat{{Benchmark: "longmemeval", Episode: "e1", System: "arbormem", Committed: 100, IngestSeconds: 150,
		Calls: map[string]record.Calls{"chat": {Count: 300, PromptTokens: 30000, CompletionTokens: 3000}, "embed": {Count: 100, PromptTokens: 2000}}},
		{Benchmark: "longmemeval", Episode: "other", System: "arbormem", Committed: 999, IngestSeconds: 999}} // no samples: ignored

	lt := LatencyTable(samples, eps)
	g := grid(lt)
	// ArborMem: 150 s / 100 turns; total = 150 + 2×2 = 154 s = 2.567 min;
	// throughput = 2 / (154/3600) = 46.75 q/h.
	// Mem0: ingest from the sample with most turns: 2 s × 100; total =
	// 200 + 4 = 204 s = 3.4 min; 2 q → 35.29 q/h.
	checks := map[[2]string]string{
		{"ArborMem", "Ingest/Turn"}:     "1.500",
		{"ArborMem", "Total Time"}:      "2.6",
		{"ArborMem", "Case Throughput"}: "46.75",
		{"Mem0", "Ingest/Turn"}:         "2.000",
		{"Mem0", "Query Prep."}:         "0.500",
		{"Mem0", "Total Time"}:          "3.4",
		{"Mem0", "Case Throughput"}:     "35.29",
	}
	for k, w := range checks {
		if g[k[0]][k[1]] != w {
			t.Errorf("latency %s/%s = %q, want %q", k[0], k[1], g[k[0]][k[1]], w)
		}
	}
	// Rows follow the paper's system order: Mem0, then ArborMem.
	if st := lt.Styles(); st[1][0] != table.Best || st[1][5] != table.Best || st[0][0] != table.Plain || st[0][1] != table.Best {
		t.Errorf("latency styles = %v", st)
	}

	ct := CostTable(samples, eps)
	var labels []string
	for _, r := range ct.Rows {
		labels = append(labels, r.Label)
	}
	if got := strings.Join(labels, "|"); got != "Mem0|chat|ArborMem|chat|embed" {
		t.Errorf("cost rows = %s", got)
	}
	row := func(i int) []string {
		var out []string
		for c := range ct.Columns {
			out = append(out, table.Format(valueOr(ct.Rows[i].Cells[c].Value), ct.Columns[c].Decimals))
		}
		return out
	}
	// ArborMem total: 400 ingest calls / 100 turns, 32000/100 prompt,
	// 3000/100 completion; per question 2 calls, 1000, 10; evidence 1500;
	// no cache hits.
	if got := strings.Join(row(2), " "); got != "4.00 320.0 30.0 2.00 1000.0 10.0 1500.0 0.0" {
		t.Errorf("ArborMem cost row = %s", got)
	}
	// Mem0 chat: ingest peak 100 calls, 5000, 500 over 100 turns.
	if got := strings.Join(row(1), " "); got != "1.00 50.0 5.0 2.00 1000.0 10.0 – 0.0" {
		t.Errorf("Mem0 chat cost row = %s", got)
	}
}

func valueOr(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

func TestBMETable(t *testing.T) {
	tr, fa := true, false
	var samples []record.Sample
	outcomes := []string{"correct", "correct", "confusion", "miss", "ambiguous"}
	for i, o := range outcomes {
		s := record.Sample{Benchmark: "branchmemeval", Episode: "s1", Question: fmt.Sprintf("q%d", i), System: "arbormem", Budget: 1,
			Category: fmt.Sprintf("B%d", i+1), Primary: "bme-rules", EvidenceRecall: float64(i % 2), ConfounderInBundle: &tr,
			Scores: map[string]record.ScoreRecord{"bme-rules": {Score: map[bool]float64{true: 1}[o == "correct"], Outcome: o}}}
		if i%2 == 0 {
			s.QuestionParentInBranch = &tr
		} else {
			s.QuestionParentInBranch = &fa
		}
		samples = append(samples, s)
		f := s
		f.System, f.QuestionParentInBranch, f.ConfounderInBundle = "full", nil, &fa
		if i == 4 {
			f.Error, f.Scores = "boom", nil
		}
		samples = append(samples, f)
	}
	eps := []record.EpisodeStat{
		{Benchmark: "branchmemeval", Episode: "s1", System: "arbormem", Committed: 20, Localizes: true, PlacedInBranch: 15, OpenedCorrectly: 18},
		{Benchmark: "branchmemeval", Episode: "s1", System: "full", Committed: 20},
	}
	tb := BMETable(samples, eps)
	g := grid(tb)
	checks := map[[2]string]string{
		{"Full", "Overall"}:                  "40.0",
		{"ArborMem", "B1"}:                   "100.0",
		{"ArborMem", "B3"}:                   "0.0",
		{"ArborMem", "Correct"}:              "2",
		{"ArborMem", "Confusion"}:            "1",
		{"Full", "Ambiguous"}:                "0",
		{"Full", "Error"}:                    "1",
		{"ArborMem", "Gold in bundle"}:       "40.0",
		{"ArborMem", "Confounder in bundle"}: "100.0",
		{"Full", "Confounder in bundle"}:     "0.0",
		{"ArborMem", "Question parent"}:      "60.0",
		{"ArborMem", "Commit placement"}:     "75.0",
		{"ArborMem", "Root decision"}:        "90.0",
		{"Full", "Commit placement"}:         "–",
	}
	for k, w := range checks {
		if g[k[0]][k[1]] != w {
			t.Errorf("%s/%s = %q, want %q", k[0], k[1], g[k[0]][k[1]], w)
		}
	}
	if tb.Rows[0].Label != "Full" || tb.Rows[1].Label != "ArborMem" {
		t.Errorf("row order %s, %s", tb.Rows[0].Label, tb.Rows[1].Label)
	}
}

func TestJudgeAgreementTable(t *testing.T) {
	// judge and lexical agree on 3 of 4: judge yes,yes,no,no; lexical
	// yes,no,no,no → po 0.75, pe 0.5·0.25+0.5·0.75 = 0.5, κ = 0.5.
	var samples []record.Sample
	j := []float64{1, 1, 0, 0}
	l := []float64{1, 0, 0, 0}
	for i := range 4 {
		samples = append(samples, record.Sample{Benchmark: "longmemeval", Episode: "e", Question: fmt.Sprint(i), System: "arbormem", Primary: "judge",
			Scores: map[string]record.ScoreRecord{"judge": {Score: j[i]}, "lexical": {Score: l[i], Heuristic: true}}})
	}
	// Constant and equal verdicts: kappa is undefined, shown as 1.
	for i := range 3 {
		samples = append(samples, record.Sample{Benchmark: "beam", Episode: "e", Question: fmt.Sprint(i), System: "arbormem", Primary: "a",
			Scores: map[string]record.ScoreRecord{"a": {Score: 1}, "b": {Score: 1}}})
	}
	// A failed sample and a single-scorer sample are left out.
	samples = append(samples, record.Sample{Benchmark: "longmemeval", Question: "x", Error: "boom",
		Scores: map[string]record.ScoreRecord{"judge": {Score: 1}, "lexical": {Score: 0}}},
		record.Sample{Benchmark: "longmemeval", Question: "y", Scores: map[string]record.ScoreRecord{"judge": {Score: 1}}})
	tb := JudgeAgreementTable(samples)
	g := grid(tb)
	lme := g["LongMemEval: judge vs lexical"]
	if lme["Questions"] != "4" || lme["Accuracy A"] != "50.00" || lme["Accuracy B"] != "25.00" || lme["Agreement"] != "75.00" || lme["Cohen's κ"] != "0.500" {
		t.Errorf("LongMemEval row = %v", lme)
	}
	if b := g["BEAM 100K: a vs b"]; b["Cohen's κ"] != "1.000 (constant)" || b["Agreement"] != "100.00" {
		t.Errorf("BEAM row = %v", b)
	}
	if !strings.Contains(tb.Caption, "scoring (lexical)") {
		t.Errorf("caption lacks the heuristic scorer: %s", tb.Caption)
	}
	if empty := JudgeAgreementTable(nil); len(empty.Rows) != 0 || len(empty.Notes) != 1 {
		t.Errorf("empty table = %+v", empty)
	}
}

// TestEmptyAndDegenerateInputs: no samples, or samples with missing
// fields, give valid tables without panics or non-finite numbers.
func TestEmptyAndDegenerateInputs(t *testing.T) {
	odd := []record.Sample{
		{Benchmark: "", System: "", Scores: map[string]record.ScoreRecord{"p": {Score: math.NaN()}}, Primary: "p", EvidenceRecall: math.Inf(1)},
		{Benchmark: "locomo", System: "x", Category: "", Primary: "missing"},
	}
	for _, in := range [][]record.Sample{nil, odd} {
		for name, tb := range map[string]table.Table{
			"main": MainTable(in), "bme": BMETable(in, nil), "cat": CategoryTable("locomo", in), "cat-other": CategoryTable("", in),
			"budget": BudgetTable(in, MetricEvidenceRecall), "ablation": AblationTable(in, nil), "latency": LatencyTable(in, nil),
			"cost": CostTable(in, nil), "judge": JudgeAgreementTable(in),
		} {
			t.Run(name, func(t *testing.T) { renderAll(t, tb) })
		}
		_ = BudgetPlot(in, MetricAccuracy)
	}
}
