package answer

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fakeChat records requests and replies with a fixed text.
type fakeChat struct {
	mu    sync.Mutex
	reqs  []llm.ChatRequest
	reply llm.ChatResponse
	err   error
}

func (f *fakeChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return f.reply, f.err
}

func defaultConfig(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

var (
	qTime  = time.Date(2023, 6, 3, 9, 15, 0, 0, time.UTC)
	bundle = memory.Bundle{Items: []memory.Item{
		{Channel: memory.ChannelLocal, Text: "[2023-05-02 09:14] user: Our total trip budget is 2,000 euros.\nassistant: Noted.", Time: time.Date(2023, 5, 2, 9, 14, 0, 0, time.UTC), Sources: []string{"m-03"}},
		{Channel: memory.ChannelFact, Text: "The user's sister is Marta.", Time: time.Date(2023, 5, 2, 9, 0, 0, 0, time.UTC), Sources: []string{"m-01"}},
		{Channel: memory.ChannelSummary, Block: "SessionSummary", Text: "The user raised the budget to 2,500 euros.", Sources: []string{"m-10"}},
	}}
	query = memory.Query{ID: "q1", Text: "What is the current budget for the Lisbon trip?", Time: qTime, Budget: 1000}
)

func TestRenderSharedGolden(t *testing.T) {
	msgs, err := RenderShared(nil, query, bundle)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Role != "user" {
		t.Fatalf("messages = %+v", msgs)
	}
	got := msgs[0].Content
	if !strings.Contains(got, "### CURRENT TIME\n2023-06-03 09:15\n") {
		t.Errorf("the question's time is not under ### CURRENT TIME:\n%s", got)
	}
	// The first item already starts with its time; the second gets it added.
	if strings.Count(got, "2023-05-02 09:14") != 1 || !strings.Contains(got, "(2) fact | 2023-05-02 09:00") {
		t.Errorf("timestamps rendered wrongly:\n%s", got)
	}
	golden := filepath.Join("testdata", "shared_prompt.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if got != string(want) {
		t.Errorf("rendered prompt differs from %s (run with -update after checking):\n%s", golden, got)
	}
}

func TestRenderSharedEmptyBundle(t *testing.T) {
	msgs, err := RenderShared(prompt.Default(), memory.Query{Text: "Anything?"}, memory.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	c := msgs[0].Content
	if !strings.Contains(c, "(nothing was recalled)") || !strings.Contains(c, "### CURRENT TIME\nunknown") {
		t.Errorf("empty bundle / zero time rendered as:\n%s", c)
	}
}

func TestChatAnswerer(t *testing.T) {
	cfg := defaultConfig(t)
	chat := &fakeChat{reply: llm.ChatResponse{Content: "<think>\nhmm\n</think>\n2,500 euros.", PromptTokens: 321, CompletionTokens: 5, TTFT: 40 * time.Millisecond, Latency: 90 * time.Millisecond}}
	a, err := New(cfg, chat, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Heuristic() {
		t.Fatal("a chat answerer reports heuristic")
	}
	res, err := a.Answer(context.Background(), query, bundle, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(chat.reqs) != 1 {
		t.Fatalf("%d requests", len(chat.reqs))
	}
	req := chat.reqs[0]
	if req.Temperature != 0 || req.MaxTokens != 512 || req.Seed == nil || *req.Seed != 42 || req.Purpose != "answer" {
		t.Errorf("request settings: temperature %v, max_tokens %d, seed %v, purpose %q", req.Temperature, req.MaxTokens, req.Seed, req.Purpose)
	}
	if !strings.Contains(req.Messages[0].Content, "### CURRENT TIME\n2023-06-03 09:15") {
		t.Errorf("the question's date is not in the prompt")
	}
	if res.Text != "2,500 euros." || res.PromptTokens != 321 || res.CompletionTokens != 5 || res.TTFT != 40*time.Millisecond || res.Latency != 90*time.Millisecond {
		t.Errorf("result = %+v", res)
	}
	if len(res.Messages) != 1 || res.Messages[0].Content != req.Messages[0].Content {
		t.Errorf("result does not record the messages sent")
	}
}

// The request's JSON form must carry temperature even when it is zero.
func TestChatRequestSendsZeroTemperature(t *testing.T) {
	cfg := defaultConfig(t)
	chat := &fakeChat{reply: llm.ChatResponse{Content: "x"}}
	a, _ := New(cfg, chat, nil)
	if _, err := a.Answer(context.Background(), query, bundle, nil); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(chat.reqs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"temperature":0`) || !strings.Contains(string(b), `"max_tokens":512`) {
		t.Errorf("wire form lacks explicit sampling settings: %s", b)
	}
}

type renderer struct{}

func (renderer) Render(q memory.Query, b memory.Bundle) ([]llm.Message, error) {
	return []llm.Message{{Role: "system", Content: "own layout"}, {Role: "user", Content: q.Text}}, nil
}

type badRenderer struct{}

func (badRenderer) Render(memory.Query, memory.Bundle) ([]llm.Message, error) {
	return nil, errors.New("no layout")
}

func TestChatAnswererUsesRenderer(t *testing.T) {
	cfg := defaultConfig(t)
	enable := false
	cfg.Answer.EnableThinking = &enable
	chat := &fakeChat{reply: llm.ChatResponse{Content: "ok"}}
	a, _ := New(cfg, chat, nil)
	if _, err := a.Answer(context.Background(), query, bundle, renderer{}); err != nil {
		t.Fatal(err)
	}
	req := chat.reqs[0]
	if len(req.Messages) != 2 || req.Messages[0].Content != "own layout" {
		t.Errorf("renderer's messages not used: %+v", req.Messages)
	}
	if req.ChatTemplateKwargs["enable_thinking"] != false {
		t.Errorf("enable_thinking not passed: %v", req.ChatTemplateKwargs)
	}
	if _, err := a.Answer(context.Background(), query, bundle, badRenderer{}); err == nil || !strings.Contains(err.Error(), "no layout") {
		t.Errorf("renderer error not reported: %v", err)
	}
	chat.err = errors.New("endpoint down")
	if _, err := a.Answer(context.Background(), query, bundle, nil); err == nil || !strings.Contains(err.Error(), "q1") {
		t.Errorf("chat error should name the question: %v", err)
	}
}

func TestNewModes(t *testing.T) {
	chat := &fakeChat{}
	cases := []struct {
		mode      string
		chat      llm.Client
		heuristic bool
		err       string
	}{
		{"auto", nil, true, ""},
		{"auto", chat, false, ""},
		{"heuristic", chat, true, ""},
		{"chat", chat, false, ""},
		{"chat", nil, false, "no chat model"},
		{"oracle", chat, false, `"oracle" is not one of`},
	}
	for _, c := range cases {
		cfg := defaultConfig(t)
		cfg.Answer.Answerer = c.mode
		a, err := New(cfg, c.chat, nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("mode %s: error %v, want %q", c.mode, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("mode %s: %v", c.mode, err)
			continue
		}
		if a.Heuristic() != c.heuristic {
			t.Errorf("mode %s (chat %v): heuristic %v", c.mode, c.chat != nil, a.Heuristic())
		}
	}
	cfg := defaultConfig(t)
	cfg.Answer.MaxTokens = 0
	if _, err := New(cfg, chat, nil); err == nil {
		t.Error("max_tokens 0 accepted")
	}
	if _, err := New(nil, chat, nil); err == nil {
		t.Error("nil config accepted")
	}
}
