package runners

import (
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/record"
)

// TestFaultSoak runs the whole model path (ArborMem's memory operations,
// embeddings, reranks, answers, judges) against the speaking fake with 20%
// of the replies varied by noise (reasoning blocks, fences, prose, trailing
// commas, single quotes, truncation), twice: once fault-free, once with 30% of
// chat, embed and rerank requests failing (5xx, 429 with Retry-After,
// truncated bodies, dropped connections, and hangs past the endpoint's
// timeout in the long form). The faulty run must complete with the same
// samples as the fault-free one (the retry budget suffices), and its
// degraded counts must equal the fault-free run's, which equal the replies
// the fake made unrepairable: injected transport faults are all recovered,
// unparseable replies are all counted. ARBOR_SOAK_EPISODES (default 1) sets
// the length; the long form also injects hangs.
func TestFaultSoak(t *testing.T) {
	episodes := 1
	long := false
	if v := os.Getenv("ARBOR_SOAK_EPISODES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("ARBOR_SOAK_EPISODES=%q: want a positive number", v)
		}
		episodes, long = n, true
	}
	run := func(faults float64) ([]record.Sample, []record.EpisodeStat, *openaifake.Server, map[string]fake.PromptStats) {
		sp, err := fake.New(fake.Options{Noise: 0.2, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		kinds := []openaifake.Fault{openaifake.Status500, openaifake.Status429, openaifake.Truncate, openaifake.Drop}
		if long {
			kinds = append(kinds, openaifake.Hang)
		}
		srv := openaifake.New(sp.Install(openaifake.Options{FaultRate: faults, FaultSeed: 11, FaultKinds: kinds, RetryAfter: "0", Hang: 3 * time.Second}))
		t.Cleanup(srv.Close)
		base := testConfig(t, "retry: {max_attempts: 10, base_delay: 1ms, max_delay: 5ms}\n")
		cfg := SpeakingConfig(base, srv.URL, base.Models.Embed.Dim, 8)
		// A hang costs one endpoint timeout before the retry.
		for _, role := range []*config.Role{&cfg.Models.Chat, &cfg.Models.Judge, &cfg.Models.Embed, &cfg.Models.Rerank} {
			eps := append([]config.Endpoint(nil), role.Endpoints...)
			for i := range eps {
				eps[i].Timeout = 2 * time.Second
			}
			role.Endpoints = eps
		}
		res, err := Run(slowDeadline(t), Plan{Benchmark: "branchmemeval", Limit: episodes, Systems: []string{"arbormem"},
			Config: cfg, Out: io.Discard, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		return res.Samples, res.Episodes, srv, sp.Stats()
	}
	clean, cleanEps, _, cleanStats := run(0)
	faulty, faultyEps, srv, _ := run(0.3)

	injected := int64(0)
	for _, n := range srv.Injected() {
		injected += n
	}
	if injected == 0 {
		t.Fatal("no fault was injected")
	}
	want := map[string]record.Sample{}
	for _, s := range clean {
		want[s.Key()] = s
	}
	if len(faulty) != len(clean) {
		t.Fatalf("%d samples with faults, %d without", len(faulty), len(clean))
	}
	for _, s := range faulty {
		w := want[s.Key()]
		if s.Error != "" {
			t.Errorf("%s: error sample %q (the retry budget should suffice)", s.Key(), s.Error)
			continue
		}
		if s.Prediction != w.Prediction || s.PrimaryScore() != w.PrimaryScore() || s.EvidenceTokens != w.EvidenceTokens {
			t.Errorf("%s: with faults %q (score %v, %d tokens), without %q (score %v, %d tokens)", s.Key(),
				s.Prediction, s.PrimaryScore(), s.EvidenceTokens, w.Prediction, w.PrimaryScore(), w.EvidenceTokens)
		}
	}
	sum := func(eps []record.EpisodeStat) record.Degraded {
		var d record.Degraded
		for _, e := range eps {
			d.Add(e.Degraded)
		}
		return d
	}
	dc, df := sum(cleanEps), sum(faultyEps)
	unrepairable, noisy := 0, 0
	for _, st := range cleanStats {
		unrepairable += st.UnparseableRepairs
		for _, n := range st.Noisy {
			noisy += n
		}
	}
	if noisy == 0 {
		t.Fatal("the fake varied no reply")
	}
	if dc.BadReplies != unrepairable {
		t.Errorf("fault-free run: %d bad replies counted, the fake made %d unrepairable", dc.BadReplies, unrepairable)
	}
	if df.BadReplies != dc.BadReplies || df.Fallbacks != dc.Fallbacks || df.Repaired != dc.Repaired || df.ModelErrors != 0 || df.IngestErrors != 0 {
		t.Errorf("degraded with %d injected faults %+v, without %+v: every transport fault must be recovered, every unparseable reply counted", injected, df, dc)
	}
	t.Logf("%d faults injected (%v); %d replies varied; degraded %+v; fake's unrepairable replies %d", injected, srv.Injected(), noisy, df, unrepairable)
}
