package scoring

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/memory"
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
	p := NormalizeAnswer(prediction)
	g := ContainsAnswer(p, NormalizeAnswer(q.Gold))
	c := q.Confounder != "" && ContainsAnswer(p, NormalizeAnswer(q.Confounder))
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
	hay := NormalizeAnswer(strings.Join(texts, "\n"))
	var r EvidenceRecall
	if ContainsAnswer(hay, NormalizeAnswer(q.Gold)) {
		r.Gold = 1
	}
	r.Answer = r.Gold // BranchMemEval's recall is answer-in-bundle already
	if q.Confounder != "" {
		c := ContainsAnswer(hay, NormalizeAnswer(q.Confounder))
		r.Confounder = &c
	}
	return r
}

var _ Recaller = BMERecall

// NormalizeAnswer is BranchMemEval's answer normalisation (appendix B.3):
// Unicode NFKC, case folding, "&" read as "and", commas inside numbers
// dropped ("1,200" → "1200"; a list like "1,2,3" keeps its items apart), every other punctuation or symbol character
// turned into a space ("Sam’s" → "sam s", so "Sam" is found in it), the English
// articles a/an/the removed, and whitespace collapsed to single spaces.
//
// Punctuation becomes a space rather than vanishing so that "3:30" and
// "3.30", or "Smith-Jones" and "Smith Jones", normalise alike; that is why
// numerical commas need their own rule, as the paper lists it.
func NormalizeAnswer(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		s = norm.NFKC.String(s)
	}
	b := make([]byte, 0, len(s)+8)
	space := true // collapse runs of spaces and drop leading ones
	word := 0     // start of the current word in b, for article removal
	endWord := func() {
		switch string(b[word:]) {
		case "a", "an", "the":
			b = b[:word]
		default:
			b = append(b, ' ')
		}
		word = len(b)
		space = true
	}
	var prev rune = -1
	for i, r := range s {
		switch {
		case r == ',' && isDigitRune(prev) && thousandsGroup(s[i+1:]):
			// numerical comma: join the digit groups
		case r == '&':
			if !space {
				endWord()
			}
			b = append(b, "and"...)
			endWord()
		case r < 0x80:
			c := byte(r)
			switch {
			case 'A' <= c && c <= 'Z':
				b = append(b, c+'a'-'A')
				space = false
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
				b = append(b, c)
				space = false
			default: // ASCII punctuation, symbols, white space, controls
				if !space {
					endWord()
				}
			}
		case unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r) || unicode.IsControl(r):
			if !space {
				endWord()
			}
		default:
			if f, ok := foldSpecial[r]; ok {
				b = append(b, f...)
			} else {
				b = utf8.AppendRune(b, unicode.ToLower(r))
			}
			space = false
		}
		prev = r
	}
	if !space {
		endWord()
	}
	return strings.TrimSuffix(string(b), " ")
}

func isDigitRune(r rune) bool { return '0' <= r && r <= '9' || r > 0x80 && unicode.IsDigit(r) }

// foldSpecial are the full case foldings that differ from unicode.ToLower
// and that NFKC does not already take care of.
var foldSpecial = map[rune]string{'ß': "ss", 'ẞ': "ss", 'ς': "σ", 'İ': "i̇", 'ſ': "s"}

// ContainsAnswer reports whether needle occurs in haystack at token
// boundaries; both must already be normalised by NormalizeAnswer (so tokens
// are separated by single spaces). "10" is not found in "2010", nor "ann" in
// "anna". An empty needle matches nothing, so a gold that normalises away
// can never be credited.
func ContainsAnswer(haystack, needle string) bool {
	if needle == "" || len(needle) > len(haystack) {
		return false
	}
	for i := 0; i+len(needle) <= len(haystack); {
		j := strings.Index(haystack[i:], needle)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(needle)
		if (j == 0 || haystack[j-1] == ' ') && (end == len(haystack) || haystack[end] == ' ') {
			return true
		}
		i = j + 1
	}
	return false
}

// thousandsGroup reports whether rest starts with exactly three digits, so
// that a comma before it is a thousands separator ("1,200", "12,000,000")
// and not a list separator ("1,2,3", which keeps its items apart).
func thousandsGroup(rest string) bool {
	if len(rest) < 3 {
		return false
	}
	for k := 0; k < 3; k++ {
		if rest[k] < '0' || rest[k] > '9' {
			return false
		}
	}
	return len(rest) == 3 || rest[3] < '0' || rest[3] > '9'
}
