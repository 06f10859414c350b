// Package answer is the shared answer step: it turns a question and the
// evidence bundle a memory system recalled into a prediction. Every system
// is answered through the same template, the paper's runtime assembly
// (arbormem.RenderAnswer: one system anchor, the same directives and
// answer-format lines, only the memory blocks differ), and the same answer
// model with the same decoding settings (paper appendix C.1, P:1282-1285:
// "all methods use the same answer model, decoding configuration, evidence
// limit, and answer template"). answer.template: harness restores the
// harness template (answer.tmpl) for systems without their own layout.
// Offline, an extractive heuristic answers instead, and says so through
// Heuristic.
package answer

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// Template is the name of the harness answer prompt (pkg/prompt/templates),
// used under answer.template: harness.
const Template = "answer"

// The answer templates (answer.template).
const (
	// TemplatePaper answers every system through the paper's runtime
	// assembly (arbormem.RenderAnswer).
	TemplatePaper = "paper"
	// TemplateHarness answers a system without its own layout through
	// answer.tmpl, which allows "the information is not available"; ArborMem
	// keeps the runtime assembly. The layout before issue 30.
	TemplateHarness = "harness"
)

// Answerer answers one question from one evidence bundle.
type Answerer interface {
	// Answer produces the prediction for q from b. When r is not nil the
	// chat answerer sends r.Render(q, b) instead of the shared template; the
	// heuristic answerer always reads the bundle.
	Answer(ctx context.Context, q memory.Query, b memory.Bundle, r memory.Renderer) (Result, error)
	// Heuristic reports whether this is the offline stand-in for an answer
	// model; results made with it are labelled heuristic.
	Heuristic() bool
}

// Result is one answer with what it cost.
type Result struct {
	Text    string        `json:"text"`
	TTFT    time.Duration `json:"ttft"`
	Latency time.Duration `json:"latency"`
	// Messages is what was sent to the model (nil for the heuristic).
	Messages         []llm.Message `json:"messages,omitempty"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
}

// NotAvailable is the heuristic's reply when no evidence matches the question.
const NotAvailable = "The information is not available in the provided evidence."

// New picks the answerer configured by cfg.Answer.Answerer: "chat" needs a
// chat client, "heuristic" is the extractive answerer, and "auto" (or "")
// uses chat when a client is given. prompts nil means the embedded set.
func New(cfg *config.Config, chat llm.Client, prompts *prompt.Set) (Answerer, error) {
	if cfg == nil {
		return nil, errors.New("answer: nil config")
	}
	if prompts == nil {
		prompts = prompt.Default()
	}
	mode := cfg.Answer.Answerer
	switch mode {
	case "heuristic":
		return Extractive{}, nil
	case "chat":
		if chat == nil {
			return nil, errors.New("answer.answerer is \"chat\" but no chat model is configured (models.chat.endpoints)")
		}
	case "auto", "":
		if chat == nil {
			return Extractive{}, nil
		}
	default:
		return nil, fmt.Errorf("answer.answerer: %q is not one of auto, chat, heuristic", mode)
	}
	if cfg.Answer.MaxTokens <= 0 {
		return nil, fmt.Errorf("answer.max_tokens: %d must be positive (appendix C.1 uses 512)", cfg.Answer.MaxTokens)
	}
	switch cfg.Answer.Template {
	case TemplatePaper:
		if _, err := prompts.Text("system_anchor"); err != nil {
			return nil, fmt.Errorf("answer: %w", err)
		}
	case TemplateHarness:
		if _, err := prompts.Text(Template); err != nil {
			return nil, fmt.Errorf("answer: %w", err)
		}
	default:
		return nil, fmt.Errorf("answer.template: %q is not one of %s, %s", cfg.Answer.Template, TemplatePaper, TemplateHarness)
	}
	return &chatAnswerer{cfg: cfg.Answer, chat: chat, prompts: prompts}, nil
}

type chatAnswerer struct {
	cfg     config.Answer
	chat    llm.Client
	prompts *prompt.Set
}

func (a *chatAnswerer) Heuristic() bool { return false }

// thinkRe matches a leading reasoning block some servers leave in content.
var thinkRe = regexp.MustCompile(`(?s)^\s*<think>.*?</think>\s*`)

func (a *chatAnswerer) Answer(ctx context.Context, q memory.Query, b memory.Bundle, r memory.Renderer) (Result, error) {
	var msgs []llm.Message
	var err error
	switch {
	case r != nil:
		msgs, err = r.Render(q, b)
	case a.cfg.Template == TemplateHarness:
		msgs, err = RenderHarness(a.prompts, q, b)
	default:
		msgs, err = RenderShared(a.prompts, q, b)
	}
	if err != nil {
		return Result{}, fmt.Errorf("answer %s: render: %w", q.ID, err)
	}
	seed := a.cfg.Seed
	req := llm.ChatRequest{
		Messages: msgs,
		// Sent explicitly even when 0: servers otherwise apply the model's
		// own default (../shared/notes/libraries.md, go-openai).
		Temperature: a.cfg.Temperature,
		MaxTokens:   a.cfg.MaxTokens,
		Seed:        &seed,
		Purpose:     "answer",
	}
	if a.cfg.EnableThinking != nil {
		req.ChatTemplateKwargs = map[string]any{"enable_thinking": *a.cfg.EnableThinking}
	}
	start := time.Now()
	resp, err := a.chat.Chat(ctx, req)
	if err != nil {
		return Result{Messages: msgs}, fmt.Errorf("answer %s: %w", q.ID, err)
	}
	lat := resp.Latency
	if lat == 0 {
		lat = time.Since(start)
	}
	ttft := resp.TTFT
	if ttft == 0 {
		ttft = lat
	}
	return Result{
		Text:             strings.TrimSpace(thinkRe.ReplaceAllString(resp.Content, "")),
		TTFT:             ttft,
		Latency:          lat,
		Messages:         msgs,
		PromptTokens:     resp.PromptTokens,
		CompletionTokens: resp.CompletionTokens,
	}, nil
}

// evidence is one bundle item as the template shows it.
type evidence struct {
	N     int
	Label string
	// Time is empty when the item has none or its text already starts
	// with its timestamp (the baselines write "[2023-05-30 23:40] ...").
	Time string
	Text string
}

var labels = map[memory.Channel]string{
	memory.ChannelLocal:   "conversation",
	memory.ChannelTurn:    "retrieved conversation",
	memory.ChannelFact:    "fact",
	memory.ChannelRecord:  "record",
	memory.ChannelSummary: "session summary",
}

// RenderShared renders the one answer template of every system for q and b:
// the paper's runtime assembly, with a baseline's evidence where ArborMem's
// evidence of its kind goes (arbormem.RenderAnswer, arbormem.LayoutBlock).
func RenderShared(prompts *prompt.Set, q memory.Query, b memory.Bundle) ([]llm.Message, error) {
	return arbormem.RenderAnswer(prompts, q, b)
}

// RenderHarness renders the harness answer template (answer.template:
// harness) for q and b as the messages sent to the answer model: one user
// message holding the evidence in bundle order, the question's time under
// "### CURRENT TIME", the instruction and the question.
func RenderHarness(prompts *prompt.Set, q memory.Query, b memory.Bundle) ([]llm.Message, error) {
	if prompts == nil {
		prompts = prompt.Default()
	}
	ev := make([]evidence, 0, len(b.Items))
	for i, it := range b.Items {
		label := it.Block
		if label == "" {
			label = labels[it.Channel]
		}
		if label == "" {
			label = string(it.Channel)
		}
		ts := ""
		if !it.Time.IsZero() {
			ts = dialog.FormatTime(it.Time)
			if strings.HasPrefix(strings.TrimSpace(it.Text), "["+ts+"]") {
				ts = ""
			}
		}
		ev = append(ev, evidence{N: i + 1, Label: label, Time: ts, Text: strings.TrimSpace(it.Text)})
	}
	directives, err := prompts.Directives(q.Benchmark)
	if err != nil {
		return nil, err
	}
	text, err := prompts.Render(Template, struct {
		Evidence   []evidence
		Now        string
		Question   string
		Directives string
	}{ev, dialog.FormatTime(q.Time), strings.TrimSpace(q.Text), directives})
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "user", Content: text}}, nil
}
