package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/record"
)

func lmeEpisodes() []datasets.Episode {
	qs := []*datasets.Question{
		{ID: "q1", Category: "single-session-user", Text: "Where did I fly?", Gold: "Paris", Time: qTime},
		{ID: "q2", Category: "temporal-reasoning", Text: "How many days?", Gold: "18", Time: qTime},
		{ID: "q3_abs", Category: "multi-session", Text: "What is my cat's name?", Gold: "no cat was mentioned", Time: qTime, Abstention: true},
	}
	var eps []datasets.Episode
	for _, q := range qs {
		eps = append(eps, datasets.Episode{ID: q.ID, Benchmark: "longmemeval", Steps: []datasets.Step{{Question: q}}})
	}
	return eps
}

func fakeLoad(bench string) func(context.Context, string, string, datasets.Options) ([]datasets.Episode, error) {
	return func(_ context.Context, b, path string, _ datasets.Options) ([]datasets.Episode, error) {
		if b != bench {
			return nil, fmt.Errorf("unexpected benchmark %s", b)
		}
		return lmeEpisodes(), nil
	}
}

// judgeConfigFile writes a config whose judge role is the fake server.
func judgeConfigFile(t *testing.T, dir, name, url string) string {
	t.Helper()
	p := filepath.Join(dir, name+".yaml")
	y := fmt.Sprintf("models:\n  judge:\n    provider: openai\n    endpoints:\n      - {url: %q, model: fake-model, max_inflight: 4, timeout: 5s}\ncache:\n  enabled: false\nretry:\n  max_attempts: 1\n", url)
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScoreJobTwoJudges runs `arbor score`'s path end to end against two
// loopback judge servers: judge "lenient" says yes to everything, judge
// "strict" only to the Paris answer.
func TestScoreJobTwoJudges(t *testing.T) {
	lenient := openaifake.New(openaifake.Options{Reply: func(openaifake.Request) string { return "Yes." }})
	defer lenient.Close()
	var (
		mu            sync.Mutex
		strictPrompts []string
	)
	strict := openaifake.New(openaifake.Options{Reply: func(r openaifake.Request) string {
		p := r.Messages[len(r.Messages)-1].Content
		mu.Lock()
		strictPrompts = append(strictPrompts, p)
		mu.Unlock()
		if strings.Contains(p, "response: We flew to Paris") {
			return "yes"
		}
		return "No"
	}})
	defer strict.Close()
	dir := t.TempDir()
	base, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	judges, err := LoadJudges(context.Background(), base, []string{
		judgeConfigFile(t, dir, "lenient", lenient.URL), judgeConfigFile(t, dir, "strict", strict.URL), "lexical"})
	if err != nil {
		t.Fatal(err)
	}
	preds := filepath.Join(dir, "hyp.jsonl")
	os.WriteFile(preds, []byte(`{"question_id": "q1", "hypothesis": "We flew to Paris."}
{"question_id": "q2", "hypothesis": "19 days"}
{"question_id": "q3_abs", "hypothesis": "Your cat is Tom."}
`), 0o644)
	var out, errw bytes.Buffer
	job := ScoreJob{Bench: "longmemeval", Data: "lme.json", Predictions: preds, Out: filepath.Join(dir, "out"),
		Judges: judges, Workers: 2, Load: fakeLoad("longmemeval"), Stdout: &out, Stderr: &errw}
	if err := job.Run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, errw.String())
	}
	md := out.String()
	for _, want := range []string{"longmemeval-judge:lenient", "longmemeval-judge:strict", "longmemeval-judge:lexical (heuristic)",
		"| Task-averaged", "| Abstention", "Judge agreement", "longmemeval-judge:lenient vs longmemeval-judge:strict"} {
		if !strings.Contains(md, want) {
			t.Errorf("output lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "NaN") {
		t.Fatalf("NaN in tables:\n%s", md)
	}
	if len(strictPrompts) != 3 {
		t.Fatalf("strict judge saw %d prompts", len(strictPrompts))
	}
	for _, p := range strictPrompts {
		if !strings.Contains(p, qDate) {
			t.Fatalf("judge prompt without the question date:\n%s", p)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "scores.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("scores.jsonl:\n%s", b)
	}
	var l2 struct {
		QuestionID string                        `json:"question_id"`
		Score      float64                       `json:"score"`
		Scores     map[string]record.ScoreRecord `json:"scores"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &l2); err != nil {
		t.Fatal(err)
	}
	if l2.QuestionID != "q2" || l2.Score != 1 || l2.Scores["longmemeval-judge:strict"].Score != 0 || len(l2.Scores) != 3 {
		t.Fatalf("line 2: %+v", l2)
	}
}

func TestScoreJobRun(t *testing.T) {
	dir := t.TempDir()
	if err := record.WriteManifest(dir, &record.Manifest{RunID: "r", Benchmark: "longmemeval", Dataset: record.Dataset{Path: "lme.json"}}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, s := range []record.Sample{
		{Benchmark: "longmemeval", Episode: "q1", Question: "q1", System: "arbormem", Category: "single-session-user", Prediction: "Paris",
			Primary: "longmemeval-judge:chat", Scores: map[string]record.ScoreRecord{"longmemeval-judge:chat": {Score: 1}}},
		{Benchmark: "longmemeval", Episode: "q2", Question: "q2", System: "arbormem", Category: "temporal-reasoning", Prediction: "40 days",
			Primary: "longmemeval-judge:chat", Scores: map[string]record.ScoreRecord{"longmemeval-judge:chat": {Score: 1}}},
	} {
		line, _ := json.Marshal(s)
		b.Write(append(line, '\n'))
	}
	os.WriteFile(filepath.Join(dir, "samples.jsonl"), b.Bytes(), 0o644)
	var out, errw bytes.Buffer
	job := ScoreJob{RunDir: dir, Judges: []JudgeConfig{{Name: "lexical", Judge: config.Judge{Mode: "lexical"}}},
		Load: fakeLoad("longmemeval"), Stdout: &out, Stderr: &errw}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := record.ReadLog[record.Sample](filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Scores["longmemeval-judge:lexical"].Score != 1 || got[1].Scores["longmemeval-judge:lexical"].Score != 0 ||
		got[0].Primary != "longmemeval-judge:chat" {
		t.Fatalf("samples after rescoring: %+v", got)
	}
	if !strings.Contains(out.String(), "longmemeval-judge:chat vs longmemeval-judge:lexical") {
		t.Fatalf("no agreement table:\n%s", out.String())
	}
	// A wrong benchmark for the run is refused.
	job.Bench = "beam"
	if err := job.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "longmemeval run") {
		t.Fatalf("want a benchmark mismatch error, got %v", err)
	}
}

// TestScoreLeftOutByCategories: a prediction of a question that
// --categories left out is named as such, not as naming no question of the
// data; an id the data does not hold at all still is.
func TestScoreLeftOutByCategories(t *testing.T) {
	load := func(_ context.Context, _, _ string, opt datasets.Options) ([]datasets.Episode, error) {
		var keep []datasets.Episode
		for _, e := range lmeEpisodes() {
			c := e.Steps[0].Question.Category
			if len(opt.Categories) == 0 || opt.Categories[0] == "all" || slices.Contains(opt.Categories, c) {
				keep = append(keep, e)
			}
		}
		return keep, nil
	}
	dir := t.TempDir()
	preds := filepath.Join(dir, "hyp.jsonl")
	os.WriteFile(preds, []byte(`{"question_id": "q1", "hypothesis": "Paris"}
{"question_id": "q3_abs", "hypothesis": "Tom"}
{"question_id": "nosuch", "hypothesis": "x"}
`), 0o644)
	var out, errw bytes.Buffer
	job := ScoreJob{Bench: "longmemeval", Data: "lme.json", Predictions: preds, Categories: []string{"single-session-user"},
		Judges: []JudgeConfig{{Name: "lexical", Judge: config.Judge{Mode: "lexical"}}}, Load: load, Stdout: &out, Stderr: &errw}
	if err := job.Run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, errw.String())
	}
	msg := errw.String()
	if !strings.Contains(msg, "1 predictions are of questions left out by --categories single-session-user and were not scored (first: q3_abs)") {
		t.Errorf("no note on the left-out question:\n%s", msg)
	}
	if !strings.Contains(msg, "1 predictions name no question of lme.json and were skipped (first: nosuch)") {
		t.Errorf("no warning on the unknown id:\n%s", msg)
	}
}
