package baselines

import "github.com/arbor-eval/arbor/pkg/dialog"

// HeuristicSummary is the extractive summary the offline summary baseline
// keeps for a session's interactions (its most salient sentences), for tools
// that must write what the offline path writes: the speaking fake endpoint
// (fake) answers the session_summary prompt with it.
func HeuristicSummary(ins []dialog.Interaction) string { return heuristicSummary(ins) }
