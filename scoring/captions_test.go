package scoring

import (
	"fmt"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
)

// TestCaptionsPerBenchmarkMix: for every mix of benchmarks the main,
// budget and ablation captions speak of the benchmarks in the table only
// (no LoCoMo sentence under a BEAM table), LoCoMo is token F1 wherever it
// appears, and the captions are pinned by a golden file.
func TestCaptionsPerBenchmarkMix(t *testing.T) {
	all, _ := fixture()
	mixes := [][]string{
		{"locomo"}, {"beam"}, {"branchmemeval"}, {"longmemeval"},
		{"locomo", "beam"}, {"longmemeval", "beam", "branchmemeval"},
		{"longmemeval", "locomo", "beam", "branchmemeval"},
	}
	var golden strings.Builder
	for _, mix := range mixes {
		in := map[string]bool{}
		for _, b := range mix {
			in[b] = true
		}
		samples := keepSamples(all, func(s record.Sample) bool { return in[benchKey(s.Benchmark)] })
		if len(samples) == 0 {
			t.Fatalf("fixture has no samples of %v", mix)
		}
		name := strings.Join(mix, "+")
		main := MainTable(samples)
		budget := BudgetTable(samples, MetricAccuracy)
		ablation := AblationTable(samples, nil)
		for _, tc := range []struct{ what, text string }{
			{"main", main.Title + " | " + main.Caption},
			{"budget", budget.Title + " | " + budget.Caption},
			{"ablation", ablation.Caption},
		} {
			fmt.Fprintf(&golden, "%s %s: %s\n", name, tc.what, tc.text)
			if mentions := strings.Contains(tc.text, "LoCoMo"); mentions != in["locomo"] {
				t.Errorf("%s %s caption mentions LoCoMo: %v, LoCoMo in the table: %v\n%s", name, tc.what, mentions, in["locomo"], tc.text)
			}
			if strings.Contains(tc.text, "BEAM is scored") && !in["beam"] {
				t.Errorf("%s %s caption names BEAM's protocol without BEAM:\n%s", name, tc.what, tc.text)
			}
		}
		if in["locomo"] && len(mix) == 1 && !strings.HasPrefix(budget.Title, "Token F1") {
			t.Errorf("LoCoMo budget table titled %q, want token F1", budget.Title)
		}
		if in["locomo"] && len(mix) > 1 && !strings.Contains(budget.Title, "LoCoMo token F1") {
			t.Errorf("mixed budget table with LoCoMo titled %q, want it to say token F1", budget.Title)
		}
	}
	goldenFile(t, "captions.txt", []byte(golden.String()))
}

// TestLatencyFromCache: a system whose model replies came from the cache
// shows "from cache" in every timing cell, never a throughput computed from
// the cache's speed, and the note says how many replies were cached.
func TestLatencyFromCache(t *testing.T) {
	samples := append(mk("beam", "arbormem", "x", 30968, 4, 2), mk("beam", "bm25", "x", 30968, 4, 2)...)
	for i := range samples {
		samples[i].Latency = record.Latency{QueryPrep: 0.001, Answer: 0.0001, FullQuery: 0.0011}
		samples[i].Calls = map[string]record.Calls{"chat": {Count: 1}}
		if samples[i].System == "arbormem" {
			samples[i].Calls = map[string]record.Calls{"chat": {Count: 1, CacheHits: 1}}
		}
	}
	tb := LatencyTable(samples, nil)
	for _, r := range tb.Rows {
		for c, cl := range r.Cells {
			cached := r.Label == "ArborMem"
			if cached && (cl.Value != nil || cl.Text != FromCache) {
				t.Errorf("%s/%s: %+v, want %q", r.Label, tb.Columns[c].Name, cl, FromCache)
			}
			if !cached && cl.Text == FromCache {
				t.Errorf("%s/%s says from cache without a cached reply", r.Label, tb.Columns[c].Name)
			}
		}
	}
	if md := tb.Markdown(); !strings.Contains(md, "ArborMem 4 of 4") {
		t.Errorf("note does not count the cached replies:\n%s", md)
	}
}
