package scoring

import (
	"context"
	"fmt"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// The LLM-judge protocol most LoCoMo results since Mem0 report (mem0ai/mem0
// evaluation/metrics/llm_judge.py, ACCURACY_PROMPT and evaluate_llm_judge):
// the judge labels an answer CORRECT or WRONG, generous about topic and date
// format, in a JSON object {"label": ...}; categories 1–4 only (category 5
// is skipped there). Our template words the same rules and adds the
// question's date.

// locomoJudgeMaxTokens leaves room for a label and, if the model adds one, a
// short reason (the reference call sets no limit).
const locomoJudgeMaxTokens = 256

// LoCoMoJudge is the LLM judge for LoCoMo categories 1–4. Category 5 has no
// judge protocol; it is scored by the official abstention-phrase rule and
// marked Outcome "rule".
type LoCoMoJudge struct {
	judgeCore
}

// NewLoCoMoJudge returns the LoCoMo judge; judge nil selects the lexical
// judge (heuristic).
func NewLoCoMoJudge(judge llm.Client, prompts *prompt.Set, opt Options) *LoCoMoJudge {
	return &LoCoMoJudge{newJudgeCore("locomo-judge", judge, prompts, opt)}
}

// Score implements Scorer.
func (j *LoCoMoJudge) Score(ctx context.Context, q *datasets.Question, prediction string) (Result, error) {
	switch q.Category {
	case "5":
		r := Result{Outcome: "rule"}
		if LoCoMoAbstained(prediction) {
			r.Score = 1
		}
		return r, nil
	case "1", "2", "3", "4":
	default:
		return Result{}, fmt.Errorf("locomo question %s: category %q is not one of 1-5", q.ID, q.Category)
	}
	if j.client == nil {
		if lexicalCorrect(q.Gold, prediction, 0, 0.5) {
			return Result{Score: 1, Outcome: "correct"}, nil
		}
		return Result{Score: 0, Outcome: "wrong"}, nil
	}
	in, err := judgeInput(q, prediction)
	if err != nil {
		return Result{}, err
	}
	reply, err := j.ask(ctx, "judge_locomo", in, locomoJudgeMaxTokens, "json_object")
	if err != nil {
		return Result{}, fmt.Errorf("locomo question %s: %w", q.ID, err)
	}
	label := ParseLoCoMoLabel(reply)
	r := Result{Outcome: label, Raw: reply}
	switch label {
	case "correct":
		r.Score = 1
	case Unparsed:
		r.Unparsed = 1
	}
	return r, nil
}
