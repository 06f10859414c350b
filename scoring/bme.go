package scoring

import (
	"context"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/text"
	"github.com/arbor-eval/arbor/pkg/textmemo"
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
	hay := normalizedItems(b.Items)
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

// normalizedSlots bounds normalizedMemo: BranchMemEval's items are
// interactions of a few KiB, so a full memo holds about 10 MiB (each
// text and its normal form).
const normalizedSlots = 2048

// normalizedMemo remembers items' normal forms: a full-context bundle is
// every interaction so far, so each question's recall saw nearly all of
// them at the questions before.
var normalizedMemo = textmemo.New(normalizedSlots, text.NormalizeAnswer)

// normalizedItems is text.NormalizeAnswer of the items' texts joined by
// "\n", made from each text's remembered normal form: those joined by a
// space, leaving out the empty ones. That is the same string because "\n"
// is a word separator that joins nothing across it: NFKC composes and
// reorders nothing across a line feed, the thousands-comma rule's
// lookahead needs digits where the line feed is, and a normal form is
// either empty or its words each followed by one space before the final
// one is trimmed (FuzzNormalizedItems compares the two).
func normalizedItems(items []memory.Item) string {
	parts := make([]string, 0, len(items))
	n := 0
	for _, it := range items {
		if p := normalizedMemo.GetShared(it.Text); p != "" {
			parts = append(parts, p)
			n += len(p) + 1
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}
