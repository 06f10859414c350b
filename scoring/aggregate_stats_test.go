package scoring

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/stats"
	"github.com/arbor-eval/arbor/pkg/table"
)

// cellOf finds the cell of row label and column name.
func cellOf(t *testing.T, tb table.Table, row, col string) table.Cell {
	t.Helper()
	for _, r := range tb.Rows {
		if r.Label != row {
			continue
		}
		for c, cl := range tb.Columns {
			if cl.Name == col {
				return r.Cells[c]
			}
		}
	}
	t.Fatalf("no cell %s/%s in %q", row, col, tb.Title)
	return table.Cell{}
}

func TestMainTableStats(t *testing.T) {
	// mk answers the first `right` questions correctly, so the systems are
	// paired: ArborMem beats Mem0 on 20 questions and loses none; it beats
	// Full on only 2.
	samples := cat(
		mk("locomo", "arbormem", "1", 30968, 100, 70),
		mk("locomo", "mem0", "1", 30968, 100, 50),
		mk("locomo", "full", "1", 30968, 100, 68),
	)
	o := DefaultStats()
	tb := MainTable(samples, o)
	arbor := cellOf(t, tb, "LoCoMo", "ArborMem")
	vals := make([]float64, 100)
	for i := range 70 {
		vals[i] = 1
	}
	want := stats.Bootstrap(stats.Singletons(vals), o.Options)
	if arbor.CI == nil || math.Abs(arbor.CI.Lo-want.Lo*100) > 1e-9 || math.Abs(arbor.CI.Hi-want.Hi*100) > 1e-9 {
		t.Errorf("ArborMem interval %+v, want %v×100 (one question per episode: clusters of one)", arbor.CI, want)
	}
	if arbor.VsBest != nil {
		t.Error("the row's best is compared with itself")
	}
	mem0 := cellOf(t, tb, "LoCoMo", "Mem0")
	if v := mem0.VsBest; v == nil || v.Best != "ArborMem" || math.Abs(v.Diff-20) > 1e-9 || !v.Distinct || v.P > 0.001 || v.N != 100 {
		t.Errorf("Mem0 vs best: %+v", mem0.VsBest)
	}
	full := cellOf(t, tb, "LoCoMo", "Full")
	if v := full.VsBest; v == nil || math.Abs(v.Diff-2) > 1e-9 || v.Distinct || v.P < 0.1 {
		t.Errorf("Full vs best: %+v", full.VsBest)
	}
	if tb.Stats == nil || !strings.Contains(tb.Stats.Method, "of LoCoMo episodes") {
		t.Errorf("stats info %+v", tb.Stats)
	}
	tb.CIForm = table.CIPlusMinus
	md := tb.Markdown()
	if !strings.Contains(md, "68.00_ ± ") || !strings.Contains(md, "≈") || !strings.Contains(md, "not distinguishable from the best of its row") {
		t.Errorf("markdown with intervals:\n%s", md)
	}
	// Without options the table is as before: no intervals at all.
	plain := MainTable(samples)
	if js, _ := plain.JSON(); bytes.Contains(js, []byte(`"ci"`)) {
		t.Error("intervals without StatsOptions")
	}
}

// TestEpisodeClusteringWidensIntervals: questions of one LoCoMo conversation
// succeed or fail together, so resampling conversations must give a wider
// interval than resampling questions.
func TestEpisodeClusteringWidensIntervals(t *testing.T) {
	var samples []record.Sample
	for e := range 10 {
		for q := range 12 {
			sc := 0.0
			if (e < 6) != (q == 0) {
				sc = 1
			}
			samples = append(samples, record.Sample{Benchmark: "locomo", Episode: fmt.Sprintf("conv-%d", e), Question: fmt.Sprintf("q%d-%d", e, q),
				System: "arbormem", Budget: 30968, Category: "1", Primary: "p", Scores: map[string]record.ScoreRecord{"p": {Score: sc}}})
		}
	}
	byEpisode, byQuestion := DefaultStats(), DefaultStats()
	byQuestion.Cluster = map[string]string{"locomo": "question"}
	width := func(o StatsOptions) float64 {
		c := cellOf(t, MainTable(samples, o), "LoCoMo", "ArborMem")
		return c.CI.Hi - c.CI.Lo
	}
	if we, wq := width(byEpisode), width(byQuestion); !(we > 1.5*wq) {
		t.Errorf("episode-clustered width %.2f not clearly wider than per-question %.2f", we, wq)
	}
}

func TestStatsDeterministic(t *testing.T) {
	samples, eps := fixture()
	o := DefaultStats()
	o.Resamples = 500
	for i, build := range []func() table.Table{
		func() table.Table { return MainTable(samples, o) },
		func() table.Table { return BMETable(samples, eps, o) },
		func() table.Table { return CategoryTable("locomo", samples, o) },
	} {
		a, _ := build().JSON()
		b, _ := build().JSON()
		if !bytes.Equal(a, b) {
			t.Errorf("table %d differs between two builds with one seed", i)
		}
	}
	o.Seed++
	a, _ := MainTable(samples, DefaultStats()).JSON()
	b, _ := MainTable(samples, o).JSON()
	if bytes.Equal(a, b) {
		t.Error("another seed gave identical intervals")
	}
}

func TestCompareTable(t *testing.T) {
	samples := cat(
		mk("locomo", "arbormem", "1", 30968, 40, 30),
		mk("locomo", "Mem0", "1", 30968, 40, 10),
		mk("locomo", "arbormem", "2", 30968, 20, 10),
		mk("locomo", "Mem0", "2", 30968, 20, 10),
		mk("locomo", "mem0", "5", 30968, 5, 5),
		mk("locomo", "arbormem", "5", 30968, 5, 0),
	)
	tb, err := CompareTable(samples, "arbormem", "mem0", DefaultStats())
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range tb.Rows {
		labels = append(labels, r.Label)
	}
	if got := strings.Join(labels, "|"); got != "LoCoMo (Categories 1–4)|Multi-hop (1)|Temporal (2)|Adversarial (5)" {
		t.Fatalf("rows = %s", got)
	}
	g := grid(tb)
	// Categories 1–4: ArborMem 40 of 60, Mem0 20 of 60.
	if g["LoCoMo (Categories 1–4)"]["Questions"] != "60" || g["LoCoMo (Categories 1–4)"]["Difference"] != "33.3" {
		t.Errorf("overall row: %v", g["LoCoMo (Categories 1–4)"])
	}
	if !strings.HasPrefix(g["Temporal (2)"]["Difference"], "0.0") || !strings.Contains(cellOf(t, tb, "Temporal (2)", "Difference").Note, "not distinguishable") {
		t.Errorf("equal category: %v, note %q", g["Temporal (2)"], cellOf(t, tb, "Temporal (2)", "Difference").Note)
	}
	// Five losses out of five: every resample agrees, and the p-value is
	// the floor of five clusters, 2^(1−5) = 2/32 (the exact sign-flip value).
	if p := *cellOf(t, tb, "Adversarial (5)", "p").Value; math.Abs(p-2.0/32) > 1e-12 {
		t.Errorf("category 5 p = %v, want 2/32", p)
	}
	if _, err := CompareTable(samples, "arbormem", "graphiti", DefaultStats()); err == nil || !strings.Contains(err.Error(), "graphiti") {
		t.Errorf("unknown system: %v", err)
	}
	if _, err := CompareTable(samples, "mem0", "Mem0", DefaultStats()); err == nil {
		t.Error("one system under two spellings compared with itself")
	}
	renderAll(t, tb)
}

// TestGoldenTablesWithStats renders the fixture's tables with intervals
// and comparisons (Markdown with ± half-widths, and JSON).
func TestGoldenTablesWithStats(t *testing.T) {
	samples, eps := fixture()
	main := subset(samples, func(s record.Sample) bool { return s.Budget == 30968 && s.Labels["model"] == "" })
	budget := subset(samples, func(s record.Sample) bool {
		return s.Benchmark == "longmemeval" && s.Labels["model"] == "" && (s.Budget != 30968 || s.System == "arbormem" || s.System == "mem0") && !strings.HasPrefix(s.Episode, "eff-")
	})
	o := DefaultStats()
	tables := map[string]table.Table{
		"stats-main":            MainTable(main, o),
		"stats-bme":             BMETable(samples, eps, o),
		"stats-category-locomo": CategoryTable("locomo", samples, o),
		"stats-budget-recall":   BudgetTable(budget, MetricEvidenceRecall, o),
		"stats-ablation":        AblationTable(subset(samples, func(s record.Sample) bool { return s.Labels["model"] != "" }), nil, o),
	}
	for name, tb := range tables {
		t.Run(name, func(t *testing.T) {
			tb.CIForm = table.CIPlusMinus
			out := renderAll(t, tb)
			goldenFile(t, name+".md", out["md"])
			goldenFile(t, name+".json", out["json"])
		})
	}
	p := BudgetPlot(budget, MetricAccuracy, o)
	for _, s := range p.Series {
		if len(s.Lo) != len(s.Y) || len(s.Hi) != len(s.Y) {
			t.Fatalf("series %s: %d points, %d/%d bounds", s.Name, len(s.Y), len(s.Lo), len(s.Hi))
		}
		for i := range s.Y {
			if !(s.Lo[i] <= s.Y[i] && s.Y[i] <= s.Hi[i]) {
				t.Errorf("series %s point %d: %v outside [%v, %v]", s.Name, i, s.Y[i], s.Lo[i], s.Hi[i])
			}
		}
	}
}

// BenchmarkMainTableStats is BenchmarkMainTable with intervals and paired
// comparisons at the default 10,000 resamples.
func BenchmarkMainTableStats(b *testing.B) {
	var samples []record.Sample
	for _, sys := range systemOrder {
		samples = append(samples, mk("locomo", sys, "1", 30968, 1540, 700)...)
	}
	o := DefaultStats()
	b.ResetTimer()
	for b.Loop() {
		MainTable(samples, o)
	}
}
