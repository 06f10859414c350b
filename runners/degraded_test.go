package runners

import (
	"fmt"
	"io"
	"testing"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// TestDegradedCountsRecorded: a chat model whose memory-operation replies
// never parse leaves ArborMem running on its rule-based fallbacks; the
// episode record says how many operations fell back, and that every one
// was a bad reply (two calls each: the reply and its repair).
func TestDegradedCountsRecorded(t *testing.T) {
	fake := openaifake.New(openaifake.Options{Reply: func(openaifake.Request) string { return "I would rather not answer in JSON." }})
	defer fake.Close()
	cfg := testConfig(t, fmt.Sprintf(`models:
  chat:
    endpoints:
      - {url: %s, model: fake-model, max_inflight: 4, timeout: 20s}
arbormem: {extractors: chat}
retry: {max_attempts: 2, base_delay: 1ms, max_delay: 5ms}
`, fake.URL))
	res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"arbormem", "bm25"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Episodes {
		switch e.System {
		case "bm25":
			if e.Degraded != nil {
				t.Errorf("bm25 makes no memory operations, yet degraded %+v", e.Degraded)
			}
		case "arbormem":
			d := e.Degraded
			if d == nil || d.Fallbacks == 0 {
				t.Fatalf("arbormem episode %s: degraded %+v, want fallbacks", e.Episode, d)
			}
			// path_evolution's reply is plain text, so only JSON operations
			// fail: at least 5 per commit (metadata, facts, artifacts, events,
			// states), plus collision audits and the questions' tag
			// predictions.
			if d.BadReplies != d.Fallbacks || d.BadReplies < 5*e.Committed || d.ModelErrors != 0 {
				t.Errorf("arbormem: %+v over %d commits, want >= %d bad replies, all fallen back, no model errors", d, e.Committed, 5*e.Committed)
			}
		}
	}
}
