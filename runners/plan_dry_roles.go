package runners

// A dry run's calls by model role, and within each role by system: what
// the run's records say each role was asked, and how much the real run
// could keep in flight.

import (
	"runtime"
	"slices"
	"sort"
	"strconv"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/record"
)

// dryRoles are the model roles a run calls, in table order.
var dryRoles = []string{"chat", "judge", "embed", "rerank"}

// runWorkers is how many episodes the real run keeps in flight (Run's
// workers; the efficiency run goes one at a time).
func runWorkers(cfg *config.Config, kind string) int {
	if kind == "latency" {
		return 1
	}
	if w := cfg.Run.Workers; w > 0 {
		return w
	}
	if c := capacity(cfg.Models.Chat); c > 0 && !cfg.Models.Chat.Local() {
		return c
	}
	return runtime.NumCPU()
}

func capacity(r config.Role) int {
	n := 0
	for _, ep := range r.Endpoints {
		n += max(ep.MaxInflight, 1)
	}
	return n
}

// roleCounts sums one model's calls by role, and within each role by
// system: ingestion from the episode records, questions from the samples.
func roleCounts(m Model, kind string, o *Outcome) []RoleCount {
	by := map[string]*RoleCount{}
	get := func(role string) *RoleCount {
		rc := by[role]
		if rc == nil {
			r := *m.Config.Models.Role(role)
			rc = &RoleCount{Model: m.Name, Role: role, Local: r.Local(), Endpoints: len(r.Endpoints), Capacity: capacity(r)}
			if !rc.Local {
				rc.InFlight = min(rc.Capacity, runWorkers(m.Config, kind))
			}
			by[role] = rc
		}
		return rc
	}
	for _, role := range dryRoles {
		if !m.Config.Models.Role(role).Local() {
			get(role)
		}
	}
	interactions, answers := map[string]int{}, map[string]int{}
	add := func(system string, calls map[string]record.Calls, ingest bool) {
		for role, c := range calls {
			rc := get(role)
			sub := rc.system(system)
			for _, x := range []*RoleCount{rc, sub} {
				if ingest {
					x.IngestCalls += c.Count
				} else {
					x.QuestionCalls += c.Count
				}
				x.PromptTokens += c.PromptTokens
				x.CompletionMax += c.CompletionTokens
			}
		}
	}
	for _, e := range o.Episodes {
		interactions[e.System] += e.Committed
		add(e.System, e.Calls, true)
	}
	for _, s := range o.Samples {
		answers[s.System]++
		add(s.System, s.Calls, false)
	}
	out := make([]RoleCount, 0, len(by))
	for _, rc := range by {
		for i := range rc.Systems {
			sub := &rc.Systems[i]
			sub.Interactions, sub.Answers = interactions[sub.System], answers[sub.System]
			rc.Interactions += sub.Interactions
			rc.Answers += sub.Answers
		}
		sort.Slice(rc.Systems, func(i, j int) bool { return rc.Systems[i].System < rc.Systems[j].System })
		out = append(out, *rc)
	}
	sort.Slice(out, func(i, j int) bool { return roleRank(out[i].Role) < roleRank(out[j].Role) })
	return out
}

// system returns the per-system share of rc for system, adding it.
func (rc *RoleCount) system(system string) *RoleCount {
	for i := range rc.Systems {
		if rc.Systems[i].System == system {
			return &rc.Systems[i]
		}
	}
	rc.Systems = append(rc.Systems, RoleCount{Model: rc.Model, Role: rc.Role, System: system, Local: rc.Local})
	return &rc.Systems[len(rc.Systems)-1]
}

func roleRank(role string) string {
	if i := slices.Index(dryRoles, role); i >= 0 {
		return strconv.Itoa(i)
	}
	return "9" + role
}
