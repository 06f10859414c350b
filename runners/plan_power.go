package runners

import (
	"fmt"
	"math"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/stats"
)

// Resolution is the smallest accuracy difference between two systems that a
// run of this size can detect (stats.MDE): unpaired two-proportion z-test,
// two-sided, at report.mde_alpha and report.mde_power.
type Resolution struct {
	// Questions per system (and budget, variant, model): the test's n.
	Questions int
	// Accuracy is the share the figure assumes, and Observed whether it was
	// measured by the dry run itself (every role offline, so the answers
	// are the offline run's own) rather than report.assumed_accuracy.
	Accuracy float64
	Observed bool
	Alpha    float64
	Power    float64
	// MDE is the detectable gap in accuracy points (NaN: none within 0–100).
	MDE float64
}

// resolution computes the run's Resolution from its samples. The observed
// accuracy is used only when every role of every model is local: with
// endpoints, the fakes' answers say nothing about real accuracy.
func resolution(cfg *config.Config, questions int, samples []record.Sample, allLocal bool) Resolution {
	r := Resolution{Questions: questions, Accuracy: cfg.Report.AssumedAccuracy, Alpha: cfg.Report.MDEAlpha, Power: cfg.Report.MDEPower}
	if allLocal {
		var sum float64
		n := 0
		for _, s := range samples {
			if s.Variant != "" {
				continue
			}
			n++
			if s.Error == "" {
				if v := s.PrimaryScore(); !math.IsNaN(v) && !math.IsInf(v, 0) {
					sum += v
				}
			}
		}
		if n > 0 {
			r.Accuracy, r.Observed = sum/float64(n), true
		}
	}
	r.MDE = stats.MDE(questions, r.Accuracy, r.Alpha, r.Power) * 100
	return r
}

// line is the report's sentence about the resolution.
func (r Resolution) line() string {
	from := fmt.Sprintf("an assumed accuracy of %.0f%% (report.assumed_accuracy, --assume-accuracy)", r.Accuracy*100)
	if r.Observed {
		from = fmt.Sprintf("the %.1f%% accuracy this offline dry run observed", r.Accuracy*100)
	}
	gap := "no gap within 0–100 points"
	if !math.IsNaN(r.MDE) {
		gap = fmt.Sprintf("%.1f points", r.MDE)
	}
	return fmt.Sprintf("- smallest detectable difference between two systems: %s at %.0f%% power (two-sided α = %g, unpaired two-proportion z-test over %d questions per system, from %s); a paired test on the same questions resolves smaller gaps when systems agree on most questions\n",
		gap, r.Power*100, r.Alpha, r.Questions, from)
}
