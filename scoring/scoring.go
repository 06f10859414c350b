// Package scoring scores predictions by each benchmark's protocol and
// aggregates sample records into tables.
package scoring

import (
	"context"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// Result is the score of one prediction.
type Result struct {
	// Score is in [0,1]: 1/0 for exact protocols, a mean for rubric or F1 ones.
	Score float64 `json:"score"`
	// Outcome is a protocol-specific label: BranchMemEval "correct",
	// "confusion", "ambiguous", "miss"; judges "yes"/"no".
	Outcome string `json:"outcome,omitempty"`
	// Parts holds sub-scores (BEAM rubric items, LoCoMo F1 parts).
	Parts []float64 `json:"parts,omitempty"`
	// Raw keeps the judge's reply text for audit.
	Raw string `json:"raw,omitempty"`
	// Unparsed counts the judge replies behind this result that gave no
	// verdict where the protocol asks for one (scored 0; see verdict.go).
	Unparsed int `json:"unparsed,omitempty"`
}

// Scorer scores predictions for one benchmark protocol.
type Scorer interface {
	// Name identifies the protocol and judge ("bme-rules", "locomo-f1",
	// "longmemeval-judge:lexical").
	Name() string
	// Heuristic reports whether the scorer is an offline stand-in for a
	// model judge; tables made with it say so.
	Heuristic() bool
	Score(ctx context.Context, q *datasets.Question, prediction string) (Result, error)
}

// EvidenceRecall says whether a bundle holds what a question needs (DESIGN.md,
// "Measuring memory without a chat model").
type EvidenceRecall struct {
	// Gold is the share of required evidence present, in [0,1]: source
	// recall (the evidence interactions cited) on LoCoMo, LongMemEval and
	// BEAM; the gold answer in the bundle on BranchMemEval.
	Gold float64 `json:"gold"`
	// Answer is answer-in-bundle recall (AnswerInBundle): 1 or 0, -1 where
	// it is undefined.
	Answer float64 `json:"answer"`
	// Confounder is set where the benchmark defines one (BranchMemEval):
	// whether the confounder is present too.
	Confounder *bool `json:"confounder,omitempty"`
}

// Recaller computes evidence recall for a benchmark.
type Recaller func(q *datasets.Question, b memory.Bundle) EvidenceRecall

// SourceRecall fills Answer with -1 (undefined); RecallerFor adds the
// answer-in-bundle figure.

// SourceRecall is the evidence recall of benchmarks whose questions list
// evidence interactions (LoCoMo evidence dia_ids, LongMemEval has_answer
// turns): the share of q.Evidence cited by any bundle item. Questions that
// list no evidence return Gold -1, which aggregation skips.
func SourceRecall(q *datasets.Question, b memory.Bundle) EvidenceRecall {
	if len(q.Evidence) == 0 {
		return EvidenceRecall{Gold: -1, Answer: -1}
	}
	src := b.Sources()
	hit := 0
	for _, id := range q.Evidence {
		if src[id] {
			hit++
		}
	}
	return EvidenceRecall{Gold: float64(hit) / float64(len(q.Evidence)), Answer: -1}
}
