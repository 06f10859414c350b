package scoring

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/pkg/table/tabletest"
)

// The -update flag may be declared by another test file of this package;
// declare it here only when it is not (package-level flag.Bool calls in any
// file run before init functions), and read it by name.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files under testdata/golden")
	}
}

// goldenFile compares got with testdata/golden/name, or rewrites it under
// -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	tabletest.Golden(t, filepath.Join("testdata", "golden", name), got)
}

// renderAll renders t in every format and checks that none shows a
// non-finite number.
func renderAll(t *testing.T, tb table.Table) map[string][]byte {
	t.Helper()
	if err := tb.Validate(); err != nil {
		t.Fatalf("invalid table: %v", err)
	}
	csvData, err := tb.CSV()
	if err != nil {
		t.Fatal(err)
	}
	tex, err := tb.LaTeX("tab:test")
	if err != nil {
		t.Fatal(err)
	}
	js, err := tb.JSON()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{"md": []byte(tb.Markdown()), "csv": csvData, "tex": tex, "json": js}
	for ext, b := range out {
		for _, bad := range []string{"NaN", "Inf", "-0.0"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s rendering of %q contains %q:\n%s", ext, tb.Title, bad, b)
			}
		}
	}
	return out
}

// fixture builds a varied synthetic run: four benchmarks, seven systems
// (one unknown, one spelled "a-mem"), error samples, heuristic answerers and
// judges, a second scorer on LongMemEval, several budgets, ablation variants
// under two models, latencies and call counts. The generator is seeded, so
// the fixture is the same on every run.
func fixture() ([]record.Sample, []record.EpisodeStat) {
	rng := rand.New(rand.NewPCG(7, 11))
	systems := []string{"arbormem", "mem0", "zeta-mem", "full", "a-mem", "bm25", "graphiti"}
	skill := map[string]float64{"arbormem": 0.75, "mem0": 0.6, "zeta-mem": 0.3, "full": 0.45, "a-mem": 0.5, "bm25": 0.4, "graphiti": 0.2}
	var out []record.Sample
	var eps []record.EpisodeStat
	add := func(s record.Sample, p float64) {
		sc := 0.0
		if rng.Float64() < p {
			sc = 1
		}
		if s.Scores == nil {
			s.Scores = map[string]record.ScoreRecord{}
		}
		if s.Primary == "" {
			s.Primary = "judge"
		}
		s.Scores[s.Primary] = record.ScoreRecord{Score: sc, Outcome: map[bool]string{true: "yes", false: "no"}[sc == 1], Heuristic: s.Primary == "lexical"}
		s.EvidenceRecall = math.Round(rng.Float64()*4) / 4
		s.EvidenceTokens = 500 + rng.IntN(3000)
		if rng.IntN(23) == 0 {
			s.Error = "answer: endpoint refused"
		}
		out = append(out, s)
	}
	type bench struct {
		name, primary string
		cats          []string
		episodes, per int
	}
	benches := []bench{
		{"longmemeval", "judge", []string{"single-session-user", "single-session-preference", "multi-session", "temporal-reasoning", "knowledge-update"}, 12, 1},
		{"locomo", "locomo-f1", []string{"1", "2", "3", "4", "5"}, 2, 10},
		{"beam", "beam-rubric", []string{"abstention", "event_ordering", "summarization", "temporal_reasoning", "knowledge_update"}, 2, 5},
	}
	for _, b := range benches {
		for _, sys := range systems {
			for e := range b.episodes {
				for q := range b.per {
					cat := b.cats[(e*b.per+q)%len(b.cats)]
					qid := fmt.Sprintf("%s-%d:%d", b.name, e, q)
					if b.name == "longmemeval" {
						qid = fmt.Sprintf("lme%02d", e)
						if e%4 == 3 {
							qid += "_abs"
						}
					}
					s := record.Sample{Benchmark: b.name, Episode: fmt.Sprintf("%s-%d", b.name, e), Question: qid, System: sys,
						Budget: 30968, Category: cat, Primary: b.primary}
					if sys == "arbormem" || sys == "mem0" {
						s.Heuristic = []string{"answerer", "memory-ops"}
					}
					if b.name == "longmemeval" {
						j := 0.0
						if rng.IntN(3) > 0 {
							j = 1
						}
						s.Scores = map[string]record.ScoreRecord{"lexical": {Score: j, Heuristic: true}}
					}
					add(s, skill[sys])
				}
			}
		}
	}
	// BranchMemEval with rule outcomes, confounders and localization.
	outcomes := []string{"correct", "confusion", "ambiguous", "miss"}
	for _, sys := range []string{"arbormem", "full", "mem0"} {
		for e := range 3 {
			committed, placed, opened := 0, 0, 0
			for q := range 10 {
				o := outcomes[rng.IntN(4)]
				if sys == "arbormem" && rng.IntN(2) == 0 {
					o = "correct"
				}
				s := record.Sample{Benchmark: "branchmemeval", Episode: fmt.Sprintf("bme-%d", e), Question: fmt.Sprintf("bme-%d-q%d", e, q),
					System: sys, Budget: 30968, Category: fmt.Sprintf("B%d", 1+(e*10+q)%5), Primary: "bme-rules", Confounder: "x",
					Scores:         map[string]record.ScoreRecord{"bme-rules": {Score: map[bool]float64{true: 1}[o == "correct"], Outcome: o}},
					EvidenceRecall: float64(rng.IntN(2)), EvidenceTokens: 800}
				c := rng.IntN(2) == 0
				s.ConfounderInBundle = &c
				if sys == "arbormem" {
					p := rng.IntN(4) > 0
					s.QuestionParentInBranch = &p
				}
				if sys == "mem0" && q == 9 {
					s.Error = "recall: timeout"
					s.Scores = nil
				}
				out = append(out, s)
				committed += 4
				placed += 3
				opened += 3 + rng.IntN(2)
			}
			st := record.EpisodeStat{Benchmark: "branchmemeval", Episode: fmt.Sprintf("bme-%d", e), System: sys, Committed: committed}
			if sys == "arbormem" {
				st.Localizes, st.PlacedInBranch, st.OpenedCorrectly = true, placed, opened
				st.Heuristic = []string{"memory-ops"}
			}
			eps = append(eps, st)
		}
	}
	// Read-budget sweep on LongMemEval (one sample is recorded twice: the
	// later record wins).
	for _, sys := range []string{"arbormem", "mem0", "full", "summary"} {
		for i, b := range []int{256, 512, 1024, 2048, 4096, 8192, 16384} {
			for q := range 6 {
				add(record.Sample{Benchmark: "longmemeval", Episode: fmt.Sprintf("lme%02d", q), Question: fmt.Sprintf("lme%02d", q), System: sys,
					Budget: b, Category: "multi-session"}, skill[sys]*float64(i+3)/10)
			}
		}
	}
	out = append(out, out[len(out)-1])
	out[len(out)-1].Prediction = "retried"
	// Ablations under two models.
	for _, m := range []string{"Qwen3-30B-A3B-Instruct-2507", "Qwen3-4B-Instruct-2507"} {
		for i, v := range variantOrder {
			for q := range 8 {
				add(record.Sample{Benchmark: "longmemeval", Episode: fmt.Sprintf("lme%02d", q), Question: fmt.Sprintf("lme%02d", q), System: "arbormem",
					Variant: v, Budget: 30968, Category: "temporal-reasoning", Labels: map[string]string{"model": m}}, 0.8-float64(i)*0.08)
			}
		}
	}
	// Efficiency: latencies and calls on arbormem, mem0, a-mem.
	for _, sys := range []string{"arbormem", "mem0", "a-mem"} {
		for e := range 3 {
			ep := fmt.Sprintf("eff-%d", e)
			turns := 200 + 10*e
			for q := range 2 {
				s := record.Sample{Benchmark: "longmemeval", Episode: ep, Question: fmt.Sprintf("%s:%d", ep, q), System: sys, Budget: 2048, Category: "multi-session",
					Latency: record.Latency{IngestPerInteraction: 1 + rng.Float64()*2, Ingested: turns, QueryPrep: rng.Float64() / 4, TTFT: rng.Float64() / 2},
					Calls: map[string]record.Calls{
						"chat":  {Count: 1, PromptTokens: 1500 + rng.IntN(500), CompletionTokens: 20, IngestCount: turns * 2, IngestPromptTokens: turns * 900, IngestCompletionTokens: turns * 80},
						"embed": {Count: 1, PromptTokens: 12, IngestCount: turns, IngestPromptTokens: turns * 60},
					}}
				s.Latency.Answer = s.Latency.TTFT + 0.1
				s.Latency.FullQuery = s.Latency.QueryPrep + s.Latency.Answer
				if sys == "mem0" {
					s.Calls["rerank"] = record.Calls{Count: 1, PromptTokens: 300}
				}
				add(s, skill[sys])
			}
			if sys == "arbormem" {
				eps = append(eps, record.EpisodeStat{Benchmark: "longmemeval", Episode: ep, System: sys, Committed: turns, IngestSeconds: float64(turns) * 1.363,
					Calls: map[string]record.Calls{"chat": {Count: turns * 3, PromptTokens: turns * 1000, CompletionTokens: turns * 100}}})
			}
		}
	}
	return out, eps
}

// subset keeps the fixture's samples of one benchmark and budget or the
// efficiency episodes, as a report would select them.
func subset(samples []record.Sample, keep func(record.Sample) bool) []record.Sample {
	return keepSamples(samples, keep)
}

func TestGoldenTables(t *testing.T) {
	samples, eps := fixture()
	main := subset(samples, func(s record.Sample) bool { return s.Budget == 30968 && s.Labels["model"] == "" })
	eff := subset(samples, func(s record.Sample) bool { return strings.HasPrefix(s.Episode, "eff-") })
	budget := subset(samples, func(s record.Sample) bool {
		return s.Benchmark == "longmemeval" && s.Labels["model"] == "" && (s.Budget != 30968 || s.System == "arbormem" || s.System == "mem0") && !strings.HasPrefix(s.Episode, "eff-")
	})
	tables := map[string]table.Table{
		"main":                 MainTable(main),
		"bme":                  BMETable(samples, eps),
		"category-locomo":      CategoryTable("locomo", samples),
		"category-longmemeval": CategoryTable("longmemeval", main),
		"category-beam":        CategoryTable("BEAM-100K", samples),
		"budget-accuracy":      BudgetTable(budget, MetricAccuracy),
		"budget-recall":        BudgetTable(budget, MetricEvidenceRecall),
		"ablation":             AblationTable(subset(samples, func(s record.Sample) bool { return s.Labels["model"] != "" }), nil),
		"latency":              LatencyTable(eff, eps),
		"cost":                 CostTable(eff, eps),
		"judge":                JudgeAgreementTable(samples),
	}
	for name, tb := range tables {
		t.Run(name, func(t *testing.T) {
			if len(tb.Rows) == 0 {
				t.Fatalf("table %q has no rows", name)
			}
			for ext, b := range renderAll(t, tb) {
				goldenFile(t, name+"."+ext, b)
			}
		})
	}
}

func TestGoldenBudgetPlot(t *testing.T) {
	samples, _ := fixture()
	p := BudgetPlot(subset(samples, func(s record.Sample) bool { return s.Benchmark == "longmemeval" }), MetricAccuracy)
	var labels []string
	for _, tk := range p.XTicks {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "256 512 1K 2K 4K 8K 16K 32K" {
		t.Errorf("ticks = %s", got)
	}
	var names []string
	for _, s := range p.Series {
		names = append(names, s.Name)
		if len(s.X) != len(s.Y) || len(s.X) == 0 {
			t.Errorf("series %s: %d x, %d y", s.Name, len(s.X), len(s.Y))
		}
	}
	if got := strings.Join(names, ","); got != "Full,BM25,Summary,Graphiti,A-MEM,Mem0,ArborMem,zeta-mem" {
		t.Errorf("series = %s", got)
	}
	var buf bytes.Buffer
	if err := table.LinePlotSVG(&buf, p); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !bytes.Contains(buf.Bytes(), []byte(">"+n+"</text>")) {
			t.Errorf("svg lacks legend entry %s", n)
		}
	}
}

// BenchmarkMainTable aggregates and renders a paper-sized main table:
// LoCoMo's 1,540 questions for nine systems.
func BenchmarkMainTable(b *testing.B) {
	var samples []record.Sample
	for _, sys := range systemOrder {
		samples = append(samples, mk("locomo", sys, "1", 30968, 1540, 700)...)
	}
	b.ResetTimer()
	for b.Loop() {
		tb := MainTable(samples)
		if _, err := tb.LaTeX("tab:main-results"); err != nil {
			b.Fatal(err)
		}
		_ = tb.Markdown()
	}
}
