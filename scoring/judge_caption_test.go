package scoring

import (
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
)

// Every table caption names the judge model of its cells, and says so
// when columns were judged by different models (P:668, P:1469).
func TestCaptionNamesJudge(t *testing.T) {
	mk := func(sys, judge string, score float64) record.Sample {
		return record.Sample{Benchmark: "longmemeval", Episode: sys + judge, Question: "q-" + sys, System: sys,
			Primary: "longmemeval-judge", Judge: judge, EvidenceRecall: -1,
			Scores: map[string]record.ScoreRecord{"longmemeval-judge": {Score: score}}}
	}
	one := MainTable([]record.Sample{mk("bm25", "Qwen3-30B-A3B-Instruct-2507", 1), mk("arbormem", "Qwen3-30B-A3B-Instruct-2507", 0)})
	if !strings.Contains(one.Caption, "Judge: Qwen3-30B-A3B-Instruct-2507.") || strings.Contains(one.Caption, "differ") {
		t.Errorf("one judge: caption %q", one.Caption)
	}
	two := MainTable([]record.Sample{mk("bm25", "Qwen3-30B-A3B-Instruct-2507", 1), mk("arbormem", "Qwen3-4B-Instruct-2507", 0)})
	for _, w := range []string{"Judges differ", "Qwen3-30B-A3B-Instruct-2507 (BM25)", "Qwen3-4B-Instruct-2507 (ArborMem)", "not comparable"} {
		if !strings.Contains(two.Caption, w) {
			t.Errorf("two judges: caption lacks %q: %q", w, two.Caption)
		}
	}
	lat := LatencyTable([]record.Sample{mk("arbormem", "Qwen3-4B-Instruct-2507", 1)}, nil)
	if !strings.Contains(lat.Caption, "Judge: Qwen3-4B-Instruct-2507.") {
		t.Errorf("latency caption %q", lat.Caption)
	}
	if rule := MainTable([]record.Sample{{Benchmark: "branchmemeval", Question: "q", System: "bm25", Primary: "bme-rules", EvidenceRecall: -1,
		Scores: map[string]record.ScoreRecord{"bme-rules": {Score: 1}}}}); strings.Contains(rule.Caption, "Judge") {
		t.Errorf("rule-scored table names a judge: %q", rule.Caption)
	}
}
