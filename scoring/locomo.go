package scoring

import (
	"context"
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
)

// LoCoMo's official answer scoring, ported from snap-research/locomo
// task_eval/evaluation.py (normalize_answer, f1_score, f1 and
// eval_question_answering).

// NormalizeLoCoMo is LoCoMo's normalize_answer: delete commas, lower-case,
// drop ASCII punctuation, blank the whole words a, an, the and and, and
// collapse whitespace.
func NormalizeLoCoMo(s string) string {
	s = strings.ReplaceAll(s, ",", "")
	s = pyLower(s)
	s = strings.Map(func(r rune) rune {
		if r < 0x80 && strings.ContainsRune(asciiPunct, r) {
			return -1
		}
		return r
	}, s)
	s = removeArticles(s)
	return strings.Join(pyFields(s), " ")
}

// removeArticles replaces every maximal run of word characters equal to
// a/an/the/and by a space: the official `regex.sub(r'\b(a|an|the|and)\b',
// ' ', text)`, whose alternatives are all word characters, matches exactly
// such runs.
func removeArticles(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !isRegexWord(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isRegexWord(rs[j]) {
			j++
		}
		switch w := string(rs[i:j]); w {
		case "a", "an", "the", "and":
			b.WriteByte(' ')
		default:
			b.WriteString(w)
		}
		i = j
	}
	return b.String()
}

// LoCoMoTokens is the stemmed token list f1_score compares.
func LoCoMoTokens(s string) []string {
	f := pyFields(NormalizeLoCoMo(s))
	for i, w := range f {
		f[i] = Stem(w)
	}
	return f
}

// TokenF1 is LoCoMo's f1_score: multiset F1 of stemmed normalised tokens,
// 0 when nothing is shared.
func TokenF1(prediction, gold string) float64 {
	return tokenF1(LoCoMoTokens(prediction), LoCoMoTokens(gold))
}

func tokenF1(pred, gold []string) float64 {
	if len(pred) == 0 || len(gold) == 0 {
		return 0
	}
	counts := make(map[string]int, len(gold))
	for _, t := range gold {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	p := float64(same) / float64(len(pred))
	r := float64(same) / float64(len(gold))
	return 2 * p * r / (p + r)
}

// MultiAnswerF1 is LoCoMo's f1 for category 1 (multi-hop): prediction and
// gold are split on commas, and the result is the mean over gold parts of
// the best F1 against any prediction part. The per-gold-part values are
// returned too.
func MultiAnswerF1(prediction, gold string) (float64, []float64) {
	var preds [][]string
	for _, p := range strings.Split(prediction, ",") {
		preds = append(preds, LoCoMoTokens(pyStrip(p)))
	}
	golds := strings.Split(gold, ",")
	parts := make([]float64, len(golds))
	sum := 0.0
	for i, g := range golds {
		gt := LoCoMoTokens(pyStrip(g))
		best := 0.0
		for _, p := range preds {
			if f := tokenF1(p, gt); f > best {
				best = f
			}
		}
		parts[i] = best
		sum += best
	}
	return sum / float64(len(golds)), parts
}

// LoCoMoAbstained is the category-5 rule: the prediction says "no
// information available" or "not mentioned" (case-insensitive).
func LoCoMoAbstained(prediction string) bool {
	p := pyLower(prediction)
	return strings.Contains(p, "no information available") || strings.Contains(p, "not mentioned")
}

// LoCoMoF1 is LoCoMo's official category-specific scorer ("locomo-f1"):
// category 1 multi-answer F1; 2 and 4 token F1; 3 token F1 against the gold
// before its first ';'; 5 the abstention phrase rule.
type LoCoMoF1 struct{}

// Name implements Scorer.
func (LoCoMoF1) Name() string { return "locomo-f1" }

// Heuristic implements Scorer: this is the official protocol itself.
func (LoCoMoF1) Heuristic() bool { return false }

// Score implements Scorer.
func (LoCoMoF1) Score(_ context.Context, q *datasets.Question, prediction string) (Result, error) {
	switch q.Category {
	case "1":
		f, parts := MultiAnswerF1(prediction, q.Gold)
		return Result{Score: f, Parts: parts}, nil
	case "2", "4":
		return Result{Score: TokenF1(prediction, q.Gold)}, nil
	case "3":
		gold := pyStrip(strings.SplitN(q.Gold, ";", 2)[0])
		return Result{Score: TokenF1(prediction, gold)}, nil
	case "5":
		if LoCoMoAbstained(prediction) {
			return Result{Score: 1, Outcome: "abstained"}, nil
		}
		return Result{Score: 0, Outcome: "answered"}, nil
	}
	return Result{}, fmt.Errorf("locomo question %s: category %q is not one of 1-5", q.ID, q.Category)
}
