package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PaperBudget32K is the exact 32K answer-time limit: "The 32K condition uses
// the exact 30,968-token evidence limit" (appendix C.4, Table
// "Configurations used in the supplementary analyses").
const PaperBudget32K = 30968

// budgetKeys are the config keys that hold token budgets and so accept the
// same spellings as --budget ("4k", "32k") in a file and in ARBOR_* variables.
var budgetKeys = []string{"answer.budget", "arbormem.branch_budget", "serve.budget"}

// ParseBudget reads a token budget: a plain positive count, or nK meaning
// n×1024, except 32K, which is the paper's exact 30,968. Zero and negative
// budgets are refused: an empty evidence budget answers nothing.
func ParseBudget(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1
	if strings.HasSuffix(t, "k") {
		mult = 1024
		t = strings.TrimSuffix(t, "k")
	}
	n, err := strconv.Atoi(t)
	if err != nil || n > math.MaxInt32/mult {
		return 0, fmt.Errorf("budget %q: expected a token count like 4096 or 4k", s)
	}
	if n <= 0 {
		return 0, fmt.Errorf("budget %q: must be a positive token count", s)
	}
	if mult == 1024 && n == 32 {
		return PaperBudget32K, nil
	}
	return n * mult, nil
}

// BudgetLabel names a budget so that ParseBudget reads the label back to the
// same number and no two budgets share a label: 30,968 is "32K" (the
// paper's 32K condition), other multiples of 1024 that are powers of two
// are "nK" (256 … 16K as the paper's sweep labels them), and everything
// else, 32,768 included, is the exact number.
func BudgetLabel(b int) string {
	switch {
	case b == PaperBudget32K:
		return "32K"
	case b >= 1024 && b&(b-1) == 0 && b != 32*1024:
		return strconv.Itoa(b/1024) + "K"
	}
	return strconv.Itoa(b)
}
