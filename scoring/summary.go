package scoring

import (
	"sort"
	"strconv"
)

// Summary statistics over scored questions: per-category, overall,
// task-averaged and abstention means, and agreement between judges. They
// are pure functions; tables (JudgeTable, JudgeAgreementTable) and `arbor score`
// build on them. Empty groups are left out, never reported as NaN.

// Row is one scored question as summaries see it.
type Row struct {
	Category   string
	Abstention bool
	Score      float64
}

// CategoryMean is the mean score of one category.
type CategoryMean struct {
	Category string  `json:"category"`
	N        int     `json:"n"`
	Mean     float64 `json:"mean"`
}

// Summary condenses a scorer's results.
type Summary struct {
	N int `json:"n"`
	// Overall is the mean over all questions.
	Overall float64 `json:"overall"`
	// Categories are the per-category means, by category name.
	Categories []CategoryMean `json:"categories"`
	// TaskAveraged is the mean of the category means: LongMemEval's
	// "task-averaged accuracy" (xiaowu0162/LongMemEval
	// src/evaluation/print_qa_metrics.py), over the categories present.
	TaskAveraged float64 `json:"task_averaged"`
	// Abstention is the mean over abstention questions (LongMemEval `_abs`);
	// NAbstention is their number, 0 when there are none.
	Abstention  float64 `json:"abstention"`
	NAbstention int     `json:"n_abstention"`
}

// Summarize computes a Summary; every mean of an empty set is 0 with its
// count 0.
func Summarize(rows []Row) Summary {
	s := Summary{N: len(rows)}
	byCat := map[string][]float64{}
	var all, abs []float64
	for _, r := range rows {
		all = append(all, r.Score)
		byCat[r.Category] = append(byCat[r.Category], r.Score)
		if r.Abstention {
			abs = append(abs, r.Score)
		}
	}
	s.Overall = Mean(all)
	s.Abstention, s.NAbstention = Mean(abs), len(abs)
	cats := make([]string, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var means []float64
	for _, c := range cats {
		m := Mean(byCat[c])
		s.Categories = append(s.Categories, CategoryMean{Category: c, N: len(byCat[c]), Mean: m})
		means = append(means, m)
	}
	s.TaskAveraged = Mean(means)
	return s
}

// Mean is the arithmetic mean, 0 for no values.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// PercentAgreement is the share of positions where a and b hold the same
// label, in [0, 1] (0 for no pairs). Only the common prefix is compared.
func PercentAgreement(a, b []string) float64 {
	n := min(len(a), len(b))
	if n == 0 {
		return 0
	}
	same := 0
	for i := 0; i < n; i++ {
		if a[i] == b[i] {
			same++
		}
	}
	return float64(same) / float64(n)
}

// CohenKappa is Cohen's κ = (p_o − p_e)/(1 − p_e) for two raters' labels of
// the same items. ok is false when κ is undefined: no items, or chance
// agreement p_e = 1 (both raters gave one and the same label throughout).
func CohenKappa(a, b []string) (kappa float64, ok bool) {
	n := min(len(a), len(b))
	if n == 0 {
		return 0, false
	}
	ca, cb := map[string]int{}, map[string]int{}
	same := 0
	for i := 0; i < n; i++ {
		ca[a[i]]++
		cb[b[i]]++
		if a[i] == b[i] {
			same++
		}
	}
	po := float64(same) / float64(n)
	pe := 0.0
	for l, x := range ca {
		pe += float64(x) / float64(n) * float64(cb[l]) / float64(n)
	}
	if pe >= 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}

// JudgeLabels are the units on which two judges are compared: one label per
// rubric item when the result has parts (BEAM), else one label for the
// question's score (yes/no judges: "1" or "0").
func JudgeLabels(score float64, parts []float64) []string {
	if len(parts) > 0 {
		out := make([]string, len(parts))
		for i, p := range parts {
			out[i] = strconv.FormatFloat(p, 'g', 4, 64)
		}
		return out
	}
	return []string{strconv.FormatFloat(score, 'g', 4, 64)}
}

// Agreement compares two judges on the same questions.
type Agreement struct {
	A, B string
	// Units is the number of labels compared (questions, or rubric items).
	Units   int
	Percent float64
	Kappa   float64
	// KappaDefined is false where κ is undefined (see CohenKappa).
	KappaDefined bool
}

// CompareLabels computes the agreement of two judges from their labels per
// question (JudgeLabels); questions whose label lists differ in length
// (different rubric parsing) are compared on their common prefix.
func CompareLabels(nameA, nameB string, a, b [][]string) Agreement {
	var fa, fb []string
	for i := 0; i < min(len(a), len(b)); i++ {
		n := min(len(a[i]), len(b[i]))
		fa = append(fa, a[i][:n]...)
		fb = append(fb, b[i][:n]...)
	}
	k, ok := CohenKappa(fa, fb)
	return Agreement{A: nameA, B: nameB, Units: len(fa), Percent: PercentAgreement(fa, fb), Kappa: k, KappaDefined: ok}
}
