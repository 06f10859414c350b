package runners

import (
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/prompt/importer"
)

// TestOfficialJudgesOnSpeakingFake: with the official judges imported by
// `arbor prompts import` from evaluation code (the importer's fixtures, in
// the layouts of LongMemEval's evaluate_qa.py and BEAM's src/prompts.py and
// evaluation.py) as prompts_dir, and official judge mode, every judge
// request carries the imported wording (BEAM's equivalence check with its
// system message), the speaking fake recognises each, and every reply
// parses: no sample is unparsed or failed.
func TestOfficialJudgesOnSpeakingFake(t *testing.T) {
	srcs, err := importer.JudgeSources([]string{"../pkg/prompt/importer/testdata/judges/lme_evaluate_qa.py", "../pkg/prompt/importer/testdata/judges/beam"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := importer.ImportJudges(srcs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Written) != 7 {
		t.Fatalf("imported %v", r.Written)
	}
	official, err := prompt.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := fake.New(fake.Options{Prompts: []*prompt.Set{official}})
	if err != nil {
		t.Fatal(err)
	}
	// The fixtures' own opening words, by judge: a request in arbor's
	// wording would not start with them.
	opening := map[string]string{"Judge it.": "judge_lme_standard", "Judge time": "judge_lme_temporal", "Judge the {style}": "judge_lme_preference",
		"Judge abstention": "judge_lme_abstention", "Grade one rubric criterion": "judge_beam_rubric", "One: ": "judge_beam_equivalence"}
	var mu sync.Mutex
	seen := map[string]int{}
	systemOK := true
	o := sp.Install(openaifake.Options{})
	speak := o.Speak
	o.Speak = func(req openaifake.Request) (string, bool) {
		mu.Lock()
		for i, m := range req.Messages {
			if m.Role != "user" {
				continue
			}
			for w, name := range opening {
				if strings.HasPrefix(strings.TrimSpace(m.Content), w) {
					seen[name]++
					if name == "judge_beam_equivalence" && (i == 0 || !strings.Contains(req.Messages[0].Content, "Say YES when both snippets")) {
						systemOK = false
					}
				}
			}
			break
		}
		mu.Unlock()
		return speak(req)
	}
	srv := openaifake.New(o)
	t.Cleanup(srv.Close)
	base := testConfig(t, "judge: {parse: official, beam_scoring: official}\n")
	cfg := SpeakingConfig(base, srv.URL, base.Models.Embed.Dim, 8)
	cfg.PromptsDir = dir
	for _, c := range []struct{ bench, data string }{
		{"longmemeval", "../datasets/longmemeval/testdata/longmemeval_s_cleaned.json"},
		{"beam", "../datasets/beam/testdata/chats/100K"},
	} {
		res, err := Run(slowDeadline(t), Plan{Benchmark: c.bench, Data: c.data, Systems: []string{"bm25"}, Config: cfg, Out: io.Discard, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Samples) == 0 {
			t.Fatalf("%s: no samples", c.bench)
		}
		for _, s := range res.Samples {
			if s.Error != "" {
				t.Errorf("%s: %s", s.Key(), s.Error)
			}
			for name, sc := range s.Scores {
				if sc.Unparsed > 0 || sc.Heuristic {
					t.Errorf("%s: %s unparsed %d, heuristic %v", s.Key(), name, sc.Unparsed, sc.Heuristic)
				}
			}
		}
	}
	// The LongMemEval fixture has no temporal question that is not an
	// abstention, nor a knowledge update.
	for _, name := range []string{"judge_lme_standard", "judge_lme_preference", "judge_lme_abstention", "judge_beam_rubric", "judge_beam_equivalence"} {
		if seen[name] == 0 {
			t.Errorf("no request in the imported wording of %s (seen %v)", name, seen)
		}
	}
	if !systemOK {
		t.Error("an equivalence check was sent without the official code's system message")
	}
	st := sp.Stats()
	if u := st[fake.Unrecognised]; u.Replies > 0 {
		t.Errorf("%d requests matched no prompt", u.Replies)
	}
	for name, p := range st {
		if p.Unparseable > 0 {
			t.Errorf("%s: %d unparseable replies", name, p.Unparseable)
		}
	}
}
