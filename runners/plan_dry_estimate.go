package runners

// A dry run's wall-time estimate: each remote role's calls over its
// throughput, given (--throughput) or measured by probing the endpoints
// (--probe), stretched for what a run cannot keep in flight.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm/provider"
)

// estimate sets each remote role's throughput and time, and the run's
// bounds: models run one after another; within a model the roles overlap
// somewhere between fully (the slowest role alone) and not at all.
func (r *DryReport) estimate(ctx context.Context, entries []Model, kind string, opt DryOptions) error {
	probes := map[string]map[string][]time.Duration{}
	for i := range r.Roles {
		rc := &r.Roles[i]
		if rc.Local || rc.Calls() == 0 {
			continue
		}
		if t, ok := opt.Throughput[rc.Role]; ok && t > 0 {
			rc.Throughput, rc.Source = t, "--throughput"
		} else if opt.Probe {
			lat, err := probeLatency(ctx, probes, entries, rc.Model, rc.Role)
			if err != nil {
				return err
			}
			if lat > 0 {
				rc.Throughput = float64(rc.InFlight) / lat.Seconds()
				rc.Source = fmt.Sprintf("probe: %s per call × %d in flight", lat.Round(time.Millisecond), rc.InFlight)
			}
		}
		if rc.Throughput > 0 {
			rc.Time = time.Duration(float64(rc.Calls()) / rc.Throughput * sequentialFactor(rc.InFlight, r.Ingestions) * float64(time.Second))
		}
	}
	for _, m := range entries {
		var lo, hi time.Duration
		for _, rc := range r.Roles {
			if rc.Model == m.Name {
				lo = max(lo, rc.Time)
				hi += rc.Time
			}
		}
		r.Lower += lo
		r.Upper += hi
	}
	return nil
}

// sequentialFactor stretches a role's time for the calls a run cannot
// keep in flight: inside a memory instance commits and answers run one
// after another, so at most one call per instance is in flight, and a run
// with fewer instances than inFlight cannot reach the throughput measured
// with inFlight concurrent calls (one episode: every call waits for the one
// before it).
func sequentialFactor(inFlight, instances int) float64 {
	par := min(inFlight, instances)
	if inFlight <= 0 || par <= 0 {
		return 1
	}
	return float64(inFlight) / float64(par)
}

// probeLatency is the mean latency of the probes of a model's role's
// endpoints (provider.Check, the probes of `arbor endpoints check`), run once
// per model config.
func probeLatency(ctx context.Context, cache map[string]map[string][]time.Duration, entries []Model, model, role string) (time.Duration, error) {
	if cache[model] == nil {
		cache[model] = map[string][]time.Duration{}
		for _, m := range entries {
			if m.Name != model {
				continue
			}
			for _, c := range provider.Check(ctx, m.Config) {
				if c.Status == "FAIL" {
					return 0, fmt.Errorf("probe%s: %s endpoint %s failed: %s (fix it, or give --throughput %s=<calls/s>)", forModel(model), c.Role, c.URL, c.Err, c.Role)
				}
				if c.Status == "ok" {
					cache[model][c.Role] = append(cache[model][c.Role], c.Latency)
				}
			}
		}
	}
	ls := cache[model][role]
	if len(ls) == 0 {
		return 0, nil
	}
	var sum time.Duration
	for _, l := range ls {
		sum += l
	}
	return sum / time.Duration(len(ls)), nil
}

// ParseThroughput reads --throughput: comma-separated role=calls-per-second
// pairs ("chat=20,judge=40"), or one bare number for the chat and judge
// roles. Rates are what all of a role's endpoints sustain together.
func ParseThroughput(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		role, val, named := strings.Cut(part, "=")
		if !named {
			val = role
		}
		val = strings.TrimSuffix(strings.TrimSpace(val), "/s")
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || !(v > 0) || v > 1e9 {
			return nil, fmt.Errorf("--throughput item %d %q: expected role=calls-per-second with a positive number, e.g. chat=20", i+1, part)
		}
		if !named {
			out["chat"], out["judge"] = v, v
			continue
		}
		role = strings.TrimSpace(role)
		if !slices.Contains(dryRoles, role) {
			return nil, fmt.Errorf("--throughput item %d %q: role %q is not one of %s", i+1, part, role, strings.Join(dryRoles, ", "))
		}
		out[role] = v
	}
	return out, nil
}
