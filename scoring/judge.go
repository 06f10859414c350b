package scoring

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// Options configure the scorers ForBenchmark builds.
type Options struct {
	// Judge holds the judge settings of the config (judge.temperature,
	// judge.max_tokens, judge.mode). Temperature applies to every judge
	// call (LongMemEval's evaluate_qa.py uses 0); MaxTokens bounds
	// LongMemEval's yes/no reply (official: 10; 0 means 10); Mode "lexical"
	// uses the offline judge even when a judge model is configured, "chat"
	// requires one, and "auto" (or "") uses the model when there is one.
	Judge config.Judge
	// JudgeName labels the judge configuration in scorer names
	// ("longmemeval-judge:<JudgeName>"). Empty means "chat" for a model
	// judge and "lexical" for the offline one.
	JudgeName string
	// LoCoMoJudge adds the LLM judge (CORRECT/WRONG, categories 1–4) after
	// the official F1 scorer for LoCoMo.
	LoCoMoJudge bool
	// BEAMOfficial reproduces the released BEAM evaluation code's quirks
	// (see BEAMRubric) instead of the corrected protocol.
	BEAMOfficial bool
}

func (o Options) judgeName(j llm.Client) string {
	switch {
	case j == nil:
		return "lexical"
	case o.JudgeName != "":
		return o.JudgeName
	default:
		return "chat"
	}
}

// judgeClient applies judge.mode to the configured judge client.
func (o Options) judgeClient(j llm.Client) (llm.Client, error) {
	switch o.Judge.Mode {
	case "lexical":
		return nil, nil
	case "chat":
		if j == nil {
			return nil, errors.New(`judge.mode is "chat" but the judge role has no model: set models.judge.endpoints, or judge.mode auto or lexical`)
		}
	case "", "auto":
	default:
		return nil, fmt.Errorf("judge.mode %q: want auto, chat or lexical", o.Judge.Mode)
	}
	return j, nil
}

// JudgeInput is the data every judge template receives. Date is always set:
// the judge must know when the question was asked to grade relative dates
// ("last Tuesday") and durations.
type JudgeInput struct {
	// Date is the question's date (FormatQuestionDate).
	Date string
	// Question is the question text.
	Question string
	// Gold is the reference answer; for LongMemEval preference questions the
	// rubric, and for abstention questions the explanation of why the
	// question cannot be answered.
	Gold string
	// Response is the answer being graded.
	Response string
	// RubricItem is one BEAM rubric item.
	RubricItem string
	// First and Second are the two snippets of a BEAM equivalence check.
	First, Second string
}

// FormatQuestionDate renders a question's date for judge prompts, in
// LongMemEval's style ("2023/05/20 (Sat) 02:21"). A question without a date
// is an error: a judge told nothing (or "not specified") grades temporal
// answers against the wrong day.
func FormatQuestionDate(q *datasets.Question) (string, error) {
	if q.Time.IsZero() {
		return "", fmt.Errorf("question %s has no date: the judge needs the question's date", q.ID)
	}
	return q.Time.Format("2006/01/02 (Mon) 15:04"), nil
}

// judgeCore is what every judge scorer shares: the client (nil for the
// lexical judge), its prompts, sampling settings and the scorer name. It
// provides the Name and Heuristic methods of Scorer.
type judgeCore struct {
	client  llm.Client
	prompts *prompt.Set
	temp    float64
	name    string
	// parse is judge.parse: ParseStrict (default) or ParseOfficial.
	parse string
}

// newJudgeCore names the scorer "<base>:<judge name>"; prompts nil means the
// embedded templates.
func newJudgeCore(base string, judge llm.Client, prompts *prompt.Set, opt Options) judgeCore {
	if prompts == nil {
		prompts = prompt.Default()
	}
	return judgeCore{client: judge, prompts: prompts, temp: opt.Judge.Temperature, name: base + ":" + opt.judgeName(judge), parse: opt.Judge.Parse}
}

// Name implements Scorer.
func (j judgeCore) Name() string { return j.name }

// Heuristic implements Scorer: the lexical judge is an offline stand-in.
func (j judgeCore) Heuristic() bool { return j.client == nil }

// ask renders template name with in and returns the judge's reply.
func (j judgeCore) ask(ctx context.Context, name string, in JudgeInput, maxTokens int, format string) (string, error) {
	text, err := j.prompts.Render(name, in)
	if err != nil {
		return "", err
	}
	msgs := []llm.Message{{Role: "user", Content: text}}
	// An imported official judge may carry the system message its own code
	// sends (pkg/prompt SystemPart).
	sys, ok, err := j.prompts.RenderPart(name, prompt.SystemPart, in)
	if err != nil {
		return "", err
	}
	if ok {
		msgs = append([]llm.Message{{Role: "system", Content: sys}}, msgs...)
	}
	resp, err := j.client.Chat(ctx, llm.ChatRequest{
		Messages:       msgs,
		Temperature:    j.temp,
		MaxTokens:      maxTokens,
		ResponseFormat: format,
		Purpose:        "judge",
	})
	if err != nil {
		return "", fmt.Errorf("judge %s: %w", name, err)
	}
	return resp.Content, nil
}

// RepliedYes is LongMemEval's official verdict rule (evaluate_qa.py: `'yes' in
// eval_response.lower()`): any "yes" in the reply counts, "Yes." and "yes,
// because ..." alike; "No" and unreadable replies do not.
func RepliedYes(reply string) bool {
	return strings.Contains(strings.ToLower(strings.TrimSpace(reply)), "yes")
}

func verdict(yes bool, raw string) Result {
	if yes {
		return Result{Score: 1, Outcome: "yes", Raw: raw}
	}
	return Result{Score: 0, Outcome: "no", Raw: raw}
}

// yesNoResult scores a yes/no judge reply (ParseYesNo): yes 1, no 0,
// unparsed 0 and counted.
func (j judgeCore) yesNoResult(reply string) Result {
	switch ParseYesNo(reply, j.parse) {
	case "yes":
		return verdict(true, reply)
	case "no":
		return verdict(false, reply)
	}
	return Result{Outcome: Unparsed, Raw: reply, Unparsed: 1}
}

// judgeInput fills the fields every judge prompt shares; it fails for a
// question without a date.
func judgeInput(q *datasets.Question, prediction string) (JudgeInput, error) {
	d, err := FormatQuestionDate(q)
	if err != nil {
		return JudgeInput{}, err
	}
	return JudgeInput{Date: d, Question: q.Text, Gold: q.Gold, Response: prediction}, nil
}
