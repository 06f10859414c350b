package scoring

import (
	"context"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/text"
)

// BranchMemEval's rule-based scoring (paper appendix B.3, "Online Evaluation
// and Scoring", and its Table "Rule-based scoring outcomes"). No judge model
// is involved, so the scorer is exact, not heuristic.

// The four BranchMemEval outcomes (appendix B.3): the prediction contains
// the gold g but not the confounder c, c but not g, both, or neither.
const (
	OutcomeCorrect   = "correct"
	OutcomeConfusion = "confusion" // "trajectory confusion" in the paper
	OutcomeAmbiguous = "ambiguous"
	OutcomeMiss      = "miss"
)

// BMERules is the BranchMemEval scorer: normalised containment of the gold
// answer and of the confounder at token boundaries.
type BMERules struct{}

// Name implements Scorer.
func (BMERules) Name() string { return "bme-rules" }

// Heuristic implements Scorer: the paper's protocol is rule-based itself.
func (BMERules) Heuristic() bool { return false }

// Score implements Scorer. Only "correct" scores 1: an answer that names
// both values has not told them apart.
func (BMERules) Score(_ context.Context, q *datasets.Question, prediction string) (Result, error) {
	p := text.NormalizeAnswer(prediction)
	g := text.ContainsAnswer(p, text.NormalizeAnswer(q.Gold))
	c := q.Confounder != "" && text.ContainsAnswer(p, text.NormalizeAnswer(q.Confounder))
	out := BMEOutcome(g, c)
	r := Result{Outcome: out}
	if out == OutcomeCorrect {
		r.Score = 1
	}
	return r, nil
}

// BMEOutcome maps gold and confounder matches to the outcome label.
func BMEOutcome(gold, confounder bool) string {
	switch {
	case gold && !confounder:
		return OutcomeCorrect
	case confounder && !gold:
		return OutcomeConfusion
	case gold && confounder:
		return OutcomeAmbiguous
	default:
		return OutcomeMiss
	}
}

// BMERecall is BranchMemEval's evidence recall (scoring.Recaller): Gold is 1
// when the normalised gold appears at a token boundary in the bundle's item
// texts, and Confounder says whether the confounder does too, which separates
// "never retrieved" from "retrieved next to the trap".
func BMERecall(q *datasets.Question, b memory.Bundle) EvidenceRecall {
	texts := make([]string, len(b.Items))
	for i, it := range b.Items {
		texts[i] = it.Text
	}
	hay := text.NormalizeAnswer(strings.Join(texts, "\n"))
	var r EvidenceRecall
	if text.ContainsAnswer(hay, text.NormalizeAnswer(q.Gold)) {
		r.Gold = 1
	}
	r.Answer = r.Gold // BranchMemEval's recall is answer-in-bundle already
	if q.Confounder != "" {
		c := text.ContainsAnswer(hay, text.NormalizeAnswer(q.Confounder))
		r.Confounder = &c
	}
	return r
}

var _ Recaller = BMERecall
