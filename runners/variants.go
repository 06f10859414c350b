package runners

import "github.com/arbor-eval/arbor/pkg/arbormem"

// recallOnly reports whether an ArborMem ablation variant changes only
// recall, so that it can be answered from the reference instance's ingestion
// (arbor ablate shares ingestion exactly for these).
func recallOnly(variant string) bool { return arbormem.RecallOnly(variant) }
