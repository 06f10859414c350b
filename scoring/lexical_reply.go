package scoring

import (
	"encoding/json"
	"strings"
)

// LexicalReply is what the offline lexical judge answers to judge prompt name
// for in, written in the reply format that prompt asks for: "yes" or "no"
// for LongMemEval's prompts, {"label": "CORRECT"|"WRONG"} for LoCoMo's,
// {"score": …, "reason": …} for a BEAM rubric item and YES or NO for a BEAM
// equivalence check. The verdicts are the ones the scorers reach without a
// judge model, so a fake endpoint that speaks the judge prompts grades as
// the offline run does. ok is false when name is not a judge prompt.
func LexicalReply(name string, in JudgeInput) (reply string, ok bool) {
	yesNo := func(yes bool) string {
		if yes {
			return "yes"
		}
		return "no"
	}
	switch {
	case strings.HasPrefix(name, "judge_lme_"):
		return yesNo(lexicalLongMemEval(name, in).Score == 1), true
	case name == "judge_locomo":
		label := "WRONG"
		if lexicalCorrect(in.Gold, in.Response, 0, 0.5) {
			label = "CORRECT"
		}
		b, _ := json.Marshal(map[string]string{"label": label})
		return string(b), true
	case name == "judge_beam_rubric":
		s := lexicalRubricItem(in.RubricItem, in.Response)
		b, _ := json.Marshal(struct {
			Score  float64 `json:"score"`
			Reason string  `json:"reason"`
		}{s, "share of the criterion's content words found in the response (lexical judge)"})
		return string(b), true
	case name == "judge_beam_equivalence":
		// eventOrdering asks with First the reference event and Second the
		// answer line, and the lexical stand-in compares TokenF1(line, ref).
		return strings.ToUpper(yesNo(TokenF1(in.Second, in.First) >= 0.5)), true
	}
	return "", false
}
