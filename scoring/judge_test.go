package scoring

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

func TestLongMemEvalPromptSelection(t *testing.T) {
	for _, tc := range []struct {
		id, typ string
		abs     bool
		want    string
	}{
		{"q1", "single-session-user", false, "judge_lme_standard"},
		{"q2", "single-session-assistant", false, "judge_lme_standard"},
		{"q3", "multi-session", false, "judge_lme_standard"},
		{"q4", "temporal-reasoning", false, "judge_lme_temporal"},
		{"q5", "knowledge-update", false, "judge_lme_knowledge_update"},
		{"q6", "single-session-preference", false, "judge_lme_preference"},
		// Abstention wins over the type, as in evaluate_qa.py.
		{"q7_abs", "temporal-reasoning", true, "judge_lme_abstention"},
		{"q8_abs", "multi-session", false, "judge_lme_abstention"},
		{"q9", "knowledge-update", true, "judge_lme_abstention"},
		{"q10", "summarization", false, ""},
	} {
		q := &datasets.Question{ID: tc.id, Category: tc.typ, Abstention: tc.abs}
		got, err := LongMemEvalPrompt(q)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), "q10") {
				t.Errorf("%s: want an error naming the question, got %q, %v", tc.id, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s (%s, abs=%v): got %q, %v; want %q", tc.id, tc.typ, tc.abs, got, err, tc.want)
		}
	}
}

func TestRepliedYes(t *testing.T) {
	for reply, want := range map[string]bool{
		"Yes.":            true,
		"yes, because it": true,
		"YES":             true,
		"  yes\n":         true,
		"No":              false,
		"no.":             false,
		"":                false,
		"%%##garbage":     false,
		"The answer is n": false,
	} {
		if got := RepliedYes(reply); got != want {
			t.Errorf("RepliedYes(%q) = %v, want %v", reply, got, want)
		}
	}
}

func TestLongMemEvalJudgeCall(t *testing.T) {
	for _, tc := range []struct {
		reply string
		score float64
	}{{"Yes.", 1}, {"yes, because the response says 18", 1}, {"No", 0}, {"~~~", 0}} {
		fj := &fakeJudge{reply: always(tc.reply)}
		j := NewLongMemEvalJudge(fj, nil, Options{JudgeName: "qwen"})
		q := &datasets.Question{ID: "e1", Text: "How many days did the trip last?", Gold: "18 days",
			Category: "temporal-reasoning", Time: qTime}
		r, err := j.Score(context.Background(), q, "It lasted 19 days.")
		if err != nil {
			t.Fatal(err)
		}
		if r.Score != tc.score || r.Raw != tc.reply {
			t.Errorf("reply %q: score %v raw %q", tc.reply, r.Score, r.Raw)
		}
		req := fj.reqs[0]
		if req.Temperature != 0 || req.MaxTokens != 10 || len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Purpose != "judge" {
			t.Fatalf("request %+v: want one user message, temperature 0, 10 tokens", req)
		}
		p := req.Messages[0].Content
		for _, want := range []string{qDate, q.Text, "18 days", "It lasted 19 days.", "off by exactly one"} {
			if !strings.Contains(p, want) {
				t.Errorf("prompt lacks %q:\n%s", want, p)
			}
		}
	}
	if j := NewLongMemEvalJudge(&fakeJudge{}, nil, Options{JudgeName: "qwen"}); j.Name() != "longmemeval-judge:qwen" || j.Heuristic() {
		t.Fatalf("name %q heuristic %v", j.Name(), j.Heuristic())
	}
}

func TestJudgeNeedsDate(t *testing.T) {
	fj := &fakeJudge{reply: always("yes")}
	q := &datasets.Question{ID: "nodate", Text: "q", Gold: "g", Category: "multi-session"}
	for _, s := range []Scorer{
		NewLongMemEvalJudge(fj, nil, Options{}),
		NewLoCoMoJudge(fj, nil, Options{}),
		NewBEAMRubric(fj, nil, Options{}),
	} {
		q := *q
		q.Category = map[string]string{"longmemeval-judge:chat": "multi-session", "locomo-judge:chat": "2", "beam-rubric:chat": "information_extraction"}[s.Name()]
		q.Rubric = []string{"item"}
		_, err := s.Score(context.Background(), &q, "p")
		if err == nil || !strings.Contains(err.Error(), "nodate") || !strings.Contains(err.Error(), "date") {
			t.Errorf("%s: want a missing-date error, got %v", s.Name(), err)
		}
	}
	if len(fj.reqs) != 0 {
		t.Fatalf("judge called %d times without a date", len(fj.reqs))
	}
}

// TestQuestionDateInEveryJudgePrompt renders every judge prompt through
// its scorer and checks that the question's date is in it.
func TestQuestionDateInEveryJudgePrompt(t *testing.T) {
	ctx := context.Background()
	seen := map[string]bool{}
	check := func(name string, s Scorer, q *datasets.Question, pred string, reply func(string) string) {
		fj := &fakeJudge{reply: reply}
		switch v := s.(type) {
		case *LongMemEvalJudge:
			v.client = fj
		case *LoCoMoJudge:
			v.client = fj
		case *BEAMRubric:
			v.client = fj
		}
		q.Time = qTime
		if _, err := s.Score(ctx, q, pred); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ps := fj.prompts()
		if len(ps) == 0 {
			t.Fatalf("%s: no judge call", name)
		}
		for _, p := range ps {
			if !strings.Contains(p, qDate) {
				t.Errorf("%s: prompt without the question date:\n%s", name, p)
			}
			if strings.Contains(strings.ToLower(p), "not specified") {
				t.Errorf("%s: prompt says 'not specified'", name)
			}
		}
		seen[name] = true
	}
	for _, typ := range []string{"single-session-user", "temporal-reasoning", "knowledge-update", "single-session-preference"} {
		check("lme "+typ, NewLongMemEvalJudge(nil, nil, Options{}), &datasets.Question{ID: "x", Category: typ, Text: "q", Gold: "g"}, "p", always("yes"))
	}
	check("lme abstention", NewLongMemEvalJudge(nil, nil, Options{}), &datasets.Question{ID: "x_abs", Category: "multi-session", Abstention: true, Text: "q", Gold: "g"}, "p", always("yes"))
	check("locomo", NewLoCoMoJudge(nil, nil, Options{}), &datasets.Question{ID: "c:1", Category: "2", Text: "q", Gold: "g"}, "p", always(`{"label":"CORRECT"}`))
	check("beam rubric", NewBEAMRubric(nil, nil, Options{}), &datasets.Question{ID: "1:ie:0", Category: "information_extraction", Text: "q", Rubric: []string{"a", "b"}}, "p", always(`{"score": 1}`))
	check("beam rubric official", NewBEAMRubric(nil, nil, Options{BEAMOfficial: true}), &datasets.Question{ID: "1:ie:0", Category: "information_extraction", Text: "q", Rubric: []string{"a"}}, "p", always(`{"score": 1}`))
	check("beam equivalence", NewBEAMRubric(nil, nil, Options{}), &datasets.Question{ID: "1:eo:0", Category: "event_ordering", Text: "q", Rubric: []string{"a", "b"}}, "a\nb", always("YES"))
	// Every judge template must have been exercised.
	for _, n := range prompt.Default().Names() {
		if strings.HasPrefix(n, "judge_") {
			txt, _ := prompt.Default().Text(n)
			if !strings.Contains(txt, "{{.Date}}") {
				t.Errorf("template %s has no {{.Date}}", n)
			}
		}
	}
	if len(seen) != 9 {
		t.Fatalf("checked %d judge prompts", len(seen))
	}
}

func TestLongMemEvalLexical(t *testing.T) {
	j := NewLongMemEvalJudge(nil, nil, Options{})
	if !j.Heuristic() || j.Name() != "longmemeval-judge:lexical" {
		t.Fatalf("name %q heuristic %v", j.Name(), j.Heuristic())
	}
	ctx := context.Background()
	for _, tc := range []struct {
		typ, id, gold, pred string
		want                float64
	}{
		{"single-session-user", "a", "Blue Bottle Coffee", "You went to Blue Bottle Coffee.", 1},
		{"single-session-user", "b", "Blue Bottle Coffee", "You went to Starbucks.", 0},
		{"temporal-reasoning", "c", "18 days", "about 19 days", 1},
		{"temporal-reasoning", "d", "18 days", "about 21 days", 0},
		{"multi-session", "e_abs", "never mentioned", "I don't know; that was not mentioned.", 1},
		{"multi-session", "f_abs", "never mentioned", "It was Paris.", 0},
	} {
		q := &datasets.Question{ID: tc.id, Category: tc.typ, Gold: tc.gold, Abstention: strings.HasSuffix(tc.id, "_abs")}
		r, err := j.Score(ctx, q, tc.pred)
		if err != nil || r.Score != tc.want {
			t.Errorf("%s %q vs %q: %v, %v; want %v", tc.typ, tc.pred, tc.gold, r.Score, err, tc.want)
		}
	}
}

func TestLoCoMoJudge(t *testing.T) {
	ctx := context.Background()
	fj := &fakeJudge{reply: always(`{"label": "CORRECT"}`)}
	j := NewLoCoMoJudge(fj, nil, Options{JudgeName: "gpt"})
	q := &datasets.Question{ID: "conv-26:3", Category: "2", Text: "When did Caroline go to the group?", Gold: "7 May 2023", Time: qTime}
	r, err := j.Score(ctx, q, "On May 7th")
	if err != nil || r.Score != 1 || r.Outcome != "correct" {
		t.Fatalf("%+v %v", r, err)
	}
	if fj.reqs[0].ResponseFormat != "json_object" || fj.reqs[0].Temperature != 0 {
		t.Fatalf("request %+v", fj.reqs[0])
	}
	// Category 5 never reaches the judge.
	q5 := &datasets.Question{ID: "conv-26:9", Category: "5", Time: qTime}
	r, err = j.Score(ctx, q5, "Not mentioned in the conversation.")
	if err != nil || r.Score != 1 || r.Outcome != "rule" || len(fj.reqs) != 1 {
		t.Fatalf("cat 5: %+v %v (calls %d)", r, err, len(fj.reqs))
	}
	// Lexical.
	lj := NewLoCoMoJudge(nil, nil, Options{})
	if r, _ := lj.Score(ctx, q, "7 May 2023, I think"); r.Score != 1 || !lj.Heuristic() {
		t.Fatalf("lexical: %+v", r)
	}
}

func TestBEAMRubricModes(t *testing.T) {
	ctx := context.Background()
	q := &datasets.Question{ID: "3:information_extraction:1", Category: "information_extraction",
		Text: "What budget did I set?", Rubric: []string{"LLM response should state: $68,000", "LLM response should mention the deadline"}, Time: qTime}
	replies := map[string]string{"$68,000": `{"score": 1.0, "reason": "ok"}`, "deadline": `{"score": 0.5, "reason": "partly"}`}
	reply := func(p string) string {
		for k, v := range replies {
			if strings.Contains(p, "RUBRIC CRITERION (what to check): "+q.Rubric[0]) && k == "$68,000" {
				return v
			}
			if strings.Contains(p, "RUBRIC CRITERION (what to check): "+q.Rubric[1]) && k == "deadline" {
				return v
			}
		}
		return "garbage"
	}
	fj := &fakeJudge{reply: reply}
	r, err := NewBEAMRubric(fj, nil, Options{}).Score(ctx, q, "The budget is 68k.")
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Score-0.75) > 1e-12 || len(r.Parts) != 2 || r.Parts[1] != 0.5 {
		t.Fatalf("corrected: %+v", r)
	}
	for _, p := range fj.prompts() {
		if !strings.Contains(p, "QUESTION (what the user asked): What budget did I set?") {
			t.Fatalf("corrected prompt lacks the question:\n%s", p)
		}
	}
	fo := &fakeJudge{reply: reply}
	so := NewBEAMRubric(fo, nil, Options{BEAMOfficial: true, JudgeName: "j"})
	r, err = so.Score(ctx, q, "The budget is 68k.")
	if err != nil {
		t.Fatal(err)
	}
	// int(0.5) == 0 in the released code.
	if r.Score != 0.5 || r.Parts[1] != 0 || so.Name() != "beam-rubric-official:j" {
		t.Fatalf("official: %+v (%s)", r, so.Name())
	}
	for _, p := range fo.prompts() {
		if !strings.Contains(p, "QUESTION (what the user asked): <question>") || strings.Contains(p, q.Text) {
			t.Fatalf("official prompt should keep the unfilled placeholder:\n%s", p)
		}
	}
	// An unreadable verdict scores 0 and is flagged.
	fg := &fakeJudge{reply: always("I cannot decide")}
	r, _ = NewBEAMRubric(fg, nil, Options{}).Score(ctx, q, "x")
	if r.Score != 0 || r.Outcome != "unparsed 2/2" {
		t.Fatalf("garbage: %+v", r)
	}
	// Errors name the question.
	_, err = NewBEAMRubric(&fakeJudge{fail: true}, nil, Options{}).Score(ctx, q, "x")
	if err == nil || !strings.Contains(err.Error(), q.ID) {
		t.Fatalf("want error naming %s, got %v", q.ID, err)
	}
	_, err = NewBEAMRubric(nil, nil, Options{}).Score(ctx, &datasets.Question{ID: "norubric"}, "x")
	if err == nil || !strings.Contains(err.Error(), "norubric") {
		t.Fatalf("want error for a question without rubric, got %v", err)
	}
}

func TestBEAMLexical(t *testing.T) {
	q := &datasets.Question{ID: "1:ie:0", Category: "information_extraction",
		Rubric: []string{"LLM response should state: budget of 68000 dollars", "LLM response should mention: the Lisbon conference"}}
	b := NewBEAMRubric(nil, nil, Options{})
	r, err := b.Score(context.Background(), q, "You set a budget of 68000 dollars.")
	if err != nil || !b.Heuristic() || b.Name() != "beam-rubric:lexical" {
		t.Fatal(err, b.Name())
	}
	if r.Parts[0] != 1 || r.Parts[1] != 0 || r.Score != 0.5 {
		t.Fatalf("%+v", r)
	}
}

func FuzzParseRubricScore(f *testing.F) {
	for _, s := range []string{`{"score": 1}`, `score=0.5`, `{"score": "x"}`, "```json\n{", `0.5`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseRubricScore(s)
		if !ok && v != 0 {
			t.Fatalf("not ok but value %v", v)
		}
		if v < 0 || v > 1 {
			t.Fatalf("score %v off the scale", v)
		}
		if l := ParseLoCoMoLabel(s); l != "correct" && l != "wrong" && l != Unparsed {
			t.Fatalf("label %q", l)
		}
		if y := ParseYesNo(s, ParseStrict); y != "yes" && y != "no" && y != Unparsed {
			t.Fatalf("verdict %q", y)
		}
	})
}
