package scoring

import (
	"fmt"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// ForBenchmark returns the scorers of a benchmark's protocol, the primary
// one first (paper §6.1, "Evaluation": each benchmark's own procedure):
//   - branchmemeval: the rule-based scorer (BMERules);
//   - locomo: the official category F1 (LoCoMoF1), then, with
//     opt.LoCoMoJudge, the LLM judge for categories 1–4;
//   - longmemeval: the type-specific yes/no judge;
//   - beam: the rubric judge with event ordering by Kendall τ_b.
//
// judge is the judge role's client (llm/provider Set.Judge); nil, or
// opt.Judge.Mode "lexical", selects the offline lexical judge, whose scorers
// report Heuristic() true. prompts nil means the embedded templates.
func ForBenchmark(bench string, judge llm.Client, prompts *prompt.Set, opt Options) ([]Scorer, error) {
	if prompts == nil {
		prompts = prompt.Default()
	}
	if NeedsJudge(bench, opt) {
		var err error
		if judge, err = opt.judgeClient(judge); err != nil {
			return nil, err
		}
	}
	switch bench {
	case "branchmemeval":
		return []Scorer{BMERules{}}, nil
	case "locomo":
		s := []Scorer{LoCoMoF1{}}
		if opt.LoCoMoJudge {
			s = append(s, NewLoCoMoJudge(judge, prompts, opt))
		}
		return s, nil
	case "longmemeval":
		return []Scorer{NewLongMemEvalJudge(judge, prompts, opt)}, nil
	case "beam":
		return []Scorer{NewBEAMRubric(judge, prompts, opt)}, nil
	}
	return nil, fmt.Errorf("no scorers for benchmark %q (known: beam, branchmemeval, locomo, longmemeval)", bench)
}

// NeedsJudge reports whether ForBenchmark(bench, ..., opt) gives a scorer
// that asks the judge role (the model, or the lexical judge in its place):
// not BranchMemEval's rules, nor LoCoMo's F1 without opt.LoCoMoJudge;
// LongMemEval and BEAM always. An unknown bench counts as judged, so that
// ForBenchmark checks opt.Judge.Mode before it reports the name unknown.
// The plan counts judge calls by it, so that it prices what the run does.
func NeedsJudge(bench string, opt Options) bool {
	switch bench {
	case "branchmemeval":
		return false
	case "locomo":
		return opt.LoCoMoJudge
	}
	return true
}

// JudgeScorers returns only the judge-based scorers of a benchmark (none for
// branchmemeval): what `--judges` adds for each judge configuration.
func JudgeScorers(bench string, judge llm.Client, prompts *prompt.Set, opt Options) ([]Scorer, error) {
	if bench == "locomo" {
		opt.LoCoMoJudge = true
	}
	all, err := ForBenchmark(bench, judge, prompts, opt)
	if err != nil {
		return nil, err
	}
	var out []Scorer
	for _, s := range all {
		switch s.(type) {
		case BMERules, LoCoMoF1:
		default:
			out = append(out, s)
		}
	}
	return out, nil
}

// RecallerFor returns the evidence-recall function of a benchmark:
// BranchMemEval's gold/confounder check, else SourceRecall with
// answer-in-bundle recall (AnswerInBundle, golds of at most maxWords words;
// judge.answer_in_bundle_max_words) beside it.
func RecallerFor(bench string, maxWords int) Recaller {
	if bench == "branchmemeval" {
		return BMERecall
	}
	return func(q *datasets.Question, b memory.Bundle) EvidenceRecall {
		r := SourceRecall(q, b)
		r.Answer = AnswerInBundle(bench, q, b, maxWords)
		return r
	}
}

// ModelJudged reports whether s's verdicts come from a judge model: not a
// rule-based protocol (BranchMemEval's rules, LoCoMo's token F1) and not the
// offline lexical judge.
func ModelJudged(s Scorer) bool {
	switch s.(type) {
	case BMERules, LoCoMoF1:
		return false
	}
	return !s.Heuristic()
}
