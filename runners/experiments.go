package runners

import (
	"context"
)

// PaperBudgets are the read-budget analysis budgets: "256, 512, 1K, 2K, 4K,
// 8K, 16K, and 32K tokens" with 32K the exact 30,968 (paper §6.3, appendix C.4).
var PaperBudgets = []int{256, 512, 1024, 2048, 4096, 8192, 16384, PaperBudget32K}

// PaperSubset is the size of the fixed LongMemEval subset of the supplementary
// analyses: "A fixed 50-question LongMemEval subset sampled with seed 42".
const PaperSubset = 50

// AblationVariants are the component ablations of appendix C.3, after the
// reference configuration ("").
var AblationVariants = []string{"", "no-localization", "no-keyword-routing", "no-atomic-facts", "no-structured-extraction", "no-structured-evidence"}

// Sweep runs the read-budget analysis: each episode is ingested once per
// system and then recalled and answered at every budget (paper §6.3).
func Sweep(ctx context.Context, p Plan) (*Outcome, error) {
	p.Kind = "sweep"
	if len(p.Budgets) == 0 {
		p.Budgets = PaperBudgets
	}
	return Run(ctx, p)
}

// Ablate runs the reference configuration and the five component ablations
// at the 32K budget (paper §6.5); recall-only variants share the reference
// instance's ingestion (see groupVariants).
func Ablate(ctx context.Context, p Plan) (*Outcome, error) {
	p.Kind = "ablate"
	if len(p.Systems) == 0 {
		p.Systems = []string{"arbormem"}
	}
	if len(p.Variants) == 0 {
		p.Variants = AblationVariants
	}
	if len(p.Budgets) == 0 {
		p.Budgets = []int{PaperBudget32K}
	}
	return Run(ctx, p)
}

// Latency runs the matched efficiency comparison (paper §6.4): sequential
// execution, one episode at a time, so that per-call timings are not
// distorted by concurrency; the 2K answer budget is set by
// configs/efficiency.yaml or --budget.
func Latency(ctx context.Context, p Plan) (*Outcome, error) {
	p.Kind = "latency"
	p.Config.Run.Workers = 1
	return Run(ctx, p)
}
