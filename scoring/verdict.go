package scoring

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"github.com/arbor-eval/arbor/pkg/jsonx"
)

// Judges read their verdict from one defined place, the one each protocol's
// prompt asks for, and call anything else unparsed (scored 0, counted in
// Result.Unparsed, shown in the tables' notes): an endpoint that echoes the
// prompt, or a reply like "WRONG. The generated answer is not CORRECT.",
// must not be read as a pass.
//
//   - LongMemEval ("Reply with yes or no only") and BEAM's equivalence check
//     ("Reply YES ... or NO"): the reply's first word.
//   - LoCoMo ({"label": "CORRECT"|"WRONG"}): the "label" field of the JSON
//     object the reply consists of; a reply that is not a JSON object may
//     give the label as its first word.
//   - BEAM rubric ({"score": 1.0|0.5|0.0, ...}): the "score" field of the
//     JSON object the reply consists of, a number in [0, 1].
//
// Reasoning blocks (<think>…</think>) are dropped first. judge.parse
// "official" restores LongMemEval's evaluate_qa.py rule for yes/no replies
// ('yes' anywhere in the reply); see docs/FIDELITY.md.

// Unparsed is the outcome of a judge reply that gives no verdict where the
// protocol asks for one.
const Unparsed = "unparsed"

// Judge reply parsing modes (judge.parse).
const (
	ParseStrict   = "strict"
	ParseOfficial = "official"
)

// firstWord is the reply's first word after reasoning, leading markdown
// and quotes, lower-cased and without trailing punctuation ("**Yes.**" →
// "yes").
func firstWord(reply string) string {
	s := strings.TrimLeftFunc(jsonx.StripReasoning(reply), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("*_`\"'#>-[(", r)
	})
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(s)
	}
	return strings.ToLower(s[:end])
}

// ParseYesNo reads a yes/no verdict: "yes", "no" or Unparsed. In official
// mode any "yes" in the reply is a yes and everything else a no, as
// LongMemEval's evaluate_qa.py decides.
func ParseYesNo(reply, mode string) string {
	if mode == ParseOfficial {
		if RepliedYes(reply) {
			return "yes"
		}
		return "no"
	}
	switch firstWord(reply) {
	case "yes":
		return "yes"
	case "no":
		return "no"
	}
	return Unparsed
}

// ParseLoCoMoLabel reads the LoCoMo judge's verdict: the "label" field of
// the reply's JSON object, which must be CORRECT or WRONG (any case); with
// no JSON object in the reply, its first word. It returns "correct",
// "wrong" or Unparsed (scored 0). "WRONG. The generated answer is not
// CORRECT." is wrong; {"label": "maybe"} is unparsed even if the prose
// after it says CORRECT.
func ParseLoCoMoLabel(reply string) string {
	var v map[string]json.RawMessage
	if err := replyObject(reply, &v); err == nil {
		var label string
		for k, raw := range v {
			if strings.EqualFold(k, "label") {
				_ = json.Unmarshal(raw, &label)
			}
		}
		return locomoLabel(label)
	}
	return locomoLabel(firstWord(reply))
}

// replyObject decodes the JSON object a reply consists of: after any
// reasoning block and markdown fence, the reply must start with "{". An
// object quoted inside prose (an echoed prompt's example, {"label":
// "CORRECT"}) is not the verdict.
func replyObject(reply string, v any) error {
	s := strings.TrimSpace(jsonx.StripReasoning(reply))
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		s = strings.TrimSpace(rest)
	}
	if !strings.HasPrefix(s, "{") {
		return jsonx.ErrNoJSON
	}
	return jsonx.Unmarshal(s, v)
}

func locomoLabel(s string) string {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "CORRECT":
		return "correct"
	case "WRONG":
		return "wrong"
	}
	return Unparsed
}

// ParseRubricScore reads a BEAM rubric verdict: the "score" field of the
// reply's JSON object, a number (or numeric string) in [0, 1]. ok is false
// for anything else, a score off the scale included (the item then scores
// 0 and counts as unparsed).
func ParseRubricScore(reply string) (float64, bool) {
	var m map[string]any
	if err := replyObject(reply, &m); err != nil {
		return 0, false
	}
	for k, v := range m {
		if !strings.EqualFold(k, "score") {
			continue
		}
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case string:
			var err error
			if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
				return 0, false
			}
		default:
			return 0, false
		}
		if f < 0 || f > 1 {
			return 0, false
		}
		return f, true
	}
	return 0, false
}
