package runners

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table/tabletest"
)

// wantKeys is every sample key a plan over eps with systems and the
// config's budget must leave behind.
func wantKeys(eps []datasets.Episode, systems []string, budget int) map[string]int {
	want := map[string]int{}
	for _, e := range eps {
		for _, q := range e.Questions() {
			for _, sys := range systems {
				want[record.Sample{Benchmark: "branchmemeval", Episode: e.ID, Question: q.ID, System: sys, Budget: budget}.Key()] = 1
			}
		}
	}
	return want
}

// TestEvalOfflineGolden runs every native system over the first two
// sessions of the shipped BranchMemEval set with the offline default and
// compares the tables with golden files.
func TestEvalOfflineGolden(t *testing.T) {
	cfg := testConfig(t)
	var out strings.Builder
	res, err := Run(context.Background(), Plan{Benchmark: "branchmemeval", Limit: 2, Config: cfg, Out: &out, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	eps := episodes(t, 2)
	sameKeys(t, sampleKeys(t, filepath.Join(res.Dir, "samples.jsonl")), wantKeys(eps, DefaultSystems, cfg.Answer.Budget))
	for _, s := range res.Samples {
		if s.Error != "" {
			t.Errorf("%s: %s", s.Key(), s.Error)
		}
		if !slices.Contains(s.Heuristic, "answerer") {
			t.Errorf("%s: offline answers are not labelled heuristic: %v", s.Key(), s.Heuristic)
		}
		if s.Primary != "bme-rules" || s.Scores["bme-rules"].Outcome == "" {
			t.Errorf("%s: not scored by the BranchMemEval rules: %+v", s.Key(), s.Scores)
		}
	}
	if want := len(eps) * len(DefaultSystems); len(res.Episodes) != want {
		t.Errorf("episodes.jsonl has %d records, want %d (one per episode and system)", len(res.Episodes), want)
	}
	for _, e := range res.Episodes {
		if e.Localizes != (e.System == "arbormem") {
			t.Errorf("%s/%s: localizes=%v", e.Episode, e.System, e.Localizes)
		}
	}
	m, err := record.ReadManifest(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != "eval" || m.Benchmark != "branchmemeval" || m.Fingerprint == "" || !slices.Equal(m.Systems, DefaultSystems) {
		t.Errorf("manifest: %+v", m)
	}

	tables := mdTables(t, res.Dir)
	for _, name := range []string{"main", "categories", "bme", "cost"} {
		text, ok := tables[name+".md"]
		if !ok {
			t.Fatalf("no tables/%s.md", name)
		}
		tabletest.Golden(t, filepath.Join("testdata", "golden", "offline-"+name+".md"), []byte(text))
	}
	// An eval prints the main table (diagnostics with --tables all), then
	// where the tables are.
	printed := tables["main.md"] + "\n" + fmt.Sprintf("results: %s (tables in %s)\n", res.Dir, filepath.Join(res.Dir, "tables"))
	if out.String() != printed {
		t.Errorf("printed output:\n%s\nwant:\n%s", out.String(), printed)
	}
}

// TestEvalChatScripted runs every system with answers and session summaries
// through a fake answer model that replies with the gold answer to a known
// share of the questions: every table must show exactly that share.
func TestEvalChatScripted(t *testing.T) {
	eps := episodes(t, 3)
	qs := questions(eps)
	sc := newScript(qs)
	fake := openaifake.New(openaifake.Options{Reply: sc.reply})
	defer fake.Close()
	cfg := testConfig(t, chatYAML(fake, 4))
	res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 3, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sameKeys(t, sampleKeys(t, filepath.Join(res.Dir, "samples.jsonl")), wantKeys(eps, DefaultSystems, cfg.Answer.Budget))
	if len(sc.right) == 0 || len(sc.right) == len(qs) {
		t.Fatalf("script answers %d of %d questions right; the test needs both kinds", len(sc.right), len(qs))
	}
	for _, s := range res.Samples {
		want := wrongReply
		if sc.right[s.Question] {
			want = s.Gold
		}
		if s.Error != "" || s.Prediction != want {
			t.Errorf("%s: prediction %q (error %q), scripted %q", s.Key(), s.Prediction, s.Error, want)
		}
		if slices.Contains(s.Heuristic, "answerer") || (s.System == "summary" && slices.Contains(s.Heuristic, "memory-ops")) {
			t.Errorf("%s: chat-backed steps labelled heuristic: %v", s.Key(), s.Heuristic)
		}
		if c := s.Calls["chat"]; c.Count != 1 {
			t.Errorf("%s: %d chat calls recorded for the answer, want 1", s.Key(), c.Count)
		}
	}
	ingestCalls := 0
	for _, e := range res.Episodes {
		ingestCalls += e.Calls["chat"].Count
	}
	if n := sc.summaries.Load(); n == 0 || int64(ingestCalls) != n {
		t.Errorf("the summary baseline asked for %d summaries; episode records count %d chat calls", n, ingestCalls)
	}
	share := 100 * float64(len(sc.right)) / float64(len(qs))
	main, bme := readTable(t, res.Dir, "main"), readTable(t, res.Dir, "bme")
	for _, sys := range DefaultSystems {
		name := map[string]string{"full": "Full", "recent": "Recent", "bm25": "BM25", "summary": "Summary", "arbormem": "ArborMem"}[sys]
		if got := main.value(t, "BranchMemEval", name); math.Abs(got-share) > 1e-9 {
			t.Errorf("main table %s: accuracy %.4f, scripted %.4f", name, got, share)
		}
		if got := bme.value(t, name, "Overall"); math.Abs(got-share) > 1e-9 {
			t.Errorf("bme table %s: accuracy %.4f, scripted %.4f", name, got, share)
		}
		if got := bme.value(t, name, "Correct"); int(got) != len(sc.right) {
			t.Errorf("bme table %s: %v correct, scripted %d", name, got, len(sc.right))
		}
		if got := bme.value(t, name, "Miss"); int(got) != len(qs)-len(sc.right) {
			t.Errorf("bme table %s: %v misses, scripted %d", name, got, len(qs)-len(sc.right))
		}
	}
}

// TestEvalEndpointErrorIsRecorded makes the answer model reject one request
// with a 400 (not retried): that question becomes an error sample, the run
// goes on, and the tables count the failure as a wrong answer.
func TestEvalEndpointErrorIsRecorded(t *testing.T) {
	eps := episodes(t, 2)
	qs := questions(eps)
	sc := newScript(qs)
	const failed = 2 // the third answer request, i.e. the third question with one worker
	fake := openaifake.New(openaifake.Options{Reply: sc.reply, FaultAt: map[int]openaifake.Fault{failed: openaifake.Status400}})
	defer fake.Close()
	cfg := testConfig(t, chatYAML(fake, 1))
	cfg.Run.Workers = 1
	res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 2, Systems: []string{"bm25"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	// The run records every sample and renders the tables, then fails:
	// without --allow-errors a failed sample makes the exit non-zero.
	if !errors.Is(err, ErrDegraded) || res == nil || !strings.Contains(err.Error(), "1 failed samples") {
		t.Fatalf("a run with one failed sample returned %v (outcome %v); want ErrDegraded with the outcome", err, res != nil)
	}
	sameKeys(t, sampleKeys(t, filepath.Join(res.Dir, "samples.jsonl")), wantKeys(eps, []string{"bm25"}, cfg.Answer.Budget))
	if n := fake.Injected()[openaifake.Status400]; n != 1 {
		t.Fatalf("%d faults injected, want 1", n)
	}
	if n := fake.PathStats("/v1/chat/completions").Requests; n != int64(len(qs)) {
		t.Errorf("%d chat requests for %d questions: the 400 was retried or a question skipped", n, len(qs))
	}
	right := 0
	for _, s := range res.Samples {
		isFailed := s.Question == qs[failed].ID
		if isFailed != (s.Error != "") {
			t.Errorf("%s: error %q; only %s should have failed", s.Key(), s.Error, qs[failed].ID)
		}
		if isFailed {
			if !strings.HasPrefix(s.Error, "answer:") || !strings.Contains(s.Error, "400") {
				t.Errorf("error sample does not say what failed: %q", s.Error)
			}
			if s.Calls["chat"].Errors != 1 {
				t.Errorf("error sample records calls %+v, want one failed chat call", s.Calls)
			}
			continue
		}
		if sc.right[s.Question] {
			right++
		}
	}
	main, bme := readTable(t, res.Dir, "main"), readTable(t, res.Dir, "bme")
	want := 100 * float64(right) / float64(len(qs))
	if got := main.value(t, "BranchMemEval", "BM25"); math.Abs(got-want) > 1e-9 {
		t.Errorf("accuracy %.4f, want %.4f (the failed question counted as wrong)", got, want)
	}
	if got := bme.value(t, "BM25", "Error"); got != 1 {
		t.Errorf("bme table Error column = %v, want 1", got)
	}
	if !slices.ContainsFunc(main.Notes, func(n string) bool { return strings.Contains(n, "1 failed sample counted as wrong answers") }) {
		t.Errorf("main table notes do not count the failed sample: %q", main.Notes)
	}

	// Resuming without --retry-errors keeps the error; with it, only the
	// failed question is answered again and its new line supersedes the old.
	plan := Plan{Benchmark: "branchmemeval", Limit: 2, Systems: []string{"bm25"}, Config: cfg, Out: io.Discard, Log: io.Discard,
		Integrity: Integrity{AllowErrors: true}}
	if _, err := Run(deadline(t), plan); err != nil {
		t.Fatalf("--allow-errors: %v", err)
	}
	before := fake.PathStats("/v1/chat/completions").Requests
	if before != int64(len(qs)) {
		t.Fatalf("a plain resume answered again: %d requests", before)
	}
	plan.RetryErrors = true
	res, err = Run(deadline(t), plan)
	if err != nil {
		t.Fatal(err)
	}
	if n := fake.PathStats("/v1/chat/completions").Requests - before; n != 1 {
		t.Fatalf("--retry-errors made %d chat requests, want 1 (the failed question)", n)
	}
	lines, err := record.ReadLog[record.Sample](filepath.Join(res.Dir, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != len(qs) || len(lines) != len(qs)+1 {
		t.Fatalf("%d lines, %d samples; want %d lines (one superseded) and %d samples", len(lines), len(res.Samples), len(qs)+1, len(qs))
	}
	for _, s := range res.Samples {
		if s.Error != "" {
			t.Errorf("%s still an error after retry: %s", s.Key(), s.Error)
		}
	}
	if notes := readTable(t, res.Dir, "main").Notes; slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "failed sample") }) {
		t.Errorf("main table still counts failed samples after the retry: %q", notes)
	}
}

// TestInterruptLeavesNoErrorSamples cancels a run while answers are in
// flight: the interrupted answers must not be recorded (as error samples
// they would never be retried), and the resumed run completes the plan.
func TestInterruptLeavesNoErrorSamples(t *testing.T) {
	eps := episodes(t, 3)
	sc := newScript(questions(eps))
	ctx, cancel := context.WithCancel(deadline(t))
	defer cancel()
	var calls atomic.Int64
	fake := openaifake.New(openaifake.Options{FirstTokenLatency: 50 * time.Millisecond, Reply: func(r openaifake.Request) string {
		if calls.Add(1) == 4 {
			cancel() // while this request and its siblings are in flight
		}
		return sc.reply(r)
	}})
	defer fake.Close()
	cfg := testConfig(t, chatYAML(fake, 2))
	plan := Plan{Benchmark: "branchmemeval", Limit: 3, Systems: []string{"bm25", "full"}, RunID: "interrupted", Config: cfg, Out: io.Discard, Log: io.Discard}
	if _, err := Run(ctx, plan); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v, want context.Canceled", err)
	}
	path := filepath.Join(cfg.Run.Results, "interrupted", "samples.jsonl")
	recs, err := record.ReadLog[record.Sample](path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range recs {
		if s.Error != "" {
			t.Errorf("interrupted answer recorded as a sample: %s: %s", s.Key(), s.Error)
		}
	}
	res, err := Run(deadline(t), plan)
	if err != nil {
		t.Fatal(err)
	}
	sameKeys(t, sampleKeys(t, path), wantKeys(eps, plan.Systems, cfg.Answer.Budget))
	for _, s := range res.Samples {
		if s.Error != "" {
			t.Errorf("%s: %s", s.Key(), s.Error)
		}
	}
}

// TestResumeAfterLostLines cuts a finished run's log back to a few samples
// and a torn line, as a killed run leaves it: re-running repairs the log,
// makes exactly the missing samples and renders the same tables.
func TestResumeAfterLostLines(t *testing.T) {
	cfg := testConfig(t)
	plan := Plan{Benchmark: "branchmemeval", Limit: 2, Systems: []string{"bm25", "recent"}, Config: cfg, Out: io.Discard, Log: io.Discard}
	ref, err := Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	cfg2 := *cfg
	cfg2.Run.Results = t.TempDir()
	plan.Config = &cfg2
	res, err := Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(res.Dir, "samples.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	kept := strings.Join(lines[:3], "") + `{"benchmark":"branchmemeval","episode":"s0`
	if err := os.WriteFile(path, []byte(kept), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	plan.Log = &log
	if _, err := Run(context.Background(), plan); err != nil {
		t.Fatalf("resume over a torn line: %v", err)
	}
	if !strings.Contains(log.String(), "repaired") {
		t.Errorf("the repair of the torn line was not reported: %q", log.String())
	}
	sameKeys(t, sampleKeys(t, path), sampleKeys(t, filepath.Join(ref.Dir, "samples.jsonl")))
	sameTables(t, res.Dir, ref.Dir)

	// A kill after an episode's last sample but before its episode record
	// (the last commits come in between) leaves every sample recorded: the
	// re-run must still replay that episode to record it.
	epath := filepath.Join(res.Dir, "episodes.jsonl")
	b, err = os.ReadFile(epath)
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	if err := os.WriteFile(epath, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	sameKeys(t, episodeKeys(t, epath), episodeKeys(t, filepath.Join(ref.Dir, "episodes.jsonl")))
	sameKeys(t, sampleKeys(t, path), sampleKeys(t, filepath.Join(ref.Dir, "samples.jsonl")))
	sameTables(t, res.Dir, ref.Dir)
}

func episodeKeys(t testing.TB, path string) map[string]int {
	t.Helper()
	recs, err := record.ReadLog[record.EpisodeStat](path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range recs {
		out[e.Key()]++
	}
	return out
}

// TestResumeRefusesDifferentConfig resumes a run with a changed
// hyperparameter: refused unless forced. Run-local settings (workers) do
// not count as a different config.
func TestResumeRefusesDifferentConfig(t *testing.T) {
	cfg := testConfig(t)
	plan := Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"bm25"}, RunID: "fp", Config: cfg, Out: io.Discard, Log: io.Discard}
	if _, err := Run(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	old, err := record.ReadManifest(filepath.Join(cfg.Run.Results, "fp"))
	if err != nil {
		t.Fatal(err)
	}
	local := *cfg
	local.Run.Workers = 3
	plan.Config = &local
	if _, err := Run(context.Background(), plan); err != nil {
		t.Fatalf("a different worker count was refused: %v", err)
	}
	changed := *cfg
	changed.Baselines.BM25Units++
	plan.Config = &changed
	_, err = Run(context.Background(), plan)
	if err == nil || !strings.Contains(err.Error(), "different config") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("resume with a changed config: %v, want a refusal naming --force", err)
	}
	plan.Force = true
	if _, err := Run(context.Background(), plan); err != nil {
		t.Fatalf("forced resume: %v", err)
	}
	m, err := record.ReadManifest(filepath.Join(cfg.Run.Results, "fp"))
	if err != nil {
		t.Fatal(err)
	}
	// Nothing was left to do: the manifest must not now claim the old
	// samples for the new config.
	if m.Fingerprint != old.Fingerprint || len(m.History) != 1 {
		t.Errorf("forced resume with nothing to do rewrote the manifest: fingerprint %s (was %s), history %d", m.Fingerprint, old.Fingerprint, len(m.History))
	}
	// Adding a system under the changed config: the manifest lists both
	// configs, each with the samples it made.
	plan.Systems = []string{"bm25", "recent"}
	plan.Command = []string{"arbor", "eval", "branchmemeval", "--force"}
	res, err := Run(context.Background(), plan)
	if err != nil {
		t.Fatalf("forced resume with a new system: %v", err)
	}
	m, err = record.ReadManifest(filepath.Join(cfg.Run.Results, "fp"))
	if err != nil {
		t.Fatal(err)
	}
	half := len(res.Samples) / 2
	if len(m.History) != 2 || m.History[0].Fingerprint != old.Fingerprint || m.History[1].Fingerprint != m.Fingerprint ||
		m.Fingerprint == old.Fingerprint || m.History[0].Samples != half || m.History[1].Samples != half ||
		!slices.Equal(m.History[1].Commands[0], plan.Command) || !m.Created.Equal(old.Created) {
		t.Errorf("manifest after --force: fingerprint %s (was %s), history %+v", m.Fingerprint, old.Fingerprint, m.History)
	}
	for _, s := range res.Samples {
		if want := map[string]string{"bm25": old.Fingerprint, "recent": m.Fingerprint}[s.System]; s.Fingerprint != want {
			t.Errorf("%s: fingerprint %s, want %s", s.Key(), s.Fingerprint, want)
		}
	}
}

// TestMissingManifestIsNoLoophole: deleting or corrupting manifest.json
// must not let a resume under another config mix samples unseen.
func TestMissingManifestIsNoLoophole(t *testing.T) {
	cfg := testConfig(t)
	plan := Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"bm25"}, RunID: "nomani", Config: cfg, Out: io.Discard, Log: io.Discard}
	if _, err := Run(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg.Run.Results, "nomani", "manifest.json")
	for _, damage := range []func() error{func() error { return os.Remove(path) }, func() error { return os.WriteFile(path, []byte("{not json"), 0o644) }} {
		if err := damage(); err != nil {
			t.Fatal(err)
		}
		changed := *cfg
		changed.Baselines.BM25Units++
		p := plan
		p.Config = &changed
		if _, err := Run(context.Background(), p); err == nil || !strings.Contains(err.Error(), "another config") {
			t.Errorf("resume under another config without a manifest: %v", err)
		}
		// The same config resumes, and the manifest is rebuilt.
		if _, err := Run(context.Background(), plan); err != nil {
			t.Errorf("resume under the samples' own config: %v", err)
		}
		if _, err := record.ReadManifest(filepath.Dir(path)); err != nil {
			t.Errorf("manifest not rebuilt: %v", err)
		}
	}
}

// TestMergeShardsEqualsUnsharded runs a plan as two shards and merges them:
// the merged run has the unsharded run's keys, episode records and tables.
func TestMergeShardsEqualsUnsharded(t *testing.T) {
	cfg := testConfig(t)
	plan := Plan{Benchmark: "branchmemeval", Episodes: []string{"s01", "s02", "s03"}, Systems: []string{"bm25", "arbormem"},
		Config: cfg, Out: io.Discard, Log: io.Discard}
	var (
		wg    sync.WaitGroup
		dirs  [3]string
		errs  [3]error
		plans [3]Plan
	)
	for i := range plans {
		plans[i] = plan
		if i > 0 {
			plans[i].Shard = Shard{K: i, N: 2}
		}
		wg.Go(func() {
			res, err := Run(context.Background(), plans[i])
			errs[i] = err
			if err == nil {
				dirs[i] = res.Dir
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatal(err)
	}
	if dirs[1] == dirs[2] || dirs[1] == dirs[0] {
		t.Fatalf("shards share a run folder: %v", dirs)
	}
	merged := filepath.Join(cfg.Run.Results, "merged")
	res, err := Merge(merged, []string{dirs[1], dirs[2]}, false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sameKeys(t, sampleKeys(t, filepath.Join(merged, "samples.jsonl")), sampleKeys(t, filepath.Join(dirs[0], "samples.jsonl")))
	if len(res.Episodes) != 3*2 {
		t.Errorf("merged run has %d episode records, want 6", len(res.Episodes))
	}
	sameTables(t, merged, dirs[0])
	m, err := record.ReadManifest(merged)
	if err != nil {
		t.Fatal(err)
	}
	if m.Shard != "" || m.Kind != "eval" || !slices.Equal(m.Systems, []string{"arbormem", "bm25"}) {
		t.Errorf("merged manifest: shard %q kind %q systems %v", m.Shard, m.Kind, m.Systems)
	}

	// A run made with another config is refused, and so is another
	// benchmark even when forced.
	other := plan
	changed := *cfg
	changed.Baselines.BM25Units++
	other.Config, other.Systems, other.RunID = &changed, []string{"bm25"}, "other"
	if _, err := Run(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(t.TempDir(), []string{dirs[1], filepath.Join(cfg.Run.Results, "other")}, false, io.Discard); err == nil || !strings.Contains(err.Error(), "fingerprint") {
		t.Errorf("merging runs of different configs: %v, want a fingerprint refusal", err)
	}
	lme := filepath.Join(t.TempDir(), "lme")
	if err := os.MkdirAll(lme, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := record.WriteManifest(lme, &record.Manifest{RunID: "lme", Kind: "eval", Benchmark: "longmemeval", Fingerprint: "0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(t.TempDir(), []string{dirs[1], lme}, true, io.Discard); err == nil || !strings.Contains(err.Error(), "longmemeval") {
		t.Errorf("forced merge of two benchmarks: %v, want a refusal", err)
	}
}

// TestRetryErrorsRedoesFailedIngestion: a summary call rejected with a 400
// fails a commit, which marks the episode record as an error (its samples
// are fine). --retry-errors replays that episode and the new record
// supersedes the old one, so cost and localization tables stop counting it.
func TestRetryErrorsRedoesFailedIngestion(t *testing.T) {
	eps := episodes(t, 1)
	sc := newScript(questions(eps))
	fake := openaifake.New(openaifake.Options{Reply: sc.reply, FaultAt: map[int]openaifake.Fault{0: openaifake.Status400}})
	defer fake.Close()
	cfg := testConfig(t, chatYAML(fake, 1))
	cfg.Run.Workers = 1
	cfg.Answer.Answerer = "heuristic" // only the summary's calls reach the fake
	plan := Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"summary"}, Config: cfg, Out: io.Discard, Log: io.Discard}
	res, err := Run(deadline(t), plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Episodes) != 1 || res.Episodes[0].Error == "" {
		t.Fatalf("want one episode record with the failed commit, got %+v", res.Episodes)
	}
	plan.RetryErrors = true
	res, err = Run(deadline(t), plan)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := record.ReadLog[record.EpisodeStat](filepath.Join(res.Dir, "episodes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The log keeps both lines; the run's outcome (and its tables) only the latest.
	if len(lines) != 2 || len(res.Episodes) != 1 || res.Episodes[0].Error != "" {
		t.Fatalf("after --retry-errors: %d lines, outcome %+v; want the error record superseded by a clean one", len(lines), res.Episodes)
	}
}
