package runners

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/prompt/importer"
)

// speakingFake starts a speaking fake with opts on loopback (closed with the
// test) and returns it with the test config, layered with yamls, pointed at
// it on every model role.
func speakingFake(t *testing.T, opts fake.Options, yamls ...string) (*fake.Speaker, *config.Config) {
	t.Helper()
	sp, err := fake.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := openaifake.New(sp.Install(openaifake.Options{}))
	t.Cleanup(srv.Close)
	base := testConfig(t, yamls...)
	return sp, SpeakingConfig(base, srv.URL, base.Models.Embed.Dim, 8)
}

// TestModelPathSmoke is the CI smoke test of the model-backed path: `arbor
// eval branchmemeval --limit 2` with every role (chat, judge, embed, rerank)
// on a speaking fake on loopback. Every prompt sent must be recognised and
// parse, nothing may be labelled heuristic or degraded (with an echoing fake
// every memory operation falls back to its rule), and ArborMem's memory
// must be built and read.
func TestModelPathSmoke(t *testing.T) {
	sp, cfg := speakingFake(t, fake.Options{}, "retry: {max_attempts: 2, base_delay: 1ms, max_delay: 5ms}\n")
	res, err := Run(slowDeadline(t), Plan{Benchmark: "branchmemeval", Limit: 2, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) == 0 || len(res.Episodes) == 0 {
		t.Fatalf("%d samples, %d episode records", len(res.Samples), len(res.Episodes))
	}
	evidence, n := 0, 0
	for _, s := range res.Samples {
		if s.Error != "" {
			t.Errorf("%s: %s", s.Key(), s.Error)
		}
		if len(s.Heuristic) > 0 {
			t.Errorf("%s: labelled heuristic on the model path: %v", s.Key(), s.Heuristic)
		}
		if s.Judge != "" {
			t.Errorf("%s: BranchMemEval's rules name a judge model %q", s.Key(), s.Judge)
		}
		if s.System == "arbormem" {
			evidence += s.EvidenceTokens
			n++
		}
	}
	placed := 0
	for _, e := range res.Episodes {
		if e.Error != "" {
			t.Errorf("episode %s/%s: %s", e.Episode, e.System, e.Error)
		}
		if e.Degraded.Any() {
			t.Errorf("episode %s/%s: degraded on the model path: %+v", e.Episode, e.System, *e.Degraded)
		}
		if e.System == "arbormem" {
			placed += e.PlacedInBranch
			if e.Calls["chat"].Count == 0 {
				t.Errorf("episode %s: ArborMem made no chat calls while committing", e.Episode)
			}
		}
	}
	// The model path's defaults (the paper's routing, s_ce as a logit) do
	// not reproduce the offline figures on a lexical reranker
	// (TestCompareModelPath compares like with like); the smoke test asks
	// only that the memory is built and read.
	if n == 0 || evidence == 0 || placed == 0 {
		t.Errorf("ArborMem's memory is empty: %d evidence tokens over %d questions, %d placements in branch", evidence, n, placed)
	}
	st := sp.Stats()
	if u := st[fake.Unrecognised]; u.Replies > 0 {
		t.Errorf("%d requests matched no prompt", u.Replies)
	}
	// Every system answers through the one template (answer.template:
	// paper): the harness template is never asked.
	if n := st["answer"].Replies; n > 0 {
		t.Errorf("the harness answer template was asked %d times", n)
	}
	for _, name := range []string{"node_metadata", "path_evolution", "atomic_fact_miner", "assistant_artifact_miner", "event_miner",
		"state_slot_miner", "system_anchor", "session_summary"} {
		if st[name].Replies == 0 {
			t.Errorf("prompt %s was never asked", name)
		}
	}
	for name, p := range st {
		if p.Unparseable > 0 || p.Repairs > 0 {
			t.Errorf("%s: %d unparseable replies, %d repairs without noise", name, p.Unparseable, p.Repairs)
		}
	}
	if !slices.Contains(cfg.Models.Embed.Endpoints, cfg.Models.Chat.Endpoints[0]) {
		t.Error("embed role not on the fake")
	}
	// Every table of a run against the fake says what it measures.
	files, _ := filepath.Glob(filepath.Join(res.Dir, "tables", "*.json"))
	if len(files) == 0 {
		t.Fatal("no tables written")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		tb := readTable(t, res.Dir, name)
		if !strings.Contains(tb.Caption, "plumbing and parsing, not memory quality") {
			t.Errorf("%s: caption does not say the fake measures plumbing: %q", name, tb.Caption)
		}
	}
}

// slowDeadline bounds a test that makes thousands of loopback calls: under
// -race on a loaded machine they take minutes, not seconds.
func slowDeadline(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// A model-judged benchmark records its judge model in every sample (table
// captions name it); a rule-scored one records none.
func TestSamplesNameTheirJudge(t *testing.T) {
	srv := openaifake.New(openaifake.Options{})
	defer srv.Close()
	base := testConfig(t)
	cfg := SpeakingConfig(base, srv.URL, base.Models.Embed.Dim, 2)
	cfg.Models.Judge.Endpoints[0].Model = "judge-model"
	for bench, want := range map[string]string{"longmemeval": "judge-model", "beam": "judge-model", "branchmemeval": ""} {
		d, err := newDeps(context.Background(), cfg, bench)
		if err != nil {
			t.Fatal(err)
		}
		if d.judge != want {
			t.Errorf("%s: judge %q, want %q", bench, d.judge, want)
		}
		d.close()
	}
	d, err := newDeps(context.Background(), base, "longmemeval")
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if d.judge != "" {
		t.Errorf("the offline lexical judge is named as a judge model: %q", d.judge)
	}
}

// TestPaperPromptsOnSpeakingFake: with the paper's own prompts written by
// `arbor prompts import` as prompts_dir, and the speaking fake taught their
// wording, every request is recognised and every reply parses. Skipped when
// the paper's source is not beside the repository (it never ships in it).
func TestPaperPromptsOnSpeakingFake(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "arbormem-paper.tex"))
	if err != nil {
		t.Skipf("the paper's LaTeX source is not beside the repository: %v", err)
	}
	dir := t.TempDir()
	if _, err := importer.Import(string(src), dir, nil); err != nil {
		t.Fatal(err)
	}
	paper, err := prompt.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	sp, cfg := speakingFake(t, fake.Options{Prompts: []*prompt.Set{paper}})
	cfg.PromptsDir = dir
	res, err := Run(slowDeadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"bm25", "arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Samples {
		if s.Error != "" {
			t.Errorf("%s: %s", s.Key(), s.Error)
		}
	}
	for _, e := range res.Episodes {
		if e.Degraded.Any() {
			t.Errorf("episode %s/%s: degraded with the paper's prompts: %+v", e.Episode, e.System, *e.Degraded)
		}
	}
	st := sp.Stats()
	if u := st[fake.Unrecognised]; u.Replies > 0 {
		t.Errorf("%d requests in the paper's wording matched no prompt", u.Replies)
	}
	for _, name := range []string{"node_metadata", "path_evolution", "atomic_fact_miner", "system_anchor"} {
		if st[name].Replies == 0 {
			t.Errorf("prompt %s was never asked", name)
		}
	}
}
