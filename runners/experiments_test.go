package runners

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/tokens"
	"github.com/arbor-eval/arbor/scoring"
)

// xpLoCoMo writes a small LoCoMo file (the official layout, see
// datasets/locomo): convs conversations, each with two sessions of four
// turns (two interactions each) and qs single-hop questions about them.
func xpLoCoMo(t testing.TB, convs, qs int) string {
	t.Helper()
	type turn struct {
		Speaker string `json:"speaker"`
		DiaID   string `json:"dia_id"`
		Text    string `json:"text"`
	}
	type qa struct {
		Question string   `json:"question"`
		Answer   string   `json:"answer"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	}
	pets := []string{"parrot", "beagle", "tortoise", "goldfish", "ferret", "canary", "iguana", "hamster"}
	cities := []string{"Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Tunis", "Lima", "Riga"}
	var data []map[string]any
	for c := range convs {
		pet, city := pets[c%len(pets)], cities[(c*3)%len(cities)]
		conv := map[string]any{"speaker_a": "Ana", "speaker_b": "Ben"}
		lines := [][]string{
			{"I adopted a " + pet + " named Pip last week.", "A " + pet + "! How is Pip settling in?", "Pip loves the balcony already.", "That sounds lovely."},
			{"We are moving to " + city + fmt.Sprintf(" in %d.", 2024+c%3), "Big news! Why " + city + "?", "My sister lives in " + city + ".", "Family close by is good."},
		}
		for si, ls := range lines {
			var turns []turn
			for ti, l := range ls {
				sp := "Ana"
				if ti%2 == 1 {
					sp = "Ben"
				}
				turns = append(turns, turn{Speaker: sp, DiaID: fmt.Sprintf("D%d:%d", si+1, ti+1), Text: l})
			}
			conv[fmt.Sprintf("session_%d", si+1)] = turns
			conv[fmt.Sprintf("session_%d_date_time", si+1)] = fmt.Sprintf("1:%02d pm on %d May, 2023", 10+si, 3+si*7)
		}
		asks := []qa{
			{"What pet did Ana adopt?", pet, []string{"D1:1"}, 4},
			{"Where is Ana moving?", city, []string{"D2:1"}, 4},
			{"What is the name of Ana's pet?", "Pip", []string{"D1:1"}, 4},
			{"Who lives in " + city + "?", "Ana's sister", []string{"D2:3"}, 4},
		}
		var q []qa
		for i := range qs {
			q = append(q, asks[i%len(asks)])
		}
		data = append(data, map[string]any{"sample_id": fmt.Sprintf("conv-%02d", c), "conversation": conv, "qa": q})
	}
	b, err := json.MarshalIndent(data, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "locomo-small.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// xpConfig loads yamlText as a --config file over the embedded default, with
// results in a temporary folder, no progress bars and the response cache
// off: identical prompts from concurrent episodes would otherwise be served
// from the cache in an order that varies from run to run.
func xpConfig(t testing.TB, yamlText string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	file := ""
	if yamlText != "" {
		file = filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(file, []byte(yamlText), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(file, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Run.Results = filepath.Join(dir, "results")
	cfg.Cache.Dir = filepath.Join(dir, "cache")
	cfg.Cache.Enabled = false
	cfg.Run.Progress = false
	cfg.Report.Resamples = 400 // as testConfig: intervals are tested at full size in pkg/stats
	return cfg
}

// xpChatYAML points the chat role at urls (max_inflight each).
func xpChatYAML(inflight int, urls ...string) string {
	var b strings.Builder
	b.WriteString("models:\n  chat:\n    provider: openai\n    endpoints:\n")
	for _, u := range urls {
		fmt.Fprintf(&b, "      - {url: %q, model: fake-chat, max_inflight: %d, timeout: 30s}\n", u, inflight)
	}
	return b.String()
}

// xpFake is a counting fake chat endpoint that answers memory operations
// as a speaking fake does (fake), after latency.
func xpFake(t testing.TB, latency time.Duration) *openaifake.Server {
	t.Helper()
	sp, err := fake.New(fake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := openaifake.New(sp.Install(openaifake.Options{FirstTokenLatency: latency}))
	t.Cleanup(f.Close)
	return f
}

// xpChatCalls is the chat calls that reached the endpoint: cache hits are
// recorded as calls but never leave the process.
func xpChatCalls(calls map[string]record.Calls) int {
	return calls["chat"].Count - calls["chat"].CacheHits
}

// xpChatSplit sums the chat calls recorded for ingestion (episode records)
// and for questions (samples).
func xpChatSplit(o *Outcome) (ingest, question int) {
	for _, e := range o.Episodes {
		ingest += xpChatCalls(e.Calls)
	}
	for _, s := range o.Samples {
		question += xpChatCalls(s.Calls)
	}
	return ingest, question
}

func xpNoErrors(t *testing.T, o *Outcome) {
	t.Helper()
	for _, s := range o.Samples {
		if s.Error != "" {
			t.Fatalf("sample %q failed: %s", s.Key(), s.Error)
		}
	}
	for _, e := range o.Episodes {
		if e.Error != "" {
			t.Fatalf("episode %s/%s/%s failed: %s", e.Episode, e.System, e.Variant, e.Error)
		}
	}
}

// TestSweepIngestsOncePerEpisodeAndSystem checks paper §6.3's protocol
// against a fake that counts calls: a sweep over the 8 paper budgets makes
// exactly the memory-operation calls of one ingestion per episode and
// system, the same as a single-budget run, while answering at every budget.
func TestSweepIngestsOncePerEpisodeAndSystem(t *testing.T) {
	data := xpLoCoMo(t, 3, 2)
	systems := []string{"summary", "arbormem"}
	ctx := context.Background()

	oneFake, sweepFake := xpFake(t, 0), xpFake(t, 0)
	one, err := Run(ctx, Plan{Benchmark: "locomo", Data: data, Systems: systems, Budgets: []int{4096},
		Config: xpConfig(t, xpChatYAML(8, oneFake.URL)), Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sweep, err := Sweep(ctx, Plan{Benchmark: "locomo", Data: data, Systems: systems,
		Config: xpConfig(t, xpChatYAML(8, sweepFake.URL)), Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	xpNoErrors(t, one)
	xpNoErrors(t, sweep)

	if got, want := len(sweep.Samples), 3*2*len(systems)*len(PaperBudgets); got != want {
		t.Fatalf("sweep made %d samples, want 3 episodes × 2 questions × %d systems × %d budgets = %d", got, len(systems), len(PaperBudgets), want)
	}
	// One memory instance per episode and system.
	seen := map[string]int{}
	for _, e := range sweep.Episodes {
		seen[e.Episode+"/"+e.System]++
	}
	if len(seen) != 3*len(systems) {
		t.Fatalf("sweep ingested %d (episode, system) pairs, want %d: %v", len(seen), 3*len(systems), seen)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s ingested %d times, want once", k, n)
		}
	}
	// Server-side: whatever the samples did not make was ingestion.
	ingOne, qOne := xpChatSplit(one)
	ingSweep, qSweep := xpChatSplit(sweep)
	if got := int(oneFake.PathStats("/v1/chat/completions").Requests); got != ingOne+qOne {
		t.Fatalf("single-budget run: the fake saw %d chat calls, the records account for %d + %d", got, ingOne, qOne)
	}
	if got := int(sweepFake.PathStats("/v1/chat/completions").Requests); got != ingSweep+qSweep {
		t.Fatalf("sweep: the fake saw %d chat calls, the records account for %d + %d", got, ingSweep, qSweep)
	}
	if ingOne == 0 {
		t.Fatal("no memory-operation calls at all: the check would be vacuous")
	}
	if ingSweep != ingOne {
		t.Errorf("sweep over %d budgets made %d memory-operation calls, a single-budget run %d: ingestion was repeated", len(PaperBudgets), ingSweep, ingOne)
	}
	if qSweep != len(PaperBudgets)*qOne {
		t.Errorf("sweep made %d question-time calls, want %d budgets × %d", qSweep, len(PaperBudgets), qOne)
	}
	// Both systems made memory-operation calls of their own.
	for _, sys := range systems {
		n := 0
		for _, e := range sweep.Episodes {
			if e.System == sys {
				n += xpChatCalls(e.Calls)
			}
		}
		if n == 0 {
			t.Errorf("%s made no memory-operation calls", sys)
		}
	}
	// The read-budget tables are printed for both metrics and the plots written.
	out, err := Report(sweep.Dir, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"budget-accuracy.md", "budget-evidence-recall.md", "budget-accuracy.svg", "budget-evidence-recall.svg"} {
		if _, err := os.Stat(filepath.Join(out.Dir, "tables", f)); err != nil {
			t.Errorf("sweep left no %s: %v", f, err)
		}
	}
}

// TestSweepBudgets checks the budget list: 32k is the paper's exact 30,968,
// and a sweep dedupes and sorts what it is given.
func TestSweepBudgets(t *testing.T) {
	bs, err := ParseBudgets("256,512,1k,2k,4k,8k,16k,32k")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bs, PaperBudgets) || bs[len(bs)-1] != 30968 {
		t.Fatalf("default --budgets parse to %v, want %v ending in 30968", bs, PaperBudgets)
	}
	got, err := checkBudgets([]int{4096, 256, 4096})
	if err != nil || !slices.Equal(got, []int{256, 4096}) {
		t.Fatalf("checkBudgets = %v, %v; want [256 4096]", got, err)
	}
	if _, err := checkBudgets([]int{256, 0}); err == nil {
		t.Fatal("a zero budget was accepted")
	}
}

// TestSweepSubsetStableAcrossRunsAndSystems checks that the sweep subset is
// a function of the seed alone: the same for two runs with different
// systems, different for another seed.
func TestSweepSubsetStableAcrossRunsAndSystems(t *testing.T) {
	data := xpLoCoMo(t, 12, 1)
	ctx := context.Background()
	episodesOf := func(o *Outcome) []string {
		var ids []string
		for _, s := range o.Samples {
			if !slices.Contains(ids, s.Episode) {
				ids = append(ids, s.Episode)
			}
		}
		slices.Sort(ids)
		return ids
	}
	run := func(system string, seed int) []string {
		t.Helper()
		o, err := Sweep(ctx, Plan{Benchmark: "locomo", Data: data, Systems: []string{system}, Budgets: []int{256, 2048},
			Subset: 5, Seed: seed, Config: xpConfig(t, ""), Out: io.Discard, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		return episodesOf(o)
	}
	a, b, c := run("recent", 42), run("bm25", 42), run("recent", 7)
	if len(a) != 5 {
		t.Fatalf("subset of 5 gave %d episodes: %v", len(a), a)
	}
	if !slices.Equal(a, b) {
		t.Errorf("seed 42 gave %v for recent and %v for bm25", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 42 and 7 gave the same subset %v", a)
	}
	if again := run("recent", 42); !slices.Equal(a, again) {
		t.Errorf("seed 42 gave %v, then %v", a, again)
	}
}

// TestAblationSharesIngestionWhereItSays checks appendix C.3's ablation
// against a counting fake: exactly the variants that change commit-time
// behaviour get an ingestion of their own, the recall-only ones are answered
// from the reference instance at no ingestion cost, and the table says which.
func TestAblationSharesIngestionWhereItSays(t *testing.T) {
	data := xpLoCoMo(t, 2, 2)
	ctx := context.Background()
	refFake, ablFake := xpFake(t, 0), xpFake(t, 0)
	ref, err := Run(ctx, Plan{Benchmark: "locomo", Data: data, Systems: []string{"arbormem"}, Budgets: []int{PaperBudget32K},
		Config: xpConfig(t, xpChatYAML(8, refFake.URL)), Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var out, log strings.Builder
	abl, err := Ablate(ctx, Plan{Benchmark: "locomo", Data: data, Config: xpConfig(t, xpChatYAML(8, ablFake.URL)), Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	xpNoErrors(t, ref)
	xpNoErrors(t, abl)

	var shared, separate []string
	for _, v := range AblationVariants[1:] {
		if arbormem.RecallOnly(v) {
			shared = append(shared, v)
		} else {
			separate = append(separate, v)
		}
	}
	if len(shared) == 0 || len(separate) == 0 {
		t.Fatalf("expected both kinds of variants, got shared %v separate %v", shared, separate)
	}
	// Ingestions: the reference build plus one per commit-changing variant.
	builds := map[string]map[string]int{}
	for _, e := range abl.Episodes {
		if builds[e.Episode] == nil {
			builds[e.Episode] = map[string]int{}
		}
		builds[e.Episode][e.Variant] += xpChatCalls(e.Calls)
	}
	if len(builds) != 2 {
		t.Fatalf("ablation ingested %d episodes, want 2", len(builds))
	}
	for ep, b := range builds {
		var got []string
		for v := range b {
			got = append(got, v)
		}
		slices.Sort(got)
		want := append([]string{""}, separate...)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("episode %s was ingested for %q, want %q", ep, got, want)
		}
	}
	// The shared reference ingestion costs what a plain reference run costs.
	refIngest := map[string]int{}
	for _, e := range ref.Episodes {
		refIngest[e.Episode] += xpChatCalls(e.Calls)
	}
	for ep, b := range builds {
		if b[""] != refIngest[ep] || b[""] == 0 {
			t.Errorf("episode %s: the shared reference ingestion made %d chat calls, a reference-only run %d", ep, b[""], refIngest[ep])
		}
	}
	// Nothing else was ingested behind the records' back.
	ing, q := xpChatSplit(abl)
	if got := int(ablFake.PathStats("/v1/chat/completions").Requests); got != ing+q {
		t.Errorf("the fake saw %d chat calls, the records account for %d ingest + %d question", got, ing, q)
	}
	// Every variant answered every question.
	per := map[string]int{}
	for _, s := range abl.Samples {
		per[s.Variant]++
		if s.Budget != PaperBudget32K {
			t.Errorf("%s answered at budget %d, want %d", s.Key(), s.Budget, PaperBudget32K)
		}
	}
	for _, v := range AblationVariants {
		if per[v] != 4 {
			t.Errorf("variant %q has %d samples, want 4", v, per[v])
		}
	}
	// The output and the log say which variants share.
	for name, text := range map[string]string{"table": out.String(), "log": log.String()} {
		gotShared, gotSeparate, ok := xpSharingNote(text)
		if !ok {
			t.Errorf("the %s does not say which variants share ingestion:\n%s", name, text)
			continue
		}
		slices.Sort(gotShared)
		slices.Sort(gotSeparate)
		slices.Sort(shared)
		slices.Sort(separate)
		if !slices.Equal(gotShared, shared) || !slices.Equal(gotSeparate, separate) {
			t.Errorf("the %s says shared %v, separate %v; want %v, %v", name, gotShared, gotSeparate, shared, separate)
		}
	}
}

// xpSharingNote reads the variant lists out of ingestionNote's sentence.
func xpSharingNote(text string) (shared, separate []string, ok bool) {
	_, rest, ok1 := strings.Cut(text, "(recall-only variants): ")
	sh, rest, ok2 := strings.Cut(rest, "; ingested separately: ")
	sep, _, ok3 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || !ok3 {
		return nil, nil, false
	}
	return strings.Split(sh, ", "), strings.Split(sep, ", "), true
}

// TestAblateRejectsWhatItCannotRun checks the early errors.
func TestAblateRejectsWhatItCannotRun(t *testing.T) {
	cfg := xpConfig(t, "")
	for _, p := range []Plan{
		{Benchmark: "branchmemeval", Variants: []string{"", "no-such-variant"}},
		{Benchmark: "branchmemeval", Systems: []string{"bm25"}},
	} {
		p.Config, p.Out, p.Log = cfg, io.Discard, io.Discard
		if _, err := Ablate(context.Background(), p); err == nil {
			t.Errorf("Ablate(%v, %v) succeeded", p.Systems, p.Variants)
		}
	}
}

// TestAblateModelsOneColumnPerModel checks --models: one run per model,
// every combined sample labelled with its model, one column per model in the
// order given.
func TestAblateModelsOneColumnPerModel(t *testing.T) {
	data := xpLoCoMo(t, 2, 2)
	base := xpConfig(t, "")
	a, b := *base, *base
	b.ArborMem.MaxFacts = 3 // a different config, so that the runs' fingerprints differ
	models := []Model{{Name: "zeta-4B", Config: &a}, {Name: "alpha-30B", Config: &b}}
	var out strings.Builder
	o, err := AblateModels(context.Background(), Plan{Benchmark: "locomo", Data: data,
		Variants: []string{"", "no-atomic-facts", "no-structured-extraction"}, Out: &out, Log: io.Discard}, models)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, s := range o.Samples {
		per[s.Labels["model"]]++
	}
	if per["zeta-4B"] != 12 || per["alpha-30B"] != 12 || len(per) != 2 {
		t.Fatalf("samples per model label = %v, want 12 each", per)
	}
	onDisk, err := record.ReadLog[record.Sample](filepath.Join(o.Dir, "samples.jsonl"))
	if err != nil || len(onDisk) != 24 {
		t.Fatalf("combined samples.jsonl has %d samples (%v), want 24", len(onDisk), err)
	}
	for _, m := range models {
		sub := filepath.Join(o.Dir, "models", slug(m.Name), "samples.jsonl")
		if s, err := record.ReadLog[record.Sample](sub); err != nil || len(s) != 12 {
			t.Errorf("model run %s: %d samples, %v", sub, len(s), err)
		}
	}
	var tj struct {
		Columns []struct{ Name string }  `json:"columns"`
		Rows    []struct{ Label string } `json:"rows"`
		Notes   []string                 `json:"notes"`
	}
	b2, err := os.ReadFile(filepath.Join(o.Dir, "tables", "ablation.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b2, &tj); err != nil {
		t.Fatal(err)
	}
	if len(tj.Columns) != 2 || tj.Columns[0].Name != "zeta-4B" || tj.Columns[1].Name != "alpha-30B" {
		t.Errorf("ablation columns = %+v, want zeta-4B then alpha-30B", tj.Columns)
	}
	if len(tj.Rows) != 3 {
		t.Errorf("ablation rows = %+v, want 3", tj.Rows)
	}
	if !strings.Contains(strings.Join(tj.Notes, " "), "ingested separately: no-structured-extraction") {
		t.Errorf("ablation notes do not say which variants share: %q", tj.Notes)
	}
	if !strings.Contains(out.String(), "zeta-4B") {
		t.Errorf("printed table lacks the model column:\n%s", out.String())
	}
	// Re-running resumes every model's run and rebuilds the same combination.
	o2, err := AblateModels(context.Background(), Plan{Benchmark: "locomo", Data: data,
		Variants: []string{"", "no-atomic-facts", "no-structured-extraction"}, Out: io.Discard, Log: io.Discard}, models)
	if err != nil || o2.Dir != o.Dir || len(o2.Samples) != 24 {
		t.Fatalf("re-run: dir %s (was %s), %d samples, %v", o2.Dir, o.Dir, len(o2.Samples), err)
	}
	if _, err := AblateModels(context.Background(), Plan{Benchmark: "locomo", Data: data}, []Model{{Name: "x", Config: &a}, {Name: "x", Config: &b}}); err == nil {
		t.Error("two models with one name were accepted")
	}
}

// TestLatencyFromFakeLatency runs the efficiency comparison against a fake
// with a known first-token latency and checks that the recorded timings and
// the tables built from them are consistent with it: one episode at a time,
// no cached reply, every timing at least the injected latency where a call
// is inside it, and the table's figures equal to the samples' own.
func TestLatencyFromFakeLatency(t *testing.T) {
	const lat = 25 * time.Millisecond
	data := xpLoCoMo(t, 3, 2)
	srv := xpFake(t, lat)
	cfg := xpConfig(t, xpChatYAML(8, srv.URL))
	cfg.Cache.Enabled = true
	ctx := context.Background()
	var out strings.Builder
	o, err := Latency(ctx, Plan{Benchmark: "locomo", Data: data, Systems: []string{"summary", "arbormem"}, Config: cfg, Out: &out, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	xpNoErrors(t, o)
	// A second run under another name: a cached reply would have no latency.
	o2, err := Latency(ctx, Plan{Benchmark: "locomo", Data: data, Systems: []string{"summary"}, Config: cfg, RunID: "again", Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(slices.Clone(o.Samples), o2.Samples...) {
		if s.Budget != PaperLatencyBudget {
			t.Errorf("%s: budget %d, want the paper's 2K", s.Key(), s.Budget)
		}
		l := s.Latency
		// TTFT runs from the start of the query (paper §6.4), so it lies
		// between query preparation and the full query.
		if l.TTFT < lat.Seconds() || l.TTFT < l.QueryPrep || l.TTFT > l.FullQuery || l.Answer < lat.Seconds() {
			t.Errorf("%s: prep %.4fs, ttft %.4fs, answer %.4fs, full %.4fs; the fake waits %s before the first token", s.Key(), l.QueryPrep, l.TTFT, l.Answer, l.FullQuery, lat)
		}
		if math.Abs(l.FullQuery-(l.QueryPrep+l.Answer)) > 1e-9 || l.QueryPrep < 0 {
			t.Errorf("%s: full query %.4f is not query prep %.4f + answer %.4f", s.Key(), l.FullQuery, l.QueryPrep, l.Answer)
		}
		if c := s.Calls["chat"]; c.Count != 1 || c.CacheHits != 0 {
			t.Errorf("%s: chat calls %+v, want one uncached answer", s.Key(), c)
		}
		// Every interaction was committed through at least one chat round trip.
		if l.Ingested > 0 && s.System == "arbormem" && l.IngestPerInteraction < lat.Seconds() {
			t.Errorf("%s: ingest %.4fs per interaction, below one call's latency", s.Key(), l.IngestPerInteraction)
		}
	}
	if n := srv.PathStats("/v1/chat/completions").MaxConcurrent; n > 10 {
		// One ArborMem commit runs its five round-one operations at once
		// while the next turn's five are prefetched (arbormem.prefetch);
		// more in flight means two episodes overlapped.
		t.Errorf("%d chat calls were in flight at once; the efficiency run keeps one episode in flight", n)
	}
	// The efficiency table is the samples' own figures.
	tbl := scoring.LatencyTable(o.Samples, o.Episodes)
	for _, row := range tbl.Rows {
		var ttft, full float64
		n := 0
		for _, s := range o.Samples {
			if scoring.SystemName(s.System) == row.Label {
				ttft += s.Latency.TTFT
				full += s.Latency.FullQuery
				n++
			}
		}
		if n == 0 {
			t.Fatalf("row %q matches no samples", row.Label)
		}
		if got := *row.Cells[2].Value; math.Abs(got-ttft/float64(n)) > 1e-9 {
			t.Errorf("%s: TTFT column %.5f, samples' mean %.5f", row.Label, got, ttft/float64(n))
		}
		if got := *row.Cells[3].Value; math.Abs(got-full/float64(n)) > 1e-9 {
			t.Errorf("%s: full-query column %.5f, samples' mean %.5f", row.Label, got, full/float64(n))
		}
		if row.Cells[5].Value == nil || *row.Cells[5].Value <= 0 {
			t.Errorf("%s: no throughput", row.Label)
		}
	}
	for _, want := range []string{"Matched efficiency comparison", "Model usage"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("latency output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestPrefiltered checks the external-system wrapper: the inner system is
// asked for twice the budget and the bundle is packed back to the budget in
// the counter's tokens.
func TestPrefiltered(t *testing.T) {
	counter := tokens.Default()
	var asked int
	inner := fakeSystem{recall: func(q memory.Query) memory.Bundle {
		asked = q.Budget
		var items []memory.Item
		for i := range 40 {
			items = append(items, memory.Item{Channel: memory.ChannelTurn, Text: fmt.Sprintf("retrieved unit %d says something rather long about the weather", i), Tokens: 1})
		}
		return memory.Bundle{Items: items}
	}}
	f := Prefiltered(func(context.Context, string) (memory.System, error) { return inner, nil }, counter)
	sys, err := f(context.Background(), "e")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sys.(memory.Renderer); ok {
		t.Error("the wrapper of a system without a renderer claims to render")
	}
	b, err := sys.Recall(context.Background(), memory.Query{Budget: 100})
	if err != nil {
		t.Fatal(err)
	}
	if asked != 200 {
		t.Errorf("inner system was asked for %d tokens, want the 2× prefilter 200", asked)
	}
	if b.Tokens() > 100 || len(b.Items) == 0 || len(b.Items) == 40 {
		t.Errorf("packed bundle has %d tokens in %d items; want ≤ 100 and some dropped", b.Tokens(), len(b.Items))
	}
	for _, it := range b.Items {
		if it.Tokens != counter.Count(it.Text) {
			t.Errorf("item %q counted %d tokens, the counter says %d", it.Text, it.Tokens, counter.Count(it.Text))
		}
	}
}

type fakeSystem struct {
	recall func(memory.Query) memory.Bundle
}

func (fakeSystem) Commit(context.Context, dialog.Interaction) error { return nil }
func (f fakeSystem) Recall(_ context.Context, q memory.Query) (memory.Bundle, error) {
	return f.recall(q), nil
}
