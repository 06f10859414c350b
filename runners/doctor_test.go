package runners

import (
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// doctorOn runs the doctor against a speaking fake with the given switches;
// edit adjusts the config made for it (every role at the fake).
func doctorOn(t *testing.T, sopts fake.Options, fopts openaifake.Options, opts DoctorOptions, edit func(*config.Config)) *DoctorReport {
	t.Helper()
	sp, err := fake.New(sopts)
	if err != nil {
		t.Fatal(err)
	}
	srv := openaifake.New(sp.Install(fopts))
	defer srv.Close()
	base := testConfig(t, "retry: {max_attempts: 2, base_delay: 1ms, max_delay: 5ms}\n")
	cfg := SpeakingConfig(base, srv.URL, base.Models.Embed.Dim, 8)
	if edit != nil {
		edit(cfg)
	}
	r, err := Doctor(slowDeadline(t), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func dump(r *DoctorReport) string {
	var b strings.Builder
	WriteDoctor(&b, r)
	return b.String()
}

// With every switch of the realistic fake off, the doctor passes: no line
// fails or warns, the slice parses and grows a forest that is neither flat
// nor a chain, and the steps get an estimate.
func TestDoctorPassesOnTheRealisticFake(t *testing.T) {
	r := doctorOn(t, fake.Options{}, openaifake.Options{RerankScale: openaifake.RerankAsAsked}, DoctorOptions{Episodes: 1, NoReadings: true}, nil)
	if r.Failed() > 0 || r.Warned() > 0 {
		t.Fatalf("%d fail, %d warn:\n%s", r.Failed(), r.Warned(), dump(r))
	}
	for _, want := range [][2]string{{"chat", "thinking"}, {"embed", "normalised"}, {"rerank", "score scale"}, {"tokenizer", "counts"}, {"slice", "forest"}, {"slice", "node_metadata"}} {
		if _, ok := r.Line(want[0], want[1]); !ok {
			t.Errorf("no %s %s line:\n%s", want[0], want[1], dump(r))
		}
	}
	if r.Slice == nil || r.Slice.Forest.Committed == 0 || len(r.Steps) != len(PaperSteps) || r.Assumption == "" {
		t.Fatalf("slice or estimate missing:\n%s", dump(r))
	}
}

// Each fault switch of the fake is reported, fail or warn, with the config
// key to change.
func TestDoctorNamesTheFixOfEveryFault(t *testing.T) {
	cases := []struct {
		name    string
		sopts   fake.Options
		fopts   openaifake.Options
		edit    func(*config.Config)
		area    string
		check   string
		verdict string
		key     string
	}{
		{name: "probabilities where logits are read", fopts: openaifake.Options{RerankScale: openaifake.RerankProbability},
			edit: func(c *config.Config) { c.Models.Rerank.API = "tei" }, area: "rerank", check: "score scale", verdict: VerdictFail, key: "models.rerank.scores: probability"},
		{name: "logits where probabilities are read", fopts: openaifake.Options{RerankScale: openaifake.RerankLogit},
			area: "rerank", check: "score scale", verdict: VerdictFail, key: "models.rerank.scores: logit"},
		{name: "thinking", fopts: openaifake.Options{RerankScale: openaifake.RerankAsAsked, Thinking: true},
			area: "chat", check: "thinking", verdict: VerdictFail, key: "answer.enable_thinking: false"},
		{name: "embedding dimension", sopts: fake.Options{Dim: 768}, fopts: openaifake.Options{RerankScale: openaifake.RerankAsAsked},
			area: "embed", check: "dimension", verdict: VerdictFail, key: "models.embed.dim: 768"},
		{name: "unnormalised embeddings", fopts: openaifake.Options{RerankScale: openaifake.RerankAsAsked, EmbedUnnormalised: true},
			area: "embed", check: "normalised", verdict: VerdictWarn, key: "models.embed"},
		{name: "tokenizer skew", fopts: openaifake.Options{RerankScale: openaifake.RerankAsAsked, TokenizerSkew: 0.1},
			area: "tokenizer", check: "counts", verdict: VerdictFail, key: "models.tokenizer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := doctorOn(t, c.sopts, c.fopts, DoctorOptions{NoSlice: true}, c.edit)
			l, ok := r.Line(c.area, c.check)
			if !ok || l.Verdict != c.verdict || !strings.Contains(l.Fix, c.key) {
				t.Fatalf("want %s %s %s naming %q, got %+v:\n%s", c.area, c.check, c.verdict, c.key, l, dump(r))
			}
			if c.edit == nil && c.sopts.Dim == 0 {
				// The switch is the only fault: every other line is ok.
				if n := r.Failed() + r.Warned(); n != 1 {
					t.Errorf("%d lines not ok, want 1:\n%s", n, dump(r))
				}
			}
		})
	}
	// Thinking turned off as the fix says: the fake honours it.
	r := doctorOn(t, fake.Options{}, openaifake.Options{RerankScale: openaifake.RerankAsAsked, Thinking: true}, DoctorOptions{NoSlice: true},
		func(c *config.Config) { off := false; c.Answer.EnableThinking = &off })
	if l, _ := r.Line("chat", "thinking"); l.Verdict != VerdictOK {
		t.Errorf("answer.enable_thinking false: %+v", l)
	}
}

// The slice's lines: noisy replies lower the parse rates, and a τ off the
// reranker's scale flattens the forest; each is reported with the keys to
// change, and the readings show the way out.
func TestDoctorSliceFindsNoiseAndAFlatForest(t *testing.T) {
	t.Run("noise", func(t *testing.T) {
		r := doctorOn(t, fake.Options{Noise: 0.5, Seed: 3}, openaifake.Options{RerankScale: openaifake.RerankAsAsked}, DoctorOptions{Episodes: 1, NoReadings: true}, nil)
		l, ok := r.Line("slice", "node_metadata")
		if !ok || l.Verdict == VerdictOK || !strings.Contains(l.Fix, "arbormem.memory_op_max_tokens") {
			t.Fatalf("noise 0.5: node_metadata %+v:\n%s", l, dump(r))
		}
	})
	t.Run("flat forest", func(t *testing.T) {
		// τ far above the scale of the scores: every turn a new root.
		r := doctorOn(t, fake.Options{}, openaifake.Options{RerankScale: openaifake.RerankAsAsked}, DoctorOptions{Episodes: 1},
			func(c *config.Config) { c.ArborMem.Tau = 40 })
		l, ok := r.Line("slice", "forest")
		if !ok || l.Verdict != VerdictWarn || !strings.Contains(l.Fix, "models.rerank.scores") {
			t.Fatalf("forest %+v:\n%s", l, dump(r))
		}
		if len(r.Slice.Readings) != len(arbormem.Readings) {
			t.Fatalf("%d readings", len(r.Slice.Readings))
		}
		// The readings set τ back to the paper's scale: fewer roots.
		for _, f := range r.Slice.Readings {
			if f.Reading == "tau=6" && f.NewRootShare() >= r.Slice.Forest.NewRootShare() {
				t.Errorf("tau=6 %.2f new roots, configured %.2f", f.NewRootShare(), r.Slice.Forest.NewRootShare())
			}
		}
		if !strings.Contains(dump(r), "tau=10") {
			t.Errorf("readings not printed:\n%s", dump(r))
		}
	})
}

func FuzzParseModels(f *testing.F) {
	for _, s := range []string{`{"object":"list","data":[{"id":"m","max_model_len":40960}]}`, `{"data":[{"id":"a"},{"id":"b","max_model_len":null}]}`,
		`{"data":[{"id":"m","max_model_len":1.5}]}`, `{"data":[{"id":""}]}`, `[]`, `{"data":[{"id":"m","max_model_len":-1}]}`, `{"data":[{"id":"m","max_model_len":"x"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := ParseModels(b)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.ID == "" || m.MaxModelLen < 0 {
				t.Fatalf("%q: %+v", b, m)
			}
		}
	})
}

func FuzzParseEmbeddings(f *testing.F) {
	for _, s := range []string{`{"data":[{"index":1,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`, `{"data":[{"index":0,"embedding":[]}]}`,
		`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, `{"data":[{"index":5,"embedding":[1]}]}`, `null`} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		vs, err := ParseEmbeddings(b, n)
		if err != nil {
			return
		}
		if len(vs) != n {
			t.Fatalf("%d vectors for %d", len(vs), n)
		}
		for i, v := range vs {
			if len(v) == 0 {
				t.Fatalf("vector %d empty", i)
			}
		}
	})
}

func TestScoreScale(t *testing.T) {
	if ScoreScale([]float64{0.99, 0.01}) != "probability" || ScoreScale([]float64{0.5, -3}) != "logit" || ScoreScale([]float64{1.2}) != "logit" {
		t.Error("ScoreScale")
	}
}
