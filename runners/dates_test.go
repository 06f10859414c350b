package runners

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/scoring"
)

// TestQuestionDateReachesAnswerAndJudge: in every benchmark, each question
// has a date, and that date is in what the answer model receives (through
// the shared template and through ArborMem's own rendering) and, where a
// model judge scores, in what the judge receives. Peer harnesses have
// shipped prompts where it silently read "not specified".
func TestQuestionDateReachesAnswerAndJudge(t *testing.T) {
	cases := []struct {
		bench, data string
		judged      bool
	}{
		{"branchmemeval", "", false},
		{"longmemeval", "../datasets/longmemeval/testdata/longmemeval_s_cleaned.json", true},
		{"locomo", "../datasets/locomo/testdata/locomo10.json", false},
		{"beam", "../datasets/beam/testdata/chats/100K", true},
	}
	for _, c := range cases {
		t.Run(c.bench, func(t *testing.T) {
			fake := openaifake.New(openaifake.Options{KeepBodies: 100000, Reply: func(openaifake.Request) string { return `{"score": 1} yes` }})
			defer fake.Close()
			cfg := testConfig(t, fmt.Sprintf(`models:
  chat:
    endpoints: [{url: %[1]s, model: fake-model, max_inflight: 4, timeout: 20s}]
  judge:
    endpoints: [{url: %[1]s, model: fake-model, max_inflight: 4, timeout: 20s}]
answer: {answerer: chat}
arbormem: {extractors: heuristic}
baselines: {summaries: heuristic}
judge: {mode: chat}
cache: {enabled: false}   # systems with the same evidence send the same answer prompt (one template)
`, fake.URL))
			plan := Plan{Benchmark: c.bench, Data: c.data, Systems: []string{"bm25", "arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard}
			if c.bench == "branchmemeval" {
				plan.Limit = 1
			}
			res, err := Run(deadline(t), plan)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range res.Samples {
				if s.Error != "" {
					t.Errorf("sample %s: %s", s.Key(), s.Error)
				}
			}
			var bodies []string
			for _, b := range fake.Bodies("/v1/chat/completions") {
				// Decode JSON escapes so that texts compare as written.
				var req struct{ Messages []struct{ Content string } }
				if err := json.Unmarshal(b, &req); err != nil {
					t.Fatal(err)
				}
				var all strings.Builder
				for _, m := range req.Messages {
					all.WriteString(m.Content + "\n")
				}
				bodies = append(bodies, all.String())
			}
			eps, err := datasets.Load(deadline(t), c.bench, c.data, datasets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			asked := map[string]bool{}
			for _, s := range res.Samples {
				asked[s.Question] = true
			}
			for _, ep := range eps {
				for _, q := range ep.Questions() {
					if !asked[q.ID] {
						continue
					}
					if q.Time.IsZero() {
						t.Errorf("%s: question has no date", q.ID)
						continue
					}
					answerDate := dialog.FormatTime(q.Time)
					if n := countWith(bodies, q.Text, answerDate); n < 2 {
						t.Errorf("%s: %d answer prompts carry the question and its date %q, want one per system (2)", q.ID, n, answerDate)
					}
					if !c.judged {
						continue
					}
					judgeDate, err := scoring.FormatQuestionDate(q)
					if err != nil {
						t.Fatal(err)
					}
					// BEAM's event-ordering equivalence check compares snippets
					// and carries the date without the question.
					need := []string{q.Text, judgeDate}
					if q.Category == "event_ordering" {
						need = need[1:]
					}
					if countWith(bodies, need...) == 0 {
						t.Errorf("%s: no judge prompt carries the question and its date %q", q.ID, judgeDate)
					}
				}
			}
		})
	}
}

func countWith(bodies []string, parts ...string) int {
	n := 0
	for _, b := range bodies {
		ok := true
		for _, p := range parts {
			if !strings.Contains(b, p) {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}
