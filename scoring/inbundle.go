package scoring

import (
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/text"
)

// DefaultAnswerMaxWords is judge.answer_in_bundle_max_words's default: the
// longest normalised gold answer, in words, that answer-in-bundle recall is
// defined for. Longer golds (LongMemEval's preference rubrics, BEAM's ideal
// responses and summaries) are descriptions of an answer, not a string that
// a bundle could contain.
const DefaultAnswerMaxWords = 10

// beamNoGoldString are BEAM's categories whose reference is a response, a
// summary or a compliance statement rather than an answer string
// (ideal_response, ideal_summary, expected_compliance).
var beamNoGoldString = map[string]bool{
	"abstention": true, "summarization": true, "instruction_following": true, "preference_following": true,
}

// AnswerInBundle is answer-in-bundle recall: 1 when the gold answer,
// normalised as the benchmark's scorer normalises answers, appears at a
// token boundary in the bundle's text, 0 when it does not, and -1 where it
// is undefined: abstention questions, golds longer than maxWords words,
// BEAM categories without a gold string. LoCoMo uses its official
// normalisation and stemming (the tokens its F1 compares); the other
// benchmarks BranchMemEval's answer normalisation. Unlike source recall it
// gives a lossy summary no credit for the turns it covers, only for the
// answer it kept.
func AnswerInBundle(bench string, q *datasets.Question, b memory.Bundle, maxWords int) float64 {
	if maxWords <= 0 {
		maxWords = DefaultAnswerMaxWords
	}
	bench = benchKeyOr(bench)
	if q.Abstention || strings.TrimSpace(q.Gold) == "" || (bench == "beam" && beamNoGoldString[q.Category]) {
		return -1
	}
	norm := text.NormalizeAnswer
	if bench == "locomo" {
		if q.Category == "5" {
			return -1
		}
		norm = func(s string) string { return strings.Join(LoCoMoTokens(s), " ") }
	}
	gold := norm(q.Gold)
	if gold == "" || len(strings.Fields(gold)) > maxWords {
		return -1
	}
	texts := make([]string, len(b.Items))
	for i, it := range b.Items {
		texts[i] = it.Text
	}
	if text.ContainsAnswer(norm(strings.Join(texts, "\n")), gold) {
		return 1
	}
	return 0
}

// benchKeyOr is benchKey, or the folded name for an unknown benchmark.
func benchKeyOr(name string) string {
	if k := benchKey(name); k != "" {
		return k
	}
	return foldName(name)
}
