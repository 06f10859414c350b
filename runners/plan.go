// Package runners turns a Plan into a run: it replays benchmark episodes
// through memory systems, answers, scores, records every sample as it is
// produced, resumes interrupted runs, and renders the tables.
package runners

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/config"
)

// Plan is everything one run needs.
type Plan struct {
	Benchmark string
	// Data is the dataset path; "" for benchmarks that embed a default.
	Data string
	// Systems to run; empty means every system available for the benchmark.
	Systems []string
	// Budgets in tokens; empty means the config's answer.budget.
	Budgets []int
	// Variants are ablation variants ("" is the reference configuration);
	// empty means just the reference.
	Variants   []string
	Categories []string
	// Limit keeps the first N episodes (after Episodes and Subset, before
	// Shard, so that the shards of a limited plan cover the same episodes).
	Limit int
	// Subset samples N episodes with Seed (the read-budget and ablation subsets).
	Subset int
	// SubsetIDs pins the subset instead (--subset-ids): the episodes whose id
	// or one of whose question ids is listed. It overrides Subset.
	SubsetIDs []string
	Seed      int
	Episodes  []string
	Shard     Shard
	// RunID names results/<RunID>; "" derives it from the plan.
	RunID string
	// Force allows resuming a run whose config fingerprint differs.
	Force bool
	// RetryErrors answers again, on resume, the questions whose recorded
	// sample is an error (an endpoint that was down, a 400); the new line
	// supersedes the old one.
	RetryErrors bool
	// Tables picks the tables printed at the end: TablesMain ("" too) or
	// TablesAll; every table is written to tables/ either way.
	Tables string
	// Integrity says when a finished run is a failure although every
	// sample was recorded.
	Integrity Integrity
	// Command is the argv recorded in the manifest.
	Command []string
	// Judges adds further judge configurations (config files) whose scores
	// are recorded beside the primary one.
	Judges []string
	Config *config.Config
	// Out receives the rendered tables; Log receives progress and warnings.
	Out io.Writer
	Log io.Writer
	// Kind names the experiment for the run id and tables: eval, sweep, ablate, latency.
	Kind string
}

// Integrity is the exit policy of a finished run. A run with failed
// samples fails unless AllowErrors; with Strict, a run fails when any
// degraded count (scoring.DegradedBySystem) is above zero, or when
// MaxDegraded > 0, when a count's share of what it counts exceeds
// MaxDegraded percent.
type Integrity struct {
	AllowErrors bool
	Strict      bool
	MaxDegraded float64
}

// Shard selects every episode whose index i satisfies i % N == K-1.
type Shard struct{ K, N int }

// ParseShard parses "k/n" (1 ≤ k ≤ n).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return Shard{}, fmt.Errorf("--shard %q: expected k/n with 1 ≤ k ≤ n, e.g. 2/4", s)
	}
	return Shard{K: k, N: n}, nil
}

func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// PaperBudget32K is the paper's exact 32K answer-time limit (config.PaperBudget32K).
const PaperBudget32K = config.PaperBudget32K

// ParseBudget reads a budget as config.ParseBudget does: 32k is 30,968,
// other nk are n×1024, zero and negative are refused.
func ParseBudget(s string) (int, error) { return config.ParseBudget(s) }

// ParseBudgets parses a comma-separated list of budgets.
func ParseBudgets(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		b, err := ParseBudget(part)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// runID derives a stable run name from what the run computes and the
// config it computes it with (configDigest), so that the same command
// under the same config resumes the same run, and an offline run and a
// vLLM run of one command are two runs. Prompt or dataset changes under one
// id are caught by the fingerprint check.
func (p *Plan) runID() string {
	if p.RunID != "" {
		return p.RunID + p.Shard.suffix()
	}
	h := sha256.New()
	// Sorted, so that --systems bm25,full and full,bm25 resume each other.
	systems := append([]string(nil), p.Systems...)
	sort.Strings(systems)
	fmt.Fprintf(h, "%s|%s|%v|%v|%v|%v|%d|%d", p.Benchmark, p.Data, systems, p.Budgets, p.Variants, p.Categories, p.Subset, p.Seed)
	if len(p.SubsetIDs) > 0 {
		fmt.Fprintf(h, "|ids:%v", p.SubsetIDs)
	}
	kind := p.Kind
	if kind == "" {
		kind = "eval"
	}
	return fmt.Sprintf("%s-%s-%s-%s", kind, p.Benchmark, hex.EncodeToString(h.Sum(nil))[:8], configDigest(p.Config)) + p.Shard.suffix()
}

// suffix names a shard's own folder ("-shard1of2"): shards always get
// their own folder, also under --run, so that two machines writing shards
// of one plan never share one.
func (s Shard) suffix() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("-shard%dof%d", s.K, s.N)
}
