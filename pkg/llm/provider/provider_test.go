package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// testConfig loads a config the way the CLI does: the embedded default
// with yaml layered over it.
func testConfig(t testing.TB, yaml string) *config.Config {
	t.Helper()
	file := filepath.Join(t.TempDir(), "arbor.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file, nil, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, yaml)
	}
	return cfg
}

// newSet builds a Set whose cache is flushed before the test's temporary
// directories are removed.
func newSet(t testing.TB, cfg *config.Config) *Set {
	t.Helper()
	set, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return set
}

// endpointsYAML lists one endpoint per fake.
func endpointsYAML(fakes []*openaifake.Server, inflight int, timeout time.Duration) string {
	var b strings.Builder
	for _, f := range fakes {
		fmt.Fprintf(&b, "      - {url: %s, model: fake-model, max_inflight: %d, timeout: %s}\n", f.URL, inflight, timeout)
	}
	return b.String()
}

// fastRetry keeps test runs short: tiny backoff, quick re-probes.
const fastRetry = "retry: {max_attempts: 12, base_delay: 1ms, max_delay: 10ms, failures_to_eject: 5, eject_for: 50ms}\n"

func fakes(n int, opts func(i int) openaifake.Options) []*openaifake.Server {
	out := make([]*openaifake.Server, n)
	for i := range out {
		out[i] = openaifake.New(opts(i))
	}
	return out
}

func closeAll(fs []*openaifake.Server) {
	for _, f := range fs {
		f.Close()
	}
}

// chatBatch sends n distinct requests from workers goroutines and returns
// the replies in order.
func chatBatch(t *testing.T, c llm.Client, n, workers int) []llm.ChatResponse {
	t.Helper()
	out := make([]llm.ChatResponse, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				r, err := c.Chat(context.Background(), llm.ChatRequest{
					Messages: []llm.Message{{Role: "user", Content: fmt.Sprintf("question %d", i)}}, MaxTokens: 16, Purpose: "answer"})
				if err != nil {
					t.Errorf("request %d: %v", i, err)
				}
				out[i] = r
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

func TestPoolSpreadsLoadWithinCaps(t *testing.T) {
	fs := fakes(7, func(int) openaifake.Options { return openaifake.Options{FirstTokenLatency: time.Millisecond} })
	defer closeAll(fs)
	cfg := testConfig(t, "models:\n  chat:\n    endpoints:\n"+endpointsYAML(fs, 3, 5*time.Second)+
		"cache: {dir: "+t.TempDir()+"}\n"+fastRetry)
	set := newSet(t, cfg)
	if set.ChatCapacity != 21 {
		t.Errorf("chat capacity %d, want 21", set.ChatCapacity)
	}
	replies := chatBatch(t, set.Chat, 700, 40)
	for i, r := range replies {
		if want := fmt.Sprintf("echo: question %d", i); r.Content != want {
			t.Fatalf("reply %d = %q, want %q", i, r.Content, want)
		}
	}
	for i, f := range fs {
		s := f.Stats()
		t.Logf("endpoint %d: %d requests, at most %d concurrent", i, s.Requests, s.MaxConcurrent)
		if s.Requests < 70 || s.Requests > 140 {
			t.Errorf("endpoint %d got %d of 700 requests, want 10–20%%", i, s.Requests)
		}
		if s.MaxConcurrent > 3 {
			t.Errorf("endpoint %d saw %d concurrent requests, max_inflight is 3", i, s.MaxConcurrent)
		}
	}
	rows := set.Metrics.Rows()
	if len(rows) != 1 || rows[0].Count != 700 || rows[0].Errors != 0 || rows[0].CompletionTokens != 700*3 {
		t.Errorf("metrics %+v", rows)
	}
}

func TestFaultsAreRetriedWithinBudget(t *testing.T) {
	kinds := []openaifake.Fault{openaifake.Status500, openaifake.Hang, openaifake.Truncate, openaifake.Drop, openaifake.Malformed}
	fs := fakes(7, func(i int) openaifake.Options {
		return openaifake.Options{FaultRate: 0.3, FaultSeed: uint64(i + 1), FaultKinds: kinds, Hang: 5 * time.Second}
	})
	defer closeAll(fs)
	cfg := testConfig(t, "models:\n  chat:\n    endpoints:\n"+endpointsYAML(fs, 3, 150*time.Millisecond)+
		"cache: {dir: "+t.TempDir()+"}\n"+fastRetry)
	set := newSet(t, cfg)
	replies := chatBatch(t, set.Chat, 700, 40)
	for i, r := range replies {
		if want := fmt.Sprintf("echo: question %d", i); r.Content != want {
			t.Fatalf("reply %d = %q, want %q", i, r.Content, want)
		}
	}
	injected := map[openaifake.Fault]int64{}
	var requests int64
	for _, f := range fs {
		for k, v := range f.Injected() {
			injected[k] += v
		}
		requests += f.Stats().Requests
	}
	for _, k := range kinds {
		if injected[k] == 0 {
			t.Errorf("no %s fault was injected: %v", k, injected)
		}
	}
	row := set.Metrics.Rows()[0]
	var faults int64
	for _, v := range injected {
		faults += v
	}
	// Every injected fault costs one more request; a request slowed past
	// its timeout by a loaded machine may add a retry the fake never saw.
	if row.Errors != 0 || requests-700 < faults || row.Retries < requests-700 {
		t.Errorf("%d requests, %d faults, metrics %+v", requests, faults, row)
	}
}

func TestBadRequestIsNotRetried(t *testing.T) {
	f := openaifake.New(openaifake.Options{FaultAt: map[int]openaifake.Fault{0: openaifake.Status400}})
	defer f.Close()
	cfg := testConfig(t, "models:\n  chat:\n    endpoints:\n"+endpointsYAML([]*openaifake.Server{f}, 2, time.Second)+
		"cache: {dir: "+t.TempDir()+"}\n"+fastRetry)
	set := newSet(t, cfg)
	_, err := set.Chat.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}})
	var se *llm.StatusError
	if !errors.As(err, &se) || se.Code != 400 || f.Stats().Requests != 1 {
		t.Fatalf("err %v after %d requests; want one 400", err, f.Stats().Requests)
	}
	if r := set.Metrics.Rows()[0]; r.Errors != 1 || r.Retries != 0 {
		t.Errorf("metrics %+v", r)
	}
}

func TestTimingsAndUsage(t *testing.T) {
	const first, per = 30 * time.Millisecond, 4 * time.Millisecond
	f := openaifake.New(openaifake.Options{FirstTokenLatency: first, TokenLatency: per, Reasoning: "hmm, well"})
	defer f.Close()
	cfg := testConfig(t, "models:\n  chat:\n    endpoints:\n"+endpointsYAML([]*openaifake.Server{f}, 2, 5*time.Second)+
		"cache: {dir: "+t.TempDir()+"}\n"+fastRetry)
	set := newSet(t, cfg)
	ctx, usage := llm.WithUsage(context.Background())
	msgs := []llm.Message{{Role: "user", Content: "say three words"}}
	r, err := set.Chat.Chat(ctx, llm.ChatRequest{Messages: msgs, Purpose: "answer"})
	if err != nil {
		t.Fatal(err)
	}
	// 2 reasoning + 4 content tokens ("echo: say three words").
	if r.TTFT < first || r.Latency < first+5*per || r.TTFT > r.Latency {
		t.Errorf("ttft %v latency %v", r.TTFT, r.Latency)
	}
	if r.Reasoning != "hmm, well" || r.CompletionTokens != 6 {
		t.Errorf("reasoning %q completion tokens %d", r.Reasoning, r.CompletionTokens)
	}
	body := f.Bodies("/v1/chat/completions")[0]
	if !bytes.Contains(body, []byte(`"temperature":0`)) {
		t.Errorf("temperature 0 not sent: %s", body)
	}
	u := usage.Snapshot()["chat"]
	if u.Count != 1 || u.PromptTokens != r.PromptTokens || u.CompletionTokens != 6 {
		t.Errorf("usage %+v", u)
	}
	row := set.Metrics.Rows()[0]
	if row.TTFTP50 < first || row.TTFTP50 > row.LatencyP50 || row.PromptTokens != int64(r.PromptTokens) {
		t.Errorf("metrics %+v", row)
	}
}

// allRolesYAML points every role at one fake.
func allRolesYAML(url, cacheDir, extra string) string {
	ep := "{url: " + url + ", model: fake-model, max_inflight: 4, timeout: 2s" + extra + "}"
	return "models:\n" +
		"  chat: {endpoints: [" + ep + "]}\n" +
		"  judge: {endpoints: [" + ep + "]}\n" +
		"  embed: {endpoints: [" + ep + "], dim: 16, batch_size: 8}\n" +
		"  rerank: {endpoints: [" + ep + "], api: tei}\n" +
		"  tokenizer: {endpoints: [" + ep + "], verify_every: 0}\n" + // every count through the endpoint
		"cache: {dir: " + cacheDir + "}\n" + fastRetry
}

// workload exercises every role once, identically on every call.
func workload(t *testing.T, set *Set) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, r := range chatBatch(t, set.Chat, 30, 8) {
		out = append(out, fmt.Sprintf("%s cached=%v", r.Content, r.Cached))
	}
	j, err := set.Judge.Chat(ctx, llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "grade"}}, ResponseFormat: "json_object"})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, j.Content)
	texts := make([]string, 50)
	for i := range texts {
		texts[i] = fmt.Sprintf("memory %d", i)
	}
	vs, err := set.Embed.Embed(ctx, texts)
	if err != nil || len(vs) != 50 || len(vs[49]) != 16 {
		t.Fatalf("embed: %d vectors, %v", len(vs), err)
	}
	docs := make([]string, 70)
	for i := range docs {
		docs[i] = fmt.Sprintf("doc %d about memory", i)
	}
	scores, err := set.Rerank.Rerank(ctx, "memory 3", docs)
	if err != nil || len(scores) != 70 || scores[3] != openaifake.Score("memory 3", docs[3]) {
		t.Fatalf("rerank: %v, %v", scores, err)
	}
	out = append(out, fmt.Sprint(set.Tokens.Count("four words right here")))
	return out
}

func TestSecondRunMakesNoNetworkCalls(t *testing.T) {
	f := openaifake.New(openaifake.Options{})
	defer f.Close()
	cfg := testConfig(t, allRolesYAML(f.URL, t.TempDir(), ""))
	set := newSet(t, cfg)
	first := workload(t, set)
	sent := f.Stats().Requests
	// 30 chats + 1 judge + ceil(50/8) embedding batches + ceil(70/32) rerank chunks + 1 tokenize.
	if sent != 30+1+7+3+1 {
		t.Errorf("first run sent %d requests, want 42", sent)
	}
	if first[len(first)-1] != "4" {
		t.Errorf("token count %s, want 4 (through the tokenizer endpoint)", first[len(first)-1])
	}
	// The same Set, then a fresh one on the same cache directory (a re-run).
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	again := newSet(t, cfg)
	for _, s := range []*Set{set, again} {
		second := workload(t, s)
		if got := f.Stats().Requests; got != sent {
			t.Fatalf("identical run sent %d more requests", got-sent)
		}
		for i := range 30 {
			if want := strings.Replace(first[i], "cached=false", "cached=true", 1); second[i] != want {
				t.Fatalf("reply %d: %q, want %q", i, second[i], want)
			}
		}
		if fmt.Sprint(second[30:]) != fmt.Sprint(first[30:]) {
			t.Fatalf("second run %v, first %v", second[30:], first[30:])
		}
	}
	hits := int64(0)
	for _, r := range again.Metrics.Rows() {
		hits += r.CacheHits
	}
	if hits != 30+1+1+1+1 {
		t.Errorf("cache hits %d; rows %+v", hits, again.Metrics.Rows())
	}
}

func TestLocalRoles(t *testing.T) {
	cfg := testConfig(t, "cache: {dir: "+t.TempDir()+"}\n")
	set := newSet(t, cfg)
	if set.Chat != nil || set.Judge != nil || set.ChatCapacity != 0 || set.Embed == nil || set.Rerank == nil || set.Tokens == nil {
		t.Fatalf("local set %+v", set)
	}
	_, err := set.ChatClient()
	if !errors.Is(err, ErrNoChat) || !strings.Contains(err.Error(), "models.chat.endpoints") {
		t.Errorf("chat on a local role: %v", err)
	}
	if _, err := set.JudgeClient(); !errors.Is(err, ErrNoChat) || !strings.Contains(err.Error(), "models.judge.endpoints") {
		t.Errorf("judge on a local role: %v", err)
	}
	want := `[{chat  local} {judge  local} {embed  local} {rerank  local} {tokenizer  qwen3}]`
	if got := fmt.Sprint(set.Describe()); got != want {
		t.Errorf("describe %s, want %s", got, want)
	}
}

func TestAPIKeyIsNeverWritten(t *testing.T) {
	const key = "sk-arbor-test-7f3c9a1e5b"
	t.Setenv("ARBOR_TEST_API_KEY", key)
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(prev)

	f := openaifake.New(openaifake.Options{FaultRate: 0.2, FaultSeed: 3, FaultKinds: []openaifake.Fault{openaifake.Status500, openaifake.Drop, openaifake.Truncate}})
	defer f.Close()
	dir := t.TempDir()
	cfg := testConfig(t, allRolesYAML(f.URL, filepath.Join(dir, "cache"), ", api_key_env: ARBOR_TEST_API_KEY"))
	if cfg.Models.Chat.Endpoints[0].APIKey.Reveal() != key {
		t.Fatal("config did not read the key from the environment")
	}
	cfg.Run.Verbose = true // log every call too
	set := newSet(t, cfg)
	workload(t, set)
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	// A server whose error body echoes the Authorization header must not
	// carry the key into the error message.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"bad header `+r.Header.Get("Authorization")+`"}}`, http.StatusBadRequest)
	}))
	defer echo.Close()
	_, err := llm.NewChatClient(config.Endpoint{URL: echo.URL, Model: "m", APIKey: config.Secret(key)}, llm.NewHTTPClient()).
		Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}})
	if err == nil || !strings.Contains(err.Error(), "bad header Bearer [redacted]") {
		t.Errorf("echoed key: %v", err)
	}
	fmt.Fprintln(&logs, err)
	if got := f.LastHeader("/v1/chat/completions").Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("Authorization header %q", got)
	}
	if !strings.Contains(logs.String(), "retrying") || !strings.Contains(logs.String(), "model call") {
		t.Errorf("expected retry logs to inspect, got:\n%s", logs.String())
	}
	// Everything a run writes about its calls.
	var table bytes.Buffer
	set.Metrics.WriteTable(&table)
	y, _ := cfg.YAML()
	d, _ := json.Marshal(set.Describe())
	checks := Check(context.Background(), cfg)
	var ct bytes.Buffer
	WriteChecks(&ct, checks)
	for name, b := range map[string][]byte{"metrics.txt": table.Bytes(), "config.yaml": y, "endpoints.json": d, "check.txt": ct.Bytes()} {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	files := 0
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		files++
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s contains the API key", p)
		}
		return nil
	})
	if files < 40 {
		t.Errorf("only %d files written; the cache should hold every reply", files)
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("logs contain the API key:\n%s", logs.String())
	}
}

func TestEndpointsCheck(t *testing.T) {
	f := openaifake.New(openaifake.Options{})
	defer f.Close()
	dead := openaifake.New(openaifake.Options{})
	dead.Close()
	cfg := testConfig(t, allRolesYAML(f.URL, t.TempDir(), ""))
	cfg.Models.Judge.Endpoints[0].URL = dead.URL
	wrong := cfg.Models.Chat.Endpoints[0]
	wrong.Model = "other-model"
	cfg.Models.Chat.Endpoints = append(cfg.Models.Chat.Endpoints, wrong)
	var out bytes.Buffer
	err := RunCheck(context.Background(), cfg, &out)
	if err == nil || !strings.Contains(err.Error(), "2 of 6 endpoints failed") {
		t.Fatalf("err %v\n%s", err, out.String())
	}
	rs := Check(context.Background(), cfg)
	status := map[string]string{}
	for _, r := range rs {
		status[r.Role+" "+r.Model+" "+r.URL] = r.Status
	}
	want := map[string]string{
		"chat fake-model " + f.URL:      "ok",
		"chat other-model " + f.URL:     "FAIL",
		"judge fake-model " + dead.URL:  "FAIL",
		"embed fake-model " + f.URL:     "ok",
		"rerank fake-model " + f.URL:    "ok",
		"tokenizer fake-model " + f.URL: "ok",
	}
	if fmt.Sprint(status) != fmt.Sprint(want) {
		t.Errorf("statuses %v\nwant %v\n%s", status, want, out.String())
	}
	if !strings.Contains(out.String(), `"other-model" is not served here`) || !strings.HasPrefix(out.String(), "ROLE") {
		t.Errorf("table:\n%s", out.String())
	}
}

// TestMain keeps ejection warnings (expected under injected faults) out of
// the test output.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}
