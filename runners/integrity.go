package runners

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/scoring"
)

// ErrDegraded is wrapped by the error of a finished run that the plan's
// Integrity policy rejects; its samples and tables are all written.
var ErrDegraded = errors.New("run finished degraded")

// checkIntegrity prints every system's degraded counts to log, records them
// in the manifest (the caller holds the run folder's lock), and applies the
// policy.
func checkIntegrity(dir string, p *Plan, o *Outcome) error {
	ds := scoring.DegradedBySystem(o.Samples, o.Episodes)
	var lines []string
	failed := 0
	for _, d := range ds {
		failed += d.FailedSamples
		if s := scoring.DegradedSummary(d); s != "" {
			lines = append(lines, s)
		}
	}
	if len(lines) > 0 {
		logf(p.Log, "degraded: %s\n", strings.Join(lines, "\ndegraded: "))
	}
	if m, err := record.ReadManifest(dir); err == nil {
		before, _ := json.Marshal(m)
		m.Degraded = ds
		countContributions(m, o.Samples)
		// A resume with nothing to do leaves the manifest untouched.
		if after, _ := json.Marshal(m); !bytes.Equal(before, after) {
			m.Updated = time.Now().UTC()
			if err := record.WriteManifest(dir, m); err != nil {
				return err
			}
		}
	}
	return integrityError(p.Integrity, ds, failed)
}

func integrityError(pol Integrity, ds []record.SystemDegraded, failed int) error {
	if failed > 0 && !pol.AllowErrors {
		return fmt.Errorf("%w: %d failed samples (counted as wrong answers); rerun with --retry-errors to answer them again, or pass --allow-errors to accept them", ErrDegraded, failed)
	}
	if !pol.Strict && pol.MaxDegraded <= 0 {
		return nil
	}
	var bad []string
	for _, d := range ds {
		w := d.WorstPercent()
		if (pol.MaxDegraded <= 0 && d.Any()) || (pol.MaxDegraded > 0 && w > pol.MaxDegraded) {
			bad = append(bad, fmt.Sprintf("%s %.1f%%", scoring.SystemName(d.System), w))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	limit := "0"
	if pol.MaxDegraded > 0 {
		limit = fmt.Sprintf("%g%%", pol.MaxDegraded)
	}
	return fmt.Errorf("%w: degraded counts above %s (worst share per system: %s); see the degraded lines above and tables/degraded.md", ErrDegraded, limit, strings.Join(bad, ", "))
}

// ParsePercent reads a share in percent: "2%", "2" or "0.5%", in (0, 100].
func ParsePercent(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v <= 0 || v > 100 {
		return 0, fmt.Errorf("%q: expected a percentage above 0 and at most 100, e.g. 2%%", s)
	}
	return v, nil
}
