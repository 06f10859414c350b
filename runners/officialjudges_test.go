package runners

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/prompt/importer"
)

// TestOfficialJudgesOnSpeakingFake: with the official judges imported by
// `arbor prompts import` from evaluation code as prompts_dir, and official
// judge mode, every judge request carries the imported wording (BEAM's
// equivalence check with its system message), none arbor's own, the
// speaking fake recognises each, and every reply parses: no sample is
// unparsed or failed. The code is the importer's fixtures (in the layouts of
// LongMemEval's evaluate_qa.py and BEAM's src/prompts.py and evaluation.py),
// and real checkouts when ARBOR_LONGMEMEVAL_DIR and ARBOR_BEAM_DIR name them.
func TestOfficialJudgesOnSpeakingFake(t *testing.T) {
	const fixtures = "../pkg/prompt/importer/testdata/judges/"
	cases := []struct {
		name string
		code []string
	}{{"fixtures", []string{fixtures + "lme_evaluate_qa.py", fixtures + "beam"}}}
	if lme, beam := os.Getenv("ARBOR_LONGMEMEVAL_DIR"), os.Getenv("ARBOR_BEAM_DIR"); lme != "" && beam != "" {
		cases = append(cases, struct {
			name string
			code []string
		}{"checkouts", []string{lme, beam}})
	} else {
		t.Log("ARBOR_LONGMEMEVAL_DIR and ARBOR_BEAM_DIR name no checkouts: the official files themselves are not run")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { officialJudgesRun(t, c.code) })
	}
}

// opening is the fixed text a template's rendering starts with (up to its
// first action), trimmed and cut to n bytes.
func opening(t *testing.T, set *prompt.Set, name string, n int) string {
	t.Helper()
	text, err := set.Text(name)
	if err != nil {
		t.Fatal(err)
	}
	text, _, _ = strings.Cut(text, "{{")
	text = strings.TrimSpace(text)
	return text[:min(n, len(text))]
}

// importJudges imports the judges of the evaluation code at paths into a
// fresh prompts directory and loads it.
func importJudges(t *testing.T, paths ...string) (string, importer.Report, *prompt.Set) {
	t.Helper()
	srcs, err := importer.JudgeSources(paths)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := importer.ImportJudges(srcs, dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := prompt.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, r, set
}

func officialJudgesRun(t *testing.T, code []string) {
	dir, r, official := importJudges(t, code...)
	if len(r.Written) != 7 {
		t.Fatalf("imported %v", r.Written)
	}
	sp, err := fake.New(fake.Options{Prompts: []*prompt.Set{official}})
	if err != nil {
		t.Fatal(err)
	}
	// A judge request is told apart by how its user message opens: the
	// imported wording's, or arbor's own.
	type kind struct{ bench, system string }
	imported := map[string]kind{}
	var ours []string
	for _, name := range r.Written {
		k := kind{bench: "longmemeval"}
		if strings.HasPrefix(name, "judge_beam_") {
			k.bench = "beam"
		}
		if sys, ok, _ := official.RenderPart(name, prompt.SystemPart, nil); ok {
			k.system = strings.TrimSpace(sys)
		}
		imported[opening(t, official, name, 40)] = k
		ours = append(ours, opening(t, prompt.Default(), name, 40))
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var bad []string
	o := sp.Install(openaifake.Options{})
	speak := o.Speak
	o.Speak = func(req openaifake.Request) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		for i, m := range req.Messages {
			if m.Role != "user" {
				continue
			}
			text := strings.TrimSpace(m.Content)
			for _, w := range ours {
				if strings.HasPrefix(text, w) {
					bad = append(bad, "in arbor's wording: "+w)
				}
			}
			for w, k := range imported {
				if !strings.HasPrefix(text, w) {
					continue
				}
				seen[k.bench]++
				if k.system != "" && (i == 0 || strings.TrimSpace(req.Messages[0].Content) != k.system) {
					bad = append(bad, "without the official code's system message: "+w)
				}
			}
			break
		}
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
		if seen[c.bench] == 0 {
			t.Errorf("%s: no judge request in the imported wording", c.bench)
		}
	}
	for _, b := range bad {
		t.Error(b)
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
	for _, name := range []string{"judge_lme_standard", "judge_lme_abstention", "judge_beam_rubric", "judge_beam_equivalence"} {
		if st[name].Replies == 0 {
			t.Errorf("%s was never answered", name)
		}
	}
}

// TestOfficialJudgeNote: a model-judged run read officially is told which
// judge prompts are still arbor's wording, and nothing once they are all
// imported, or when it is not read officially or not model-judged.
func TestOfficialJudgeNote(t *testing.T) {
	_, _, lme := importJudges(t, "../pkg/prompt/importer/testdata/judges/lme_evaluate_qa.py")
	_, _, beam := importJudges(t, "../pkg/prompt/importer/testdata/judges/beam")
	// A rubric prompt without the question's placeholder, as some versions
	// of BEAM's have.
	noQuestion := t.TempDir()
	if err := os.WriteFile(filepath.Join(noQuestion, "judge_beam_rubric.tmpl"), []byte("Criterion: {{.RubricItem}}\nResponse: {{.Response}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	beamNoQ, err := prompt.Load(noQuestion)
	if err != nil {
		t.Fatal(err)
	}
	official := testConfig(t, "judge: {parse: official}\n")
	beamOfficial := testConfig(t, "judge: {beam_scoring: official}\n")
	strict := testConfig(t)
	for _, c := range []struct {
		name    string
		cfg     *config.Config
		set     *prompt.Set
		bench   string
		judged  bool
		mention string // "" for no note
	}{
		{"LongMemEval official, arbor's wording", official, prompt.Default(), "longmemeval", true, "judge_lme_standard"},
		{"LongMemEval official, imported", official, lme, "longmemeval", true, ""},
		{"BEAM official scoring, LongMemEval's imported only", beamOfficial, lme, "beam", true, "judge_beam_rubric, judge_beam_equivalence"},
		{"strict reading", strict, prompt.Default(), "longmemeval", true, ""},
		{"lexical judge", official, prompt.Default(), "longmemeval", false, ""},
		{"rule-scored benchmark", official, prompt.Default(), "branchmemeval", true, ""},
		{"BEAM official, imported", beamOfficial, beam, "beam", true, ""},
		{"BEAM corrected, imported with the question", strict, beam, "beam", true, ""},
		{"BEAM corrected, a rubric without the question", strict, beamNoQ, "beam", true, "no place for the question"},
		{"BEAM corrected, arbor's wording", strict, prompt.Default(), "beam", true, ""},
	} {
		got := officialJudgeNote(c.cfg, c.set, c.bench, c.judged)
		if (got == "") != (c.mention == "") || !strings.Contains(got, c.mention) {
			t.Errorf("%s: note %q, want one naming %q", c.name, got, c.mention)
		}
	}
}
