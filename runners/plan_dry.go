package runners

// The dry run (arbor plan): run a plan exactly as the real command would,
// with every remote role answered at once by an in-process fake, and count
// what the run did. The parts live beside this file: the fake endpoints
// (plan_dry_fake.go), the count of calls by role (plan_dry_roles.go), the
// wall-time estimate (plan_dry_estimate.go) and the printed report
// (plan_dry_report.go).

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/record"
)

// DryOptions configure a dry run's wall-time estimate.
type DryOptions struct {
	// Throughput is the calls per second each role's endpoints sustain
	// together (role → calls/s), e.g. as measured by an earlier run.
	Throughput map[string]float64
	// Probe measures each endpoint's latency with `arbor endpoints check`'s
	// probes (provider.Check) when no throughput is given for its role.
	Probe bool
	// Dir keeps the dry run's results there; "" uses a temporary folder
	// that is removed afterwards.
	Dir string
}

// DryReport is what a dry run counted.
type DryReport struct {
	Kind, Benchmark string
	// Episodes and Questions are distinct over the run; Samples counts one
	// per question, system, variant, budget and model; Ingestions counts
	// memory instances, and Interactions what they committed in total.
	Episodes, Questions, Samples, Ingestions, Interactions int
	Systems                                                []string
	Budgets                                                []int
	Variants                                               []string
	Roles                                                  []RoleCount
	// Failed counts samples that failed in the dry run (FirstError names one).
	Failed     int
	FirstError string
	// Elapsed is the dry run's own wall time: the local computation of the
	// run, with every remote call answered at once.
	Elapsed time.Duration
	// Lower and Upper bound the estimated wall time (zero when no role has
	// a throughput): the slowest role alone, and every role in turn.
	Lower, Upper time.Duration
	Notes        []string
	// Resolution is the smallest accuracy gap the run can detect.
	Resolution Resolution
	// Counted says the figures were counted from the data (Count), not
	// replayed (DryRun): calls marked Estimated rest on planRatios.
	Counted bool
	// work is each system's committed interactions and answers (Count).
	work map[string]*sysWork
}

// RoleCount is one model role's share of a dry run.
type RoleCount struct {
	Model, Role string
	// Local roles run in-process (offline providers); their calls are
	// counted but have no endpoint to estimate time for.
	Local bool
	// Endpoints and Capacity (sum of max_inflight) come from the real config;
	// InFlight is what the run keeps in flight at most (capacity, bounded
	// by the run's workers).
	Endpoints, Capacity, InFlight int
	IngestCalls, QuestionCalls    int
	// PromptTokens are exact Qwen3 counts for chat roles; CompletionMax is
	// the sum of the max_tokens the calls allow (an upper bound).
	PromptTokens, CompletionMax int
	// Interactions and Answers are what the systems that made these calls
	// ingested and answered (the denominators of the per-unit rates).
	Interactions, Answers int
	// Throughput (calls/s) and its source, and the time it gives.
	Throughput float64
	Source     string
	Time       time.Duration
	// Estimated says a share of the calls rests on a measured ratio
	// (planRatios), not on the data alone.
	Estimated bool
	// System is set on the per-system shares listed in Systems.
	System  string
	Systems []RoleCount
}

// Calls is the role's total.
func (r RoleCount) Calls() int { return r.IngestCalls + r.QuestionCalls }

// DryRun runs p (and each of models, for a multi-model ablation) exactly as
// the real command would, except that every model role configured with
// endpoints is answered by an in-process fake (openaifake) with no latency, the
// tokenizer role counts offline (the same Qwen3 ids /tokenize returns), the
// response cache is off and results go to a temporary folder. It then counts
// what the run did from its records: episodes, interactions, questions, and
// each role's calls and tokens, split into ingestion (EpisodeStat.Calls) and
// questions (Sample.Calls); and estimates wall time as calls over
// throughput per role (opt).
//
// The fake answers memory operations by rule with well-formed replies (a
// summary, a path line, empty extractions) so that no call is repaired or
// retried; calls that depend on what a model extracts are left out and
// said so in the notes.
func DryRun(ctx context.Context, p Plan, models []Model, opt DryOptions) (*DryReport, error) {
	entries, err := planModels(p, models)
	if err != nil {
		return nil, err
	}
	dir := opt.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "arbor-plan-")
		if err != nil {
			return nil, fmt.Errorf("dry run: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	env := &dryEnv{fakes: map[string]*dryFake{}}
	defer env.close()
	rep := &DryReport{Kind: p.Kind, Benchmark: p.Benchmark}
	if rep.Kind == "" {
		rep.Kind = "eval"
	}
	var samples []record.Sample
	start := time.Now()
	for i, m := range entries {
		if _, err := prompt.Load(m.Config.PromptsDir); err != nil {
			return nil, err
		}
		sub := p
		sub.Config = env.fakeConfig(m.Config, filepath.Join(dir, strconv.Itoa(i)))
		sub.RunID, sub.Force, sub.Out, sub.Log = "", false, io.Discard, io.Discard
		o, err := Execute(ctx, sub, nil)
		if err != nil {
			return nil, fmt.Errorf("dry run%s: %w", forModel(m.Name), err)
		}
		rep.Roles = append(rep.Roles, roleCounts(m, p.Kind, o)...)
		rep.Ingestions += len(o.Episodes)
		for _, e := range o.Episodes {
			rep.Interactions += e.Committed
		}
		samples = append(samples, o.Samples...)
	}
	rep.Elapsed = time.Since(start)
	rep.describe(samples)
	allLocal := true
	for _, m := range entries {
		for _, nr := range m.Config.Models.Roles() {
			allLocal = allLocal && nr.Role.Local()
		}
	}
	rep.Resolution = resolution(entries[0].Config, rep.Questions, samples, allLocal)
	if err := rep.estimate(ctx, entries, p.Kind, opt); err != nil {
		return nil, err
	}
	rep.localEstimate()
	rep.notes(entries, p)
	return rep, nil
}

func forModel(name string) string {
	if name == "" {
		return ""
	}
	return " (model " + name + ")"
}

// describe fills the selection counts from the samples.
func (r *DryReport) describe(samples []record.Sample) {
	eps, qs := map[string]bool{}, map[string]bool{}
	budgets := map[int]bool{}
	for _, s := range samples {
		eps[s.Episode] = true
		qs[s.Episode+"\x1f"+s.Question] = true
		budgets[s.Budget] = true
		if !slices.Contains(r.Systems, s.System) {
			r.Systems = append(r.Systems, s.System)
		}
		if !slices.Contains(r.Variants, s.Variant) {
			r.Variants = append(r.Variants, s.Variant)
		}
		if s.Error != "" {
			if r.Failed == 0 {
				r.FirstError = s.Error
			}
			r.Failed++
		}
	}
	r.Episodes, r.Questions, r.Samples = len(eps), len(qs), len(samples)
	r.Budgets = sortedKeys(budgets)
	byOrder(r.Systems, DefaultSystems)
	byOrder(r.Variants, AblationVariants)
}

// byOrder sorts names in place by their place in known, unknown names last
// in their first-seen order.
func byOrder(names, known []string) {
	rank := func(s string) int {
		if i := slices.Index(known, s); i >= 0 {
			return i
		}
		return len(known)
	}
	sort.SliceStable(names, func(i, j int) bool { return rank(names[i]) < rank(names[j]) })
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
