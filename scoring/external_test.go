package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

func TestReadPredictions(t *testing.T) {
	for _, tc := range []struct {
		bench, in string
		ids       []string
		err       string
	}{
		{"locomo", `{"sample_id": "conv-26", "qa_index": 3, "prediction": "7 May"}` + "\n" + `{"sample_id":"conv-26","index":"4","prediction":""}`, []string{"conv-26:3", "conv-26:4"}, ""},
		{"longmemeval", `{"question_id": "e47becba", "hypothesis": "Paris"}`, []string{"e47becba"}, ""},
		{"beam", `{"chat_id": 1, "category": "event_ordering", "index": 0, "llm_response": "a\nb"}`, []string{"1:event_ordering:0"}, ""},
		{"branchmemeval", "\n" + `{"id": "s1:q2", "prediction": "x"}` + "\n\n", []string{"s1:q2"}, ""},
		{"locomo", `{"sample_id": "c", "qa_index": 1.5, "prediction": "x"}`, nil, "preds.jsonl line 1: field qa_index"},
		{"locomo", `{"sample_id": "c", "prediction": "x"}`, nil, `line 1: missing field "qa_index"`},
		{"longmemeval", `{"question_id": "a", "prediction": 3}`, nil, `field "prediction": want a string`},
		{"longmemeval", `{"question_id": "a"}`, nil, "no prediction field"},
		{"longmemeval", "{\"question_id\": \"a\", \"prediction\": \"x\"}\n{\"question_id\": \"a\", \"prediction\": \"y\"}", nil, "line 2: question a already predicted on line 1"},
		{"beam", `not json`, nil, "line 1: not a JSON object"},
		{"beam", `{"chat_id": [1], "category": "x", "index": 0, "prediction": ""}`, nil, `field "chat_id"`},
		{"nope", `{"question_id": "a", "prediction": "x"}`, nil, "unknown benchmark"},
	} {
		ps, err := ReadPredictions(strings.NewReader(tc.in), "preds.jsonl", tc.bench)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: want error %q, got %v", tc.bench, tc.in, tc.err, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.bench, err)
			continue
		}
		var ids []string
		for _, p := range ps {
			ids = append(ids, p.QuestionID)
		}
		if strings.Join(ids, ",") != strings.Join(tc.ids, ",") {
			t.Errorf("%s: ids %v, want %v", tc.bench, ids, tc.ids)
		}
	}
}

func FuzzReadPredictions(f *testing.F) {
	f.Add("locomo", `{"sample_id": "c", "qa_index": 1, "prediction": "x"}`)
	f.Add("beam", `{"chat_id": 1, "category": "a", "index": 0, "llm_response": ""}`)
	f.Add("longmemeval", `{"question_id": "q", "hypothesis": "h"}`+"\n"+`{"id": 5, "prediction": "p"}`)
	f.Fuzz(func(t *testing.T, bench, in string) {
		ps, err := ReadPredictions(strings.NewReader(in), "f", bench)
		if err == nil {
			for _, p := range ps {
				if p.QuestionID == "" && len(p.IDs) == 0 {
					t.Fatalf("prediction without id: %+v", p)
				}
			}
		}
	})
}

func locomoQuestions() []*datasets.Question {
	return []*datasets.Question{
		{ID: "conv-1:0", Category: "2", Text: "When?", Gold: "7 May 2023", Time: qTime, Labels: map[string]string{"category_name": "temporal"}},
		{ID: "conv-1:1", Category: "4", Text: "What?", Gold: "pottery", Time: qTime, Labels: map[string]string{"category_name": "single-hop"}},
		{ID: "conv-1:2", Category: "1", Text: "Which?", Gold: "pottery, camping", Time: qTime},
		{ID: "conv-1:3", Category: "5", Text: "Why?", Time: qTime, Abstention: true},
		{ID: "conv-2:0", Category: "4", Text: "Who?", Gold: "Jon", Time: qTime},
	}
}

func TestScorePredictionsEndToEnd(t *testing.T) {
	in := strings.Join([]string{
		`{"sample_id": "conv-1", "qa_index": 0, "prediction": "7 May 2023"}`,
		`{"sample_id": "conv-1", "qa_index": 1, "prediction": "painting"}`,
		`{"sample_id": "conv-1", "qa_index": 2, "prediction": "camping"}`,
		`{"sample_id": "conv-1", "qa_index": 3, "prediction": "Not mentioned."}`,
		`{"sample_id": "conv-9", "qa_index": 0, "prediction": "stray"}`,
	}, "\n")
	preds, err := ReadPredictions(strings.NewReader(in), "p", "locomo")
	if err != nil {
		t.Fatal(err)
	}
	// Judge A agrees with F1; judge B calls everything correct.
	ja := &fakeJudge{reply: func(p string) string {
		if strings.Contains(p, "Generated answer: 7 May 2023") {
			return `{"label":"CORRECT"}`
		}
		return `{"label":"WRONG"}`
	}}
	jb := &fakeJudge{reply: always(`{"label":"CORRECT"}`)}
	scorers, _ := ForBenchmark("locomo", ja, nil, Options{LoCoMoJudge: true, JudgeName: "a"})
	more, _ := JudgeScorers("locomo", jb, nil, Options{JudgeName: "b"})
	scorers = append(scorers, more...)
	var last int
	scored, cov, err := ScorePredictions(context.Background(), locomoQuestions(), preds, scorers, 3, func(done, total int) { last = done })
	if err != nil {
		t.Fatal(err)
	}
	if len(scored) != 4 || cov.Unanswered != 1 || len(cov.Unmatched) != 1 || cov.Unmatched[0] != "conv-9:0" || last != 4 {
		t.Fatalf("scored %d, coverage %+v, progress %d", len(scored), cov, last)
	}
	// F1: 1, 0, cat-1 mean(0 for pottery, 1 for camping)=0.5, cat-5 1.
	wantF1 := []float64{1, 0, 0.5, 1}
	for i, s := range scored {
		if math.Abs(s.Results[0].Score-wantF1[i]) > 1e-12 {
			t.Errorf("q%d F1 %v, want %v", i, s.Results[0].Score, wantF1[i])
		}
	}
	var out bytes.Buffer
	if err := WriteScores(&out, scored, scorers); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatalf("line 1 %q: %v", lines[0], err)
	}
	if first["sample_id"] != "conv-1" || first["qa_index"] != float64(0) || first["score"] != float64(1) || first["question"] != "conv-1:0" {
		t.Fatalf("line 1: %v", first)
	}
	if !strings.HasPrefix(lines[0], `{"sample_id":"conv-1","qa_index":0,`) {
		t.Fatalf("id fields not first, as given: %s", lines[0])
	}

	samples := ToSamples("locomo", "external", scored, scorers)
	if samples[0].Primary != "locomo-f1" || samples[0].Episode != "conv-1" || len(samples[0].Scores) != 3 {
		t.Fatalf("sample %+v", samples[0])
	}
	tb := JudgeTable("locomo", "external", samples)
	if err := tb.Validate(); err != nil {
		t.Fatal(err)
	}
	cell := func(row string, col int) float64 {
		for _, r := range tb.Rows {
			if r.Label == row {
				if r.Cells[col].Value == nil {
					t.Fatalf("row %s col %d empty", row, col)
				}
				return *r.Cells[col].Value
			}
		}
		t.Fatalf("no row %q in %+v", row, tb.Rows)
		return 0
	}
	if v := cell("Overall", 0); math.Abs(v-62.5) > 1e-9 {
		t.Errorf("overall F1 %v", v)
	}
	if v := cell("2 (temporal)", 1); v != 100 {
		t.Errorf("judge a, cat 2: %v", v)
	}
	// Judge a: 1,0,0 on cats 1–4 and the rule 1 on cat 5.
	if v := cell("Overall (Categories 1–4)", 1); math.Abs(v-100.0/3) > 1e-9 {
		t.Errorf("judge a, 1–4: %v", v)
	}
	at := JudgeAgreementTable(samples)
	var row *table.Row
	for i := range at.Rows {
		if strings.HasSuffix(at.Rows[i].Label, "locomo-judge:a vs locomo-judge:b") {
			row = &at.Rows[i]
		}
	}
	// a = 1,0,0,1 (category 5 by rule) and b = 1,1,1,1 → 2/4 agreement;
	// p_e = 2/4·1 = p_o → κ = 0.
	if row == nil || *row.Cells[1].Value != 4 || *row.Cells[4].Value != 50 || *row.Cells[5].Value != 0 {
		t.Fatalf("agreement table %+v", at.Rows)
	}
	if md := tb.Markdown(); !strings.Contains(md, "locomo-judge:b") || strings.Contains(md, "NaN") {
		t.Fatalf("markdown:\n%s", md)
	}
}

func TestScorePredictionsErrors(t *testing.T) {
	preds, _ := ReadPredictions(strings.NewReader(`{"sample_id":"zzz","qa_index":0,"prediction":"x"}`), "p", "locomo")
	s, _ := ForBenchmark("locomo", nil, nil, Options{})
	_, _, err := ScorePredictions(context.Background(), locomoQuestions(), preds, s, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "zzz:0") || !strings.Contains(err.Error(), "conv-1:0") {
		t.Fatalf("want an error showing both id forms, got %v", err)
	}
	preds, _ = ReadPredictions(strings.NewReader(`{"sample_id":"conv-1","qa_index":0,"prediction":"x"}`), "p", "locomo")
	js := []Scorer{NewLoCoMoJudge(&fakeJudge{fail: true}, nil, Options{})}
	_, _, err = ScorePredictions(context.Background(), locomoQuestions(), preds, js, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "endpoint down") {
		t.Fatalf("judge failure: %v", err)
	}
}

func TestRescore(t *testing.T) {
	qs := locomoQuestions()
	samples := []record.Sample{
		{Benchmark: "locomo", Episode: "conv-1", Question: "conv-1:0", System: "arbormem", Prediction: "7 May 2023", Primary: "locomo-f1",
			Scores: map[string]record.ScoreRecord{"locomo-f1": {Score: 1}}},
		{Benchmark: "locomo", Episode: "conv-1", Question: "conv-1:1", System: "arbormem", Prediction: "x", Error: "answer failed"},
		{Benchmark: "locomo", Episode: "conv-1", Question: "conv-1:9", System: "arbormem", Prediction: "x"},
		{Benchmark: "longmemeval", Question: "conv-1:0", System: "arbormem"},
	}
	fj := &fakeJudge{reply: always(`{"label":"CORRECT"}`)}
	js, _ := JudgeScorers("locomo", fj, nil, Options{JudgeName: "late"})
	n, err := Rescore(context.Background(), samples, "locomo", qs, js, 2, nil)
	if err != nil || n != 1 {
		t.Fatalf("rescored %d, %v", n, err)
	}
	r, ok := samples[0].Scores["locomo-judge:late"]
	if !ok || r.Score != 1 || samples[0].Primary != "locomo-f1" || len(fj.reqs) != 1 {
		t.Fatalf("sample 0: %+v", samples[0])
	}
	// Idempotent: nothing left to add.
	if n, _ := Rescore(context.Background(), samples, "locomo", qs, js, 2, nil); n != 0 || len(fj.reqs) != 1 {
		t.Fatalf("second pass rescored %d", n)
	}
	lx, _ := JudgeScorers("locomo", nil, nil, Options{})
	if _, err := Rescore(context.Background(), samples, "locomo", qs, lx, 1, nil); err != nil {
		t.Fatal(err)
	}
	if samples[0].Heuristic[0] != "judge" || !samples[0].Scores["locomo-judge:lexical"].Heuristic {
		t.Fatalf("lexical judge not labelled heuristic: %+v", samples[0])
	}
}

func TestJudgeTableLongMemEval(t *testing.T) {
	mk := func(q, cat string, s float64) record.Sample {
		return record.Sample{Benchmark: "longmemeval", Question: q, System: "s", Category: cat, Primary: "longmemeval-judge:a",
			Scores: map[string]record.ScoreRecord{"longmemeval-judge:a": {Score: s}}}
	}
	ss := []record.Sample{mk("q1", "temporal-reasoning", 1), mk("q2", "temporal-reasoning", 0), mk("q3_abs", "multi-session", 1)}
	tb := JudgeTable("longmemeval", "s", ss)
	got := map[string]float64{}
	for _, r := range tb.Rows {
		if r.Cells[0].Value != nil {
			got[r.Label] = *r.Cells[0].Value
		}
	}
	// overall 2/3; task-averaged mean(50, 100) = 75; abstention 100.
	if math.Abs(got["Overall"]-200.0/3) > 1e-9 || got["Task-averaged"] != 75 || got["Abstention"] != 100 {
		t.Fatalf("%v", got)
	}
}
