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

	"github.com/arbor-eval/arbor/pkg/arbormem"
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

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
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

func TestRenderHarnessGolden(t *testing.T) {
	msgs, err := RenderHarness(nil, query, bundle)
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
	checkGolden(t, "harness_prompt.golden", got)
}

func TestRenderHarnessEmptyBundle(t *testing.T) {
	msgs, err := RenderHarness(prompt.Default(), memory.Query{Text: "Anything?"}, memory.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	c := msgs[0].Content
	if !strings.Contains(c, "(nothing was recalled)") || !strings.Contains(c, "### CURRENT TIME\nunknown") {
		t.Errorf("empty bundle / zero time rendered as:\n%s", c)
	}
}

// The one template of every system is the paper's runtime assembly: the
// system anchor with the current time first, a baseline's raw conversation
// under [ConversationHistory] and its facts under ### DATA CONTEXT.
func TestRenderSharedGolden(t *testing.T) {
	msgs, err := RenderShared(nil, query, bundle)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) < 3 || msgs[0].Role != "system" || !strings.HasSuffix(msgs[0].Content, "### CURRENT TIME\n2023-06-03 09:15") {
		t.Fatalf("no system anchor with the current time first: %+v", msgs)
	}
	if !strings.HasPrefix(msgs[1].Content, "["+memory.BlockHistory+"]\n[2023-05-02 09:14] user:") {
		t.Errorf("raw conversation not under [%s]: %q", memory.BlockHistory, msgs[1].Content)
	}
	last := msgs[len(msgs)-1]
	if last.Role != "user" || !strings.HasPrefix(last.Content, "### DATA CONTEXT\nThe user's sister is Marta.") {
		t.Errorf("facts not under ### DATA CONTEXT: %q", last.Content)
	}
	var sb strings.Builder
	for _, m := range msgs {
		sb.WriteString("--- " + m.Role + "\n" + m.Content + "\n")
	}
	checkGolden(t, "shared_prompt.golden", sb.String())
}

// stripMemory blanks the memory blocks of the runtime assembly: every
// system message but the anchor, the contents of ### DATA CONTEXT and the
// [UpdateEvidence] section; what is left is the template.
func stripMemory(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for i, m := range msgs {
		if m.Role == "system" && i > 0 {
			continue
		}
		if m.Role == "user" {
			c := m.Content
			if j := strings.Index(c, "### DATA CONTEXT\n"); j >= 0 {
				end := strings.Index(c[j:], "\n\n")
				c = c[:j] + "### DATA CONTEXT\n…" + c[j+end:]
			}
			if j := strings.Index(c, "\n\n["+memory.BlockUpdate+"]\n"); j >= 0 {
				end := strings.Index(c[j+2:], "\n\n")
				c = c[:j] + c[j+2+end:]
			}
			m.Content = c
		}
		out = append(out, m)
	}
	return out
}

// Every system gets the same system anchor, directives, answer-format
// lines and answer settings: ArborMem's rendered request and a baseline's
// differ only in memory content (P:1282-1285).
func TestSystemsDifferOnlyInMemory(t *testing.T) {
	cfg := defaultConfig(t)
	chat := &fakeChat{reply: llm.ChatResponse{Content: "ok"}}
	a, err := New(cfg, chat, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := query
	q.Benchmark = "locomo"
	arbor := memory.Bundle{Items: []memory.Item{
		{Channel: memory.ChannelLocal, Block: memory.BlockHistory, Text: "[2023-05-01 10:00] user: We set the budget at 2,000 euros.\nassistant: Noted."},
		{Channel: memory.ChannelTurn, Block: memory.BlockSupplemental, Text: "[2023-04-01 10:00] user: Lisbon in June."},
		{Channel: memory.ChannelFact, Block: memory.BlockFacts, Text: "The trip budget is 2,500 euros."},
		{Channel: memory.ChannelFact, Block: memory.BlockUpdate, Text: "budget: 2,000 euros -> 2,500 euros"},
		{Channel: memory.ChannelRecord, Block: memory.BlockState, Text: "- budget = 2,500 euros"},
	}}
	rendered := func(r memory.Renderer, b memory.Bundle) llm.ChatRequest {
		t.Helper()
		if _, err := a.Answer(context.Background(), q, b, r); err != nil {
			t.Fatal(err)
		}
		return chat.reqs[len(chat.reqs)-1]
	}
	own := rendered(arbormemRenderer{}, arbor)
	base := rendered(nil, bundle)
	if own.Temperature != base.Temperature || own.MaxTokens != base.MaxTokens || *own.Seed != *base.Seed || own.Purpose != base.Purpose {
		t.Errorf("answer settings differ: %+v vs %+v", own, base)
	}
	if own.Messages[0] != base.Messages[0] {
		t.Errorf("system anchors differ:\n%s\n---\n%s", own.Messages[0].Content, base.Messages[0].Content)
	}
	so, sb := stripMemory(own.Messages), stripMemory(base.Messages)
	if len(so) != len(sb) {
		t.Fatalf("templates differ in shape: %d vs %d messages", len(so), len(sb))
	}
	for i := range so {
		if so[i] != sb[i] {
			a, b := so[i].Content, sb[i].Content
			n := 0
			for n < len(a) && n < len(b) && a[n] == b[n] {
				n++
			}
			t.Errorf("message %d differs outside the memory blocks at byte %d:\n%.300s\n---\n%.300s", i, n, a[n:], b[n:])
		}
	}
	if own.Messages[len(own.Messages)-1] == base.Messages[len(base.Messages)-1] {
		t.Error("the memory content did not reach the messages")
	}
	// The harness template is the switch back: a baseline then gets a
	// different template from ArborMem's.
	cfg.Answer.Template = TemplateHarness
	h, _ := New(cfg, chat, nil)
	if _, err := h.Answer(context.Background(), q, bundle, nil); err != nil {
		t.Fatal(err)
	}
	if m := chat.reqs[len(chat.reqs)-1].Messages; len(m) != 1 || !strings.Contains(m[0].Content, "### EVIDENCE") {
		t.Errorf("answer.template harness did not render answer.tmpl: %+v", m)
	}
}

// arbormemRenderer lays out as ArborMem does (arbormem.System.Render).
type arbormemRenderer struct{}

func (arbormemRenderer) Render(q memory.Query, b memory.Bundle) ([]llm.Message, error) {
	return arbormem.RenderAnswer(nil, q, b)
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
	if len(res.Messages) != len(req.Messages) || res.Messages[0].Content != req.Messages[0].Content {
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
