package scoring

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/jsonx"
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
	if label == "correct" {
		r.Score = 1
	}
	return r, nil
}

var labelWord = regexp.MustCompile(`\b(CORRECT|WRONG)\b`)

// ParseLoCoMoLabel reads the judge's verdict: the "label" of the JSON
// object, else the last standalone CORRECT or WRONG in the reply. It
// returns "correct", "wrong" or "unparsed" (scored 0).
func ParseLoCoMoLabel(reply string) string {
	var v struct {
		Label string `json:"label"`
	}
	if err := jsonx.Unmarshal(reply, &v); err == nil {
		switch strings.ToUpper(strings.TrimSpace(v.Label)) {
		case "CORRECT":
			return "correct"
		case "WRONG":
			return "wrong"
		}
	}
	m := labelWord.FindAllString(strings.ToUpper(reply), -1)
	if len(m) == 0 {
		return "unparsed"
	}
	return strings.ToLower(m[len(m)-1])
}
