package record

// SystemDegraded is what went wrong but was survived for one system over a
// run: its memory's counts (summed over its episode records, the latest of
// each), judge replies that gave no verdict, and failed samples. A run
// whose memory silently fell back to rules, or whose judge answered
// nothing parseable, says so with these counts.
type SystemDegraded struct {
	System string `json:"system"`
	Degraded
	// Committed is the number of interactions committed (denominator of
	// the memory counts).
	Committed int `json:"committed"`
	// Samples, FailedSamples: answered questions and those recorded with
	// an error (counted as wrong answers).
	Samples       int `json:"samples"`
	FailedSamples int `json:"failed_samples,omitempty"`
	// JudgeReplies counts the judge replies behind model-judge scores and
	// JudgeUnparsed those that gave no verdict (scored 0).
	JudgeReplies  int `json:"judge_replies,omitempty"`
	JudgeUnparsed int `json:"judge_unparsed,omitempty"`
}

// Any reports whether any count is above zero.
func (d SystemDegraded) Any() bool {
	return d.Degraded.Any() || d.FailedSamples > 0 || d.JudgeUnparsed > 0
}

// WorstPercent is the largest of the counts as a share of what they count
// out of: memory counts per committed interaction, failed samples per
// sample, unparsed replies per judged reply (strict checks compare it
// with --max-degraded).
func (d SystemDegraded) WorstPercent() float64 {
	worst := 0.0
	pct := func(n, of int) {
		switch {
		case n == 0:
		case of <= 0:
			worst = max(worst, 100)
		default:
			worst = max(worst, 100*float64(n)/float64(of))
		}
	}
	for _, n := range []int{d.Fallbacks, d.ModelErrors, d.BadReplies, d.Repaired, d.IngestErrors} {
		pct(n, d.Committed)
	}
	pct(d.FailedSamples, d.Samples)
	pct(d.JudgeUnparsed, d.JudgeReplies)
	return worst
}
