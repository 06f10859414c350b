package scoring

import (
	"context"
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// LongMemEval's judge protocol, after xiaowu0162/LongMemEval
// src/evaluation/evaluate_qa.py (get_anscheck_prompt and the call in
// __main__): one user message, temperature 0, at most 10 tokens, and the
// answer is correct when the reply contains "yes". The five prompts are our
// own wording of its rules; unlike the official prompts they also carry the
// question's date.

// LongMemEvalPrompt picks the judge template for a question: abstention
// (`_abs` questions) first, then by question type. Unknown types are an
// error, as in the official script.
func LongMemEvalPrompt(q *datasets.Question) (string, error) {
	if q.Abstention || strings.Contains(q.ID, "_abs") {
		return "judge_lme_abstention", nil
	}
	switch q.Category {
	case "single-session-user", "single-session-assistant", "multi-session":
		return "judge_lme_standard", nil
	case "temporal-reasoning":
		return "judge_lme_temporal", nil
	case "knowledge-update":
		return "judge_lme_knowledge_update", nil
	case "single-session-preference":
		return "judge_lme_preference", nil
	}
	return "", fmt.Errorf("longmemeval question %s: no judge prompt for question type %q", q.ID, q.Category)
}

// LongMemEvalJudge scores LongMemEval answers with a judge model, or with
// the lexical judge (labelled heuristic) when no model is configured.
type LongMemEvalJudge struct {
	judgeCore
	maxTokens int
}

// NewLongMemEvalJudge returns the LongMemEval judge; judge nil selects the
// lexical judge. prompts nil means the embedded templates.
func NewLongMemEvalJudge(judge llm.Client, prompts *prompt.Set, opt Options) *LongMemEvalJudge {
	mt := opt.Judge.MaxTokens
	if mt <= 0 {
		mt = 10
	}
	return &LongMemEvalJudge{judgeCore: newJudgeCore("longmemeval-judge", judge, prompts, opt), maxTokens: mt}
}

// Score implements Scorer.
func (j *LongMemEvalJudge) Score(ctx context.Context, q *datasets.Question, prediction string) (Result, error) {
	tmpl, err := LongMemEvalPrompt(q)
	if err != nil {
		return Result{}, err
	}
	in, err := j.input(q, prediction)
	if err != nil {
		return Result{}, err
	}
	if j.client == nil {
		return lexicalLongMemEval(tmpl, in), nil
	}
	reply, err := j.ask(ctx, tmpl, in, j.maxTokens, "")
	if err != nil {
		return Result{}, fmt.Errorf("longmemeval question %s: %w", q.ID, err)
	}
	return j.yesNoResult(reply), nil
}

// input fills the judge data; preference questions whose rubric came as a
// list grade against the joined list.
func (j *LongMemEvalJudge) input(q *datasets.Question, prediction string) (JudgeInput, error) {
	if j.client == nil {
		return JudgeInput{Question: q.Text, Gold: lmeGold(q), Response: prediction}, nil
	}
	in, err := judgeInput(q, prediction)
	in.Gold = lmeGold(q)
	return in, err
}

func lmeGold(q *datasets.Question) string {
	if strings.TrimSpace(q.Gold) == "" && len(q.Rubric) > 0 {
		return strings.Join(q.Rubric, "\n")
	}
	return q.Gold
}

// lexicalLongMemEval is the offline stand-in for each prompt's rule.
func lexicalLongMemEval(tmpl string, in JudgeInput) Result {
	var yes bool
	switch tmpl {
	case "judge_lme_abstention":
		yes = lexicalAbstains(in.Response)
	case "judge_lme_preference":
		yes = lexicalRecall(in.Gold, in.Response, 0) >= 0.3
	case "judge_lme_temporal":
		yes = lexicalCorrect(in.Gold, in.Response, 1, 0.5)
	default:
		yes = lexicalCorrect(in.Gold, in.Response, 0, 0.5)
	}
	return verdict(yes, "")
}
