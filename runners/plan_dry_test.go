package runners

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/stats"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// xpRemoteYAML configures chat and judge at an address where nothing
// listens: a dry run must never call it.
const xpRemoteYAML = `models:
  chat:
    provider: openai
    endpoints:
      - {url: "http://127.0.0.1:9", model: Qwen3-30B-A3B-Instruct-2507, max_inflight: 6}
      - {url: "http://127.0.0.1:9", model: Qwen3-30B-A3B-Instruct-2507, max_inflight: 6}
  judge:
    provider: openai
    endpoints:
      - {url: "http://127.0.0.1:9", model: Qwen3-30B-A3B-Instruct-2507, max_inflight: 4}
  tokenizer:
    provider: openai
    endpoints:
      - {url: "http://127.0.0.1:9", model: Qwen3-30B-A3B-Instruct-2507}
`

func xpRole(t *testing.T, r *DryReport, role string) RoleCount {
	t.Helper()
	for _, rc := range r.Roles {
		if rc.Role == role {
			return rc
		}
	}
	t.Fatalf("dry run has no %s role: %+v", role, r.Roles)
	return RoleCount{}
}

// TestDryRunCountsWhatARunDoes compares a dry run's counts with a real run
// of the same plan against a counting fake that replies by the same rule:
// the same calls by role and phase, and selection counts that match the data.
func TestDryRunCountsWhatARunDoes(t *testing.T) {
	data := xpLoCoMo(t, 3, 2)
	systems := []string{"summary", "arbormem"}
	ctx := context.Background()
	cfg := xpConfig(t, xpRemoteYAML)
	rep, err := DryRun(ctx, Plan{Benchmark: "locomo", Data: data, Systems: systems, Out: io.Discard, Log: io.Discard, Config: cfg},
		nil, DryOptions{Throughput: map[string]float64{"chat": 10}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 {
		t.Fatalf("%d dry-run samples failed: %s", rep.Failed, rep.FirstError)
	}
	if _, err := os.Stat(cfg.Run.Results); !os.IsNotExist(err) {
		t.Errorf("the dry run wrote into the configured results folder %s (%v)", cfg.Run.Results, err)
	}
	if rep.Episodes != 3 || rep.Questions != 6 || rep.Samples != 12 || rep.Ingestions != 6 || rep.Interactions != 24 {
		t.Errorf("dry run counted %d episodes, %d questions, %d samples, %d ingestions, %d interactions; want 3, 6, 12, 6, 24",
			rep.Episodes, rep.Questions, rep.Samples, rep.Ingestions, rep.Interactions)
	}

	fake := xpFake(t, 0)
	real, err := Run(ctx, Plan{Benchmark: "locomo", Data: data, Systems: systems, Out: io.Discard, Log: io.Discard,
		Config: xpConfig(t, xpChatYAML(12, fake.URL))})
	if err != nil {
		t.Fatal(err)
	}
	xpNoErrors(t, real)
	ing, q := xpChatSplit(real)
	chat := xpRole(t, rep, "chat")
	if chat.IngestCalls != ing || chat.QuestionCalls != q {
		t.Errorf("dry run counted %d ingest + %d question chat calls, the real run made %d + %d", chat.IngestCalls, chat.QuestionCalls, ing, q)
	}
	if got := int(fake.PathStats("/v1/chat/completions").Requests); got != chat.Calls() {
		t.Errorf("the real run's endpoint saw %d chat calls, the dry run counted %d", got, chat.Calls())
	}
	if chat.Endpoints != 2 || chat.Capacity != 12 || chat.InFlight != 12 {
		t.Errorf("chat endpoints %d, capacity %d, in flight %d; want 2, 12, 12", chat.Endpoints, chat.Capacity, chat.InFlight)
	}
	if len(chat.Systems) != 2 || chat.Systems[0].System != "arbormem" || chat.Systems[0].Interactions != 12 || chat.Systems[1].Answers != 6 {
		t.Errorf("per-system shares: %+v", chat.Systems)
	}
	if chat.PromptTokens <= 0 || chat.CompletionMax < chat.QuestionCalls*cfg.Answer.MaxTokens {
		t.Errorf("chat tokens: prompt %d, completion max %d", chat.PromptTokens, chat.CompletionMax)
	}
	// LoCoMo is scored by F1: the judge role is configured but never called.
	if judge := xpRole(t, rep, "judge"); judge.Calls() != 0 {
		t.Errorf("judge made %d calls on LoCoMo", judge.Calls())
	}
	// Estimate: calls over the given throughput, stretched because 6
	// memory instances (each sequential inside) keep at most 6 of the 12
	// calls the throughput assumes in flight.
	if want := time.Duration(float64(chat.Calls()) / 10 * 12 / 6 * float64(time.Second)); math.Abs(float64(chat.Time-want)) > float64(time.Millisecond) || rep.Upper != chat.Time || rep.Lower != chat.Time {
		t.Errorf("chat time %s, bounds %s–%s; want %s", chat.Time, rep.Lower, rep.Upper, want)
	}
	var out strings.Builder
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	// With endpoints the fakes' answers say nothing: the MDE assumes 50%.
	if r := rep.Resolution; r.Observed || r.Questions != 6 || r.Accuracy != 0.5 || math.Abs(r.MDE-100*stats.MDE(6, 0.5, 0.05, 0.8)) > 1e-9 {
		t.Errorf("resolution %+v", r)
	}
	for _, want := range []string{"Dry run of eval on locomo", "3 episodes, 6 questions", "Model calls by role", "Time estimate", "Estimated wall time", "ArborMem's fact-collision audit", "tokenizer role counted offline",
		"smallest detectable difference", "unpaired two-proportion z-test over 6 questions per system, from an assumed accuracy of 50%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestDryRunProbeAndModels estimates time from probes of a live fake, for an
// ablation over two models.
func TestDryRunProbeAndModels(t *testing.T) {
	const lat = 20 * time.Millisecond
	live := openaifake.New(openaifake.Options{FirstTokenLatency: lat, Model: "fake-chat"})
	defer live.Close()
	data := xpLoCoMo(t, 2, 1)
	a, b := xpConfig(t, xpChatYAML(3, live.URL)), xpConfig(t, "")
	rep, err := DryRun(context.Background(), Plan{Kind: "ablate", Benchmark: "locomo", Data: data, Variants: []string{"", "no-atomic-facts"}, Out: io.Discard, Log: io.Discard},
		[]Model{{Name: "remote", Config: a}, {Name: "offline", Config: b}}, DryOptions{Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 || rep.Samples != 2*2*2 {
		t.Fatalf("%d samples (want 8), %d failed: %s", rep.Samples, rep.Failed, rep.FirstError)
	}
	if got := live.PathStats("/v1/chat/completions").Requests; got != 1 {
		t.Errorf("the live endpoint saw %d chat calls; only the one-token probe may reach it", got)
	}
	var remote *RoleCount
	for i, rc := range rep.Roles {
		if rc.Model == "remote" && rc.Role == "chat" {
			remote = &rep.Roles[i]
		}
		if rc.Model == "offline" && !rc.Local {
			t.Errorf("offline model has a remote role %+v", rc)
		}
	}
	if remote == nil || remote.Calls() == 0 {
		t.Fatalf("no chat calls for the remote model: %+v", rep.Roles)
	}
	if !strings.HasPrefix(remote.Source, "probe") || remote.Throughput <= 0 || remote.Throughput > float64(remote.InFlight)/lat.Seconds() {
		t.Errorf("probe estimate: %.2f calls/s from %q with %d in flight; a %s probe allows at most %.0f", remote.Throughput, remote.Source, remote.InFlight, lat, float64(remote.InFlight)/lat.Seconds())
	}
	var out strings.Builder
	rep.Write(&out)
	if !strings.Contains(out.String(), "remote / chat") || !strings.Contains(out.String(), "lower bounds") {
		t.Errorf("report lacks model-labelled rows or the probe caveat:\n%s", out.String())
	}
}

// TestDryFakeRewritesUsage checks the dry fake's usage: exact Qwen3 prompt
// tokens through the chat template, completion tokens = max_tokens.
func TestDryFakeRewritesUsage(t *testing.T) {
	f := newDryFake(8)
	defer f.close()
	msgs := []openaifake.Message{{Role: "system", Content: "You answer briefly."}, {Role: "user", Content: "On 2024-03-15 I paid $12.50 for 3 tickets."}}
	for _, stream := range []bool{true, false} {
		body, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs, "max_tokens": 7, "stream": stream,
			"stream_options": map[string]bool{"include_usage": true}})
		resp, err := http.Post(f.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var usage struct{ Prompt, Completion, Total int }
		for _, chunk := range strings.Split(string(raw), "\n") {
			chunk = strings.TrimPrefix(chunk, "data: ")
			var m struct {
				Usage *struct {
					P int `json:"prompt_tokens"`
					C int `json:"completion_tokens"`
					T int `json:"total_tokens"`
				} `json:"usage"`
			}
			if json.Unmarshal([]byte(chunk), &m) == nil && m.Usage != nil {
				usage.Prompt, usage.Completion, usage.Total = m.Usage.P, m.Usage.C, m.Usage.T
			}
		}
		want := 3 + 5 + tokens.Default().Count(msgs[0].Content) + 5 + tokens.Default().Count(msgs[1].Content)
		if usage.Prompt != want || usage.Completion != 7 || usage.Total != want+7 {
			t.Errorf("stream=%v: usage %+v, want prompt %d, completion 7, total %d\n%s", stream, usage, want, want+7, raw)
		}
	}
}

func TestRewriteUsage(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"whole", `{"id":"x","usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
			`{"id":"x","usage":{"completion_tokens":9,"prompt_tokens":40,"total_tokens":49}}`},
		{"stream", "data: {\"choices\":[]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\ndata: [DONE]\n\n",
			"data: {\"choices\":[]}\n\ndata: {\"choices\":[],\"usage\":{\"completion_tokens\":9,\"prompt_tokens\":40,\"total_tokens\":49}}\n\ndata: [DONE]\n\n"},
		{"no usage", "data: {\"choices\":[]}\n\n", "data: {\"choices\":[]}\n\n"},
		{"garbled", `{"usage": [1,2`, `{"usage": [1,2`},
		{"null usage", `{"usage":null}`, `{"usage":null}`},
	} {
		if got := string(RewriteUsage([]byte(tc.in), 40, 9)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func FuzzRewriteUsage(f *testing.F) {
	f.Add([]byte(`{"usage":{"prompt_tokens":1}}`), 5, 2)
	f.Add([]byte("data: {\"usage\":{}}\n\ndata: [DONE]\n"), 0, 0)
	f.Add([]byte(`data: {"usage": "x"}`), 1, 1)
	f.Fuzz(func(t *testing.T, body []byte, p, c int) {
		out := RewriteUsage(body, p, c)
		if !bytes.Contains(body, []byte(`"usage"`)) && !bytes.Equal(bytes.TrimSpace(out), bytes.TrimSpace(body)) {
			t.Fatalf("a body without usage changed: %q → %q", body, out)
		}
	})
}

func TestParseThroughput(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]float64
		bad  bool
	}{
		{in: "chat=20,judge=40", want: map[string]float64{"chat": 20, "judge": 40}},
		{in: "12.5", want: map[string]float64{"chat": 12.5, "judge": 12.5}},
		{in: " embed = 300/s , rerank=90 ", want: map[string]float64{"embed": 300, "rerank": 90}},
		{in: "", want: map[string]float64{}},
		{in: "chat=0", bad: true},
		{in: "chat=-3", bad: true},
		{in: "chat=fast", bad: true},
		{in: "answer=3", bad: true},
		{in: "chat=NaN", bad: true},
	} {
		got, err := ParseThroughput(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: accepted as %v", tc.in, got)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%q: %s = %v, want %v", tc.in, k, got[k], v)
			}
		}
	}
}

func FuzzParseThroughput(f *testing.F) {
	for _, s := range []string{"chat=20,judge=40", "3", "embed=1e3/s", "=,=", "chat==2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseThroughput(s)
		if err != nil {
			return
		}
		for k, v := range got {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("%q: %s = %v accepted", s, k, v)
			}
		}
	})
}

func TestChatPromptTokens(t *testing.T) {
	c := tokens.Default()
	if got := ChatPromptTokens(c, nil); got != 3 {
		t.Errorf("empty chat: %d, want 3", got)
	}
	msgs := []openaifake.Message{{Role: "user", Content: "hello world"}}
	if got, want := ChatPromptTokens(c, msgs), 3+5+c.Count("hello world"); got != want {
		t.Errorf("one message: %d, want %d", got, want)
	}
}

// TestDryRunResolutionOffline: an offline dry run's answers are the run's
// own, so the smallest detectable difference starts from their accuracy;
// 50 questions resolve only gaps of more than 20 points.
func TestDryRunResolutionOffline(t *testing.T) {
	cfg := xpConfig(t, "")
	rep, err := DryRun(context.Background(), Plan{Benchmark: "locomo", Data: xpLoCoMo(t, 25, 2), Systems: []string{"bm25"}, Out: io.Discard, Log: io.Discard, Config: cfg}, nil, DryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Resolution
	if !r.Observed || r.Questions != 50 {
		t.Fatalf("resolution %+v: want the observed accuracy over 50 questions", r)
	}
	if want := 100 * stats.MDE(50, r.Accuracy, 0.05, 0.8); math.Abs(r.MDE-want) > 1e-9 || r.MDE < 20 {
		t.Errorf("MDE %.2f points, want %.2f (> 20)", r.MDE, want)
	}
	var out strings.Builder
	rep.Write(&out)
	if !strings.Contains(out.String(), "accuracy this offline dry run observed") {
		t.Errorf("report:\n%s", out.String())
	}
	// Every role is local: the plan gives a time and asks for no throughput.
	if rep.Upper <= 0 || strings.Contains(out.String(), "give --throughput") || !strings.Contains(out.String(), "Estimated wall time") {
		t.Errorf("an all-local plan asks for a throughput or gives no time (upper %v):\n%s", rep.Upper, out.String())
	}
}
