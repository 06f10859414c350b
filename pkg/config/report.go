package config

import "fmt"

// Report configures the statistics in result tables (package stats): the
// paper reports point estimates only, so every choice here is arbor's
// (docs/FIDELITY.md, "Experiments and reporting").
type Report struct {
	// Resamples is the number of bootstrap resamples and Monte-Carlo
	// permutations per cell or comparison.
	Resamples int `mapstructure:"resamples" yaml:"resamples"`
	// Level is the confidence level of every interval.
	Level float64 `mapstructure:"level" yaml:"level"`
	// Interval is the bootstrap interval type: "studentized" (the default:
	// symmetric bootstrap-t, right with few clusters), "percentile" or
	// "basic" (reverse percentile). The paired test's p-value is read off
	// the same resamples, so a table's interval and test never disagree.
	Interval string `mapstructure:"interval" yaml:"interval"`
	// MinClusters is the number of resampling units below which a table
	// marks an interval as resting on too few (†); a negative value marks
	// none.
	MinClusters int `mapstructure:"min_clusters" yaml:"min_clusters"`
	// CI is how Markdown and LaTeX tables show intervals: "off" (the
	// paper's layout), "pm" (68.4 ± 4.1) or "interval" (68.4 [64.2, 72.6]).
	// JSON and CSV always carry them.
	CI string `mapstructure:"ci" yaml:"ci"`
	// Cluster is each benchmark's resampling unit.
	Cluster Cluster `mapstructure:"cluster" yaml:"cluster"`
	// MDEPower and MDEAlpha are the power and two-sided level at which
	// `arbor plan` reports the minimum detectable difference, from
	// AssumedAccuracy (a share, 0..1).
	MDEPower        float64 `mapstructure:"mde_power" yaml:"mde_power"`
	MDEAlpha        float64 `mapstructure:"mde_alpha" yaml:"mde_alpha"`
	AssumedAccuracy float64 `mapstructure:"assumed_accuracy" yaml:"assumed_accuracy"`
}

// Cluster names the resampling unit per benchmark: "episode" resamples whole
// episodes (questions that share a conversation move together), "question"
// resamples questions independently.
type Cluster struct {
	LongMemEval   string `mapstructure:"longmemeval" yaml:"longmemeval"`
	LoCoMo        string `mapstructure:"locomo" yaml:"locomo"`
	BEAM          string `mapstructure:"beam" yaml:"beam"`
	BranchMemEval string `mapstructure:"branchmemeval" yaml:"branchmemeval"`
	// Other is the unit of benchmarks not named above.
	Other string `mapstructure:"other" yaml:"other"`
}

// Units maps each benchmark key ("" for others) to its unit.
func (c Cluster) Units() map[string]string {
	return map[string]string{"longmemeval": c.LongMemEval, "locomo": c.LoCoMo, "beam": c.BEAM, "branchmemeval": c.BranchMemEval, "": c.Other}
}

// check validates the report keys.
func (r Report) check() error {
	if r.Resamples < 100 {
		return fmt.Errorf("report.resamples: %d, want at least 100", r.Resamples)
	}
	for key, v := range map[string]float64{"report.level": r.Level, "report.mde_power": r.MDEPower, "report.mde_alpha": r.MDEAlpha} {
		if v <= 0 || v >= 1 {
			return fmt.Errorf("%s: %v, want a share strictly between 0 and 1", key, v)
		}
	}
	if r.AssumedAccuracy < 0 || r.AssumedAccuracy > 1 {
		return fmt.Errorf("report.assumed_accuracy: %v, want a share between 0 and 1", r.AssumedAccuracy)
	}
	if r.Interval != "percentile" && r.Interval != "basic" && r.Interval != "studentized" {
		return fmt.Errorf("report.interval: %q is not one of studentized, percentile, basic", r.Interval)
	}
	switch r.CI {
	case "off", "pm", "interval":
	default:
		return fmt.Errorf("report.ci: %q is not one of off, pm, interval", r.CI)
	}
	for _, kv := range []struct{ key, v string }{
		{"longmemeval", r.Cluster.LongMemEval}, {"locomo", r.Cluster.LoCoMo}, {"beam", r.Cluster.BEAM},
		{"branchmemeval", r.Cluster.BranchMemEval}, {"other", r.Cluster.Other},
	} {
		if kv.v != "episode" && kv.v != "question" {
			return fmt.Errorf("report.cluster.%s: %q is not one of episode, question", kv.key, kv.v)
		}
	}
	return nil
}
