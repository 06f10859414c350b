package scoring

import (
	"context"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/memory"
)

func TestForBenchmark(t *testing.T) {
	fj := &fakeJudge{reply: always("yes")}
	for _, tc := range []struct {
		bench string
		judge bool
		opt   Options
		names []string
		heur  []bool
	}{
		{"branchmemeval", false, Options{}, []string{"bme-rules"}, []bool{false}},
		{"locomo", false, Options{}, []string{"locomo-f1"}, []bool{false}},
		{"locomo", false, Options{LoCoMoJudge: true}, []string{"locomo-f1", "locomo-judge:lexical"}, []bool{false, true}},
		{"locomo", true, Options{LoCoMoJudge: true, JudgeName: "q30"}, []string{"locomo-f1", "locomo-judge:q30"}, []bool{false, false}},
		{"longmemeval", false, Options{}, []string{"longmemeval-judge:lexical"}, []bool{true}},
		{"longmemeval", true, Options{}, []string{"longmemeval-judge:chat"}, []bool{false}},
		{"beam", true, Options{}, []string{"beam-rubric:chat"}, []bool{false}},
		{"beam", false, Options{BEAMOfficial: true}, []string{"beam-rubric-official:lexical"}, []bool{true}},
	} {
		var s []Scorer
		var err error
		if tc.judge {
			s, err = ForBenchmark(tc.bench, fj, nil, tc.opt)
		} else {
			s, err = ForBenchmark(tc.bench, nil, nil, tc.opt)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != len(tc.names) {
			t.Fatalf("%s: %d scorers", tc.bench, len(s))
		}
		for i := range s {
			if s[i].Name() != tc.names[i] || s[i].Heuristic() != tc.heur[i] {
				t.Errorf("%s[%d]: %s heuristic %v, want %s %v", tc.bench, i, s[i].Name(), s[i].Heuristic(), tc.names[i], tc.heur[i])
			}
		}
	}
	if _, err := ForBenchmark("nope", nil, nil, Options{}); err == nil {
		t.Fatal("unknown benchmark accepted")
	}
	js, err := JudgeScorers("locomo", nil, nil, Options{})
	if err != nil || len(js) != 1 || js[0].Name() != "locomo-judge:lexical" {
		t.Fatalf("JudgeScorers: %v %v", js, err)
	}
	if js, _ := JudgeScorers("branchmemeval", nil, nil, Options{}); len(js) != 0 {
		t.Fatalf("branchmemeval has no judge, got %v", js)
	}
}

func TestRecallerFor(t *testing.T) {
	q := &datasets.Question{ID: "q", Evidence: nil}
	if got := RecallerFor("locomo", 10)(q, memory.Bundle{}); got.Gold != -1 || got.Answer != -1 {
		t.Fatalf("SourceRecall expected for locomo, got %+v", got)
	}
	// BMERecall answers for questions without evidence lists, with the
	// confounder check SourceRecall never makes.
	bq := &datasets.Question{ID: "b", Gold: "Lisbon", Confounder: "Porto"}
	got := RecallerFor("branchmemeval", 10)(bq, memory.Bundle{Items: []memory.Item{{Text: "We flew to Porto."}}})
	if got.Gold != 0 || got.Confounder == nil || !*got.Confounder {
		t.Fatalf("BMERecall expected for branchmemeval, got %+v", got)
	}
}

// TestAnswerInBundle: the gold answer normalised as the benchmark's scorer
// does, at a token boundary; undefined for abstention, long golds and BEAM
// categories without a gold string.
func TestAnswerInBundle(t *testing.T) {
	b := memory.Bundle{Items: []memory.Item{
		{Text: "[2023-05-08 13:56] Caroline: I went to the LGBTQ support groups on 7 May, 2023."},
		{Text: "Summary: the user adopted a puppy."},
	}}
	cases := []struct {
		bench, cat, gold string
		abst             bool
		want             float64
	}{
		{"locomo", "2", "7 May 2023", false, 1},     // commas dropped as LoCoMo's normalize_answer does
		{"locomo", "4", "support group", false, 1},  // stemmed: groups ~ group
		{"locomo", "4", "Biscuit", false, 0},        // not kept
		{"locomo", "5", "support group", false, -1}, // adversarial: no answer string
		{"longmemeval", "multi-session", "Puppy", false, 1},
		{"longmemeval", "multi-session", "LGBTQ support", true, -1}, // abstention
		{"longmemeval", "single-session-preference", "The user would prefer responses that suggest quiet cafés near the office with good coffee", false, -1},
		{"beam", "information_extraction", "a puppy", false, 1},
		{"beam", "summarization", "puppy", false, -1},
		{"locomo", "4", "", false, -1},
	}
	for _, c := range cases {
		q := &datasets.Question{ID: "q", Category: c.cat, Gold: c.gold, Abstention: c.abst}
		if got := AnswerInBundle(c.bench, q, b, 10); got != c.want {
			t.Errorf("%s %s %q: %v, want %v", c.bench, c.cat, c.gold, got, c.want)
		}
	}
	// RecallerFor reports both figures: every turn cited, the answer absent.
	q := &datasets.Question{ID: "q", Category: "4", Gold: "Biscuit", Evidence: []string{"D1:1"}}
	r := RecallerFor("locomo", 10)(q, memory.Bundle{Items: []memory.Item{{Text: "Summary of session 1.", Sources: []string{"D1:1", "D1:2"}}}})
	if r.Gold != 1 || r.Answer != 0 {
		t.Errorf("summary bundle: source %v, answer %v; want 1 and 0", r.Gold, r.Answer)
	}
}

func TestForBenchmarkJudgeMode(t *testing.T) {
	fj := &fakeJudge{reply: always("yes")}
	s, err := ForBenchmark("longmemeval", fj, nil, Options{Judge: config.Judge{Mode: "lexical"}})
	if err != nil || s[0].Name() != "longmemeval-judge:lexical" || !s[0].Heuristic() {
		t.Fatalf("lexical mode: %v %v", s, err)
	}
	if _, err := ForBenchmark("beam", nil, nil, Options{Judge: config.Judge{Mode: "chat"}}); err == nil || !strings.Contains(err.Error(), "models.judge.endpoints") {
		t.Fatalf("chat mode without a judge: %v", err)
	}
	if _, err := ForBenchmark("beam", fj, nil, Options{Judge: config.Judge{Mode: "sometimes"}}); err == nil {
		t.Fatal("bad mode accepted")
	}
	// LoCoMo without its judge and BranchMemEval never need one.
	for _, b := range []string{"locomo", "branchmemeval"} {
		if _, err := ForBenchmark(b, nil, nil, Options{Judge: config.Judge{Mode: "chat"}}); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
	s, _ = ForBenchmark("longmemeval", fj, nil, Options{Judge: config.Judge{Mode: "auto", Temperature: 0, MaxTokens: 7}})
	q := &datasets.Question{ID: "q", Category: "multi-session", Time: qTime}
	if _, err := s[0].Score(context.Background(), q, "x"); err != nil || fj.reqs[0].MaxTokens != 7 {
		t.Fatalf("max tokens from config: %v %+v", err, fj.reqs)
	}
}
