package scoring

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// BEAM's per-item evaluation, after mohammadtavakoli78/BEAM evaluation.py
// (evaluate_<category>, unified_llm_judge_base_prompt from src/prompts.py,
// llm_equivalence, align_with_llm, event_ordering_score) and
// run_evaluation.py (category dispatch).
//
// Corrected protocol (the default):
//   - each rubric item is judged once: 1, 0.5 or 0, read leniently from the
//     reply's JSON; the question score is the mean over items;
//   - the judge sees the question (and its date);
//   - event_ordering is the normalised Kendall τ_b, (τ+1)/2, between the
//     rubric's event order and the answer's lines after aligning each line
//     to a rubric event with the equivalence check; blank lines and list
//     markers are dropped first.
//
// Official mode reproduces the released code:
//   - `score += int(response['score'])`: a 0.5 verdict truncates to 0;
//   - the prompt's <question> placeholder is never filled (only
//     <rubric_item> and <llm_response> are replaced), so the judge reads the
//     literal "<question>";
//   - event-ordering lines are `llm_response.split("\n")` as they are,
//     blank lines included;
//   - an undefined τ_b (scipy's NaN) scores 0.
// Both modes give the judge the question's date.

// BEAMRubricMaxTokens is the max_tokens of one rubric item's judgement:
// room for the JSON verdict and its reason. Exported so that the plan's
// token estimate prices a judgement by the same bound.
const BEAMRubricMaxTokens = 1024

const (
	// beamEquivMaxTokens: the equivalence check answers YES or NO.
	beamEquivMaxTokens = 10
	// beamOfficialQuestion is what the released code leaves in the prompt.
	beamOfficialQuestion = "<question>"
)

// BEAMRubric scores BEAM answers: rubric items by a judge model (or the
// lexical judge, heuristic), event ordering by Kendall τ_b.
type BEAMRubric struct {
	judgeCore
	official bool
}

// NewBEAMRubric returns the BEAM scorer; judge nil selects the lexical
// judge. opt.BEAMOfficial selects the released code's behaviour.
func NewBEAMRubric(judge llm.Client, prompts *prompt.Set, opt Options) *BEAMRubric {
	base := "beam-rubric"
	if opt.BEAMOfficial {
		base = "beam-rubric-official"
	}
	return &BEAMRubric{judgeCore: newJudgeCore(base, judge, prompts, opt), official: opt.BEAMOfficial}
}

// Score implements Scorer.
func (b *BEAMRubric) Score(ctx context.Context, q *datasets.Question, prediction string) (Result, error) {
	if len(q.Rubric) == 0 {
		return Result{}, fmt.Errorf("beam question %s: no rubric items to grade against", q.ID)
	}
	if q.Category == "event_ordering" {
		return b.eventOrdering(ctx, q, prediction)
	}
	var in JudgeInput
	if b.client != nil {
		var err error
		if in, err = judgeInput(q, prediction); err != nil {
			return Result{}, err
		}
		if b.official {
			in.Question = beamOfficialQuestion
		}
	}
	r := Result{Parts: make([]float64, len(q.Rubric))}
	var raws []string
	unparsed := 0
	sum := 0.0
	for i, item := range q.Rubric {
		var s float64
		if b.client == nil {
			s = lexicalRubricItem(item, prediction)
		} else {
			in.RubricItem = item
			reply, err := b.ask(ctx, "judge_beam_rubric", in, BEAMRubricMaxTokens, "")
			if err != nil {
				return Result{}, fmt.Errorf("beam question %s rubric item %d: %w", q.ID, i+1, err)
			}
			raws = append(raws, reply)
			v, ok := ParseRubricScore(reply)
			if !ok {
				unparsed++
			}
			s = b.itemScore(v)
		}
		r.Parts[i] = s
		sum += s
	}
	r.Score = sum / float64(len(q.Rubric))
	r.Unparsed = unparsed
	if unparsed > 0 {
		r.Outcome = fmt.Sprintf("unparsed %d/%d", unparsed, len(q.Rubric))
	}
	if len(raws) > 0 {
		js, _ := json.Marshal(raws)
		r.Raw = string(js)
	}
	return r, nil
}

// itemScore turns a judge's value into the item score: truncated to an
// integer in official mode, clamped to [0, 1] otherwise.
func (b *BEAMRubric) itemScore(v float64) float64 {
	if b.official {
		return math.Trunc(v)
	}
	return math.Max(0, math.Min(1, v))
}

var (
	listMarkers = regexp.MustCompile(`^\s*(?:[-*•]+|\(?[0-9]+[.)])\s+`)
)

// rubricContent drops BEAM's "LLM response should state:" style preamble
// from a rubric item for lexical matching.
func rubricContent(item string) string {
	if i := strings.Index(item, ":"); i >= 0 && i < 60 && strings.Contains(strings.ToLower(item[:i]), "should") {
		return item[i+1:]
	}
	return item
}

// lexicalRubricItem is the offline stand-in for one rubric verdict.
func lexicalRubricItem(item, response string) float64 {
	switch r := lexicalRecall(rubricContent(item), response, 0); {
	case r >= 0.75:
		return 1
	case r >= 0.4:
		return 0.5
	}
	return 0
}

// EventOrderingDetail is what an event-ordering score is made of; it is
// kept as the result's Raw JSON.
type EventOrderingDetail struct {
	TauB    *float64 `json:"tau_b"` // nil where undefined
	TauNorm float64  `json:"tau_norm"`
	// Precision, Recall and F1 of the aligned events and FinalScore =
	// TauNorm·F1 are the official code's other outputs, kept for audit.
	Precision  float64  `json:"precision"`
	Recall     float64  `json:"recall"`
	F1         float64  `json:"f1"`
	FinalScore float64  `json:"final_score"`
	Aligned    []string `json:"aligned"`
}

func (b *BEAMRubric) eventOrdering(ctx context.Context, q *datasets.Question, prediction string) (Result, error) {
	lines := AnswerLines(prediction, b.official)
	unparsed := 0
	var equiv func(ref, line string) (bool, error)
	if b.client == nil {
		equiv = func(ref, line string) (bool, error) { return TokenF1(line, ref) >= 0.5, nil }
	} else {
		in, err := judgeInput(q, prediction)
		if err != nil {
			return Result{}, err
		}
		equiv = func(ref, line string) (bool, error) {
			in.First, in.Second = ref, line
			reply, err := b.ask(ctx, "judge_beam_equivalence", in, beamEquivMaxTokens, "")
			if err != nil {
				return false, fmt.Errorf("beam question %s equivalence check: %w", q.ID, err)
			}
			v := ParseYesNo(reply, b.parse)
			if v == Unparsed {
				unparsed++
			}
			return v == "yes", nil
		}
	}
	aligned, err := AlignEvents(q.Rubric, lines, equiv)
	if err != nil {
		return Result{}, err
	}
	d := EventOrdering(q.Rubric, aligned, b.official)
	raw, _ := json.Marshal(d)
	r := Result{Score: d.TauNorm, Raw: string(raw), Unparsed: unparsed}
	if unparsed > 0 {
		r.Outcome = fmt.Sprintf("unparsed %d equivalence replies", unparsed)
	}
	return r, nil
}

// AnswerLines splits an answer into its listed events. Official mode is the
// released code's `split("\n")`; otherwise lines are trimmed, list markers
// ("1.", "-", "•") removed and blank lines dropped.
func AnswerLines(answer string, official bool) []string {
	raw := strings.Split(answer, "\n")
	if official {
		return raw
	}
	var out []string
	for _, l := range raw {
		l = strings.TrimSpace(listMarkers.ReplaceAllString(l, ""))
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// AlignEvents is align_with_llm: each answer line, in order, is replaced by
// the first not-yet-used reference event it is equivalent to, and kept as
// it is otherwise. Equivalence verdicts are memoised per pair.
func AlignEvents(reference, lines []string, equiv func(ref, line string) (bool, error)) ([]string, error) {
	used := make([]bool, len(reference))
	memo := map[[2]string]bool{}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		match := -1
		for i, r := range reference {
			if used[i] {
				continue
			}
			k := [2]string{r, l}
			ok, seen := memo[k]
			if !seen {
				var err error
				if ok, err = equiv(r, l); err != nil {
					return nil, err
				}
				memo[k] = ok
			}
			if ok {
				match = i
				break
			}
		}
		if match >= 0 {
			used[match] = true
			out = append(out, reference[match])
		} else {
			out = append(out, l)
		}
	}
	return out, nil
}

// EventOrdering scores aligned answer events against the reference order
// as event_ordering_score does: ranks over the union of both lists (items
// missing from a list share the rank len(union)+1), Kendall τ_b, and the
// set precision, recall and F1. Undefined τ_b scores 0 in official mode and
// follows NormalizedTau otherwise; never NaN.
func EventOrdering(reference, aligned []string, official bool) EventOrderingDetail {
	var union []string
	seen := map[string]bool{}
	for _, s := range append(append([]string{}, reference...), aligned...) {
		if !seen[s] {
			seen[s] = true
			union = append(union, s)
		}
	}
	tie := float64(len(union) + 1)
	rank := func(seq []string) []float64 {
		r := map[string]float64{}
		for i, s := range seq {
			r[s] = float64(i + 1) // a repeated item keeps its last position, like the dict comprehension
		}
		out := make([]float64, len(union))
		for i, u := range union {
			if v, ok := r[u]; ok {
				out[i] = v
			} else {
				out[i] = tie
			}
		}
		return out
	}
	x, y := rank(reference), rank(aligned)
	d := EventOrderingDetail{Aligned: aligned}
	if tau, ok := KendallTauB(x, y); ok {
		d.TauB = &tau
		d.TauNorm = (tau + 1) / 2
	} else if !official {
		d.TauNorm = NormalizedTau(x, y)
	}
	refSet, sysSet := map[string]bool{}, map[string]bool{}
	for _, s := range reference {
		refSet[s] = true
	}
	for _, s := range aligned {
		sysSet[s] = true
	}
	tp := 0
	for s := range sysSet {
		if refSet[s] {
			tp++
		}
	}
	fp, fn := 0, 0
	for _, s := range aligned {
		if !refSet[s] {
			fp++
		}
	}
	for _, s := range reference {
		if !sysSet[s] {
			fn++
		}
	}
	if tp+fp > 0 {
		d.Precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		d.Recall = float64(tp) / float64(tp+fn)
	}
	if d.Precision+d.Recall > 0 {
		d.F1 = 2 * d.Precision * d.Recall / (d.Precision + d.Recall)
	}
	d.FinalScore = d.TauNorm * d.F1
	return d
}
