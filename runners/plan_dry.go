package runners

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/llmtest"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
	"github.com/arbor-eval/arbor/pkg/llm/speaker"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/pkg/tokens"
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
	// System is set on the per-system shares listed in Systems.
	System  string
	Systems []RoleCount
}

// Calls is the role's total.
func (r RoleCount) Calls() int { return r.IngestCalls + r.QuestionCalls }

// DryRun runs p (and each of models, for a multi-model ablation) exactly as
// the real command would, except that every model role configured with
// endpoints is answered by an in-process fake (llmtest) with no latency, the
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
	entries := models
	if len(entries) == 0 {
		if p.Config == nil {
			return nil, fmt.Errorf("plan has no config")
		}
		entries = []Model{{Config: p.Config}}
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

func (r *DryReport) notes(entries []Model, p Plan) {
	chatOps := false
	for _, m := range entries {
		if !m.Config.Models.Chat.Local() && slices.Contains(r.Systems, "arbormem") && m.Config.UseChat(m.Config.ArborMem.Extractors) {
			chatOps = true
		}
		if !m.Config.Models.Tokenizer.Local() {
			r.Notes = append(r.Notes, "The tokenizer role counted offline (exact Qwen3 ids, the same /tokenize returns); the real run's /tokenize calls are not counted.")
		}
	}
	if slices.ContainsFunc(r.Roles, func(rc RoleCount) bool { return !rc.Local }) {
		r.Notes = append(r.Notes, "Nothing was sent to the configured endpoints: every role with endpoints was answered at once by an in-process fake, with the response cache off, so every call a run without cached replies makes is counted.")
	} else {
		r.Notes = append(r.Notes, "Every role is local (offline providers): the run makes no remote call.")
	}
	r.Notes = append(r.Notes,
		"Prompt tokens of chat roles are exact Qwen3 counts of the messages plus the chat template (5 tokens per message, 3 for the reply header); completion tokens are the max_tokens each call allows, an upper bound. Embedding and rerank calls are counted, their tokens are not.")
	if chatOps {
		r.Notes = append(r.Notes, "Memory operations were answered with what the offline rules extract (a speaking fake), so none was repaired. Calls that depend on what the model extracts are counted as the rules extract: ArborMem's fact-collision audit (at most one chat call per ingested interaction) and its fact embeddings (at most one embed call per ingested interaction); a model may extract more or less. Prompts overridden with prompts_dir are not recognised by the fake and count their repair calls.")
	}
	if r.Upper == 0 && !r.allLocal() {
		r.Notes = append(r.Notes, "No time estimate: give --throughput role=calls/s (e.g. chat=20,judge=40) or --probe to measure the endpoints.")
	} else if slices.ContainsFunc(r.Roles, func(rc RoleCount) bool { return strings.HasPrefix(rc.Source, "probe") }) {
		r.Notes = append(r.Notes, "Probe latencies are one-token replies to a short prompt: real calls (long prompts, longer replies) take longer, so probe-based times are lower bounds.")
	}
	if p.Kind == "latency" {
		r.Notes = append(r.Notes, "The efficiency run keeps one episode in flight (paper §6.4, sequential execution).")
	}
	if r.Upper > 0 && !r.allLocal() {
		r.Notes = append(r.Notes, fmt.Sprintf("Inside a memory instance (one episode and system) commits and answers run one after another: with %d instances, at most %d calls of a role are in flight, whatever its endpoints' capacity; times are stretched accordingly.", r.Ingestions, r.Ingestions))
	}
}

// Write prints the report: what the run selects, the calls and tokens by
// role, and the time estimate.
func (r *DryReport) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Dry run of %s on %s (nothing sent to the configured endpoints)\n\n", r.Kind, r.Benchmark)
	fmt.Fprintf(&b, "- selection: %d episodes, %d questions; systems %s; budgets %s; variants %s\n",
		r.Episodes, r.Questions, strings.Join(r.Systems, ", "), budgetLabels(r.Budgets), variantList(r.Variants))
	fmt.Fprintf(&b, "- work: %d memory instances ingest %d interactions in total; %d answers (samples)\n", r.Ingestions, r.Interactions, r.Samples)
	if r.Resolution.Questions > 0 {
		b.WriteString(r.Resolution.line())
	}
	if r.Failed > 0 {
		fmt.Fprintf(&b, "- %d samples failed in the dry run, e.g.: %s\n", r.Failed, r.FirstError)
	}
	fmt.Fprintf(&b, "- the dry run itself took %s on this machine (local computation; remote calls answered at once)\n\n", human(r.Elapsed))
	b.WriteString(r.callTable().Markdown())
	b.WriteString("\n")
	if r.Upper > 0 {
		if tt := r.timeTable(); len(tt.Rows) > 0 {
			b.WriteString(tt.Markdown())
		}
		fmt.Fprintf(&b, "\nEstimated wall time: %s if the roles overlap fully, %s if they run one after another.\n", human(r.Lower), human(r.Upper))
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func variantList(vs []string) string {
	l := make([]string, len(vs))
	for i, v := range vs {
		l[i] = v
		if v == "" {
			l[i] = "reference"
		}
	}
	return strings.Join(l, ", ")
}

func (r *DryReport) multiModel() bool {
	return slices.ContainsFunc(r.Roles, func(rc RoleCount) bool { return rc.Model != "" })
}

func (r *DryReport) label(rc RoleCount) string {
	if r.multiModel() {
		return rc.Model + " / " + rc.Role
	}
	return rc.Role
}

func (r *DryReport) callTable() table.Table {
	t := table.Table{Title: "Model calls by role", Stub: "Role", Columns: []table.Column{
		{Name: "Endpoints"}, {Name: "In flight"},
		{Name: "Ingest calls"}, {Name: "Per interaction", Decimals: 2},
		{Name: "Question calls"}, {Name: "Per answer", Decimals: 2},
		{Name: "Prompt tokens"}, {Name: "Completion tokens (max)"},
	}}
	for _, rc := range r.Roles {
		ends := table.T("local")
		inflight := table.T("–")
		if !rc.Local {
			ends, inflight = table.V(float64(rc.Endpoints)), table.V(float64(rc.InFlight))
		}
		t.Rows = append(t.Rows, table.Row{Label: r.label(rc), Cells: append([]table.Cell{ends, inflight}, callCells(rc)...)})
		if len(rc.Systems) > 1 {
			for _, sub := range rc.Systems {
				t.Rows = append(t.Rows, table.Row{Label: sub.System, Indent: 1, Cells: append([]table.Cell{{}, {}}, callCells(sub)...)})
			}
		}
	}
	return t
}

// callCells are a role's (or a system's share of it) calls, rates and tokens.
func callCells(rc RoleCount) []table.Cell {
	tok, comp := table.T("–"), table.T("–")
	if rc.Role == "chat" || rc.Role == "judge" {
		tok, comp = table.V(float64(rc.PromptTokens)), table.V(float64(rc.CompletionMax))
	}
	return []table.Cell{
		table.V(float64(rc.IngestCalls)), ratio(rc.IngestCalls, rc.Interactions),
		table.V(float64(rc.QuestionCalls)), ratio(rc.QuestionCalls, rc.Answers),
		tok, comp,
	}
}

func ratio(a, b int) table.Cell {
	if b == 0 {
		return table.T("–")
	}
	return table.V(float64(a) / float64(b))
}

func (r *DryReport) timeTable() table.Table {
	t := table.Table{Title: "Time estimate", Stub: "Role", Columns: []table.Column{
		{Name: "Calls"}, {Name: "Throughput", Unit: "calls/s", Decimals: 2}, {Name: "From"}, {Name: "Time"},
	}}
	for _, rc := range r.Roles {
		if rc.Local || rc.Calls() == 0 {
			continue
		}
		thr, tm := table.T("–"), table.T("no estimate")
		if rc.Throughput > 0 {
			thr, tm = table.V(rc.Throughput), table.T(human(rc.Time))
		}
		t.Rows = append(t.Rows, table.Row{Label: r.label(rc), Cells: []table.Cell{table.V(float64(rc.Calls())), thr, table.T(orDash(rc.Source)), tm}})
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// human prints a duration for people: "2h 05m", "3m 20s", "4.2s".
func human(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
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

// dryEnv holds a dry run's fake endpoints, one per role (and embedding
// dimension and prompt set), shared by the models of a multi-model run.
type dryEnv struct {
	mu    sync.Mutex
	fakes map[string]*dryFake
}

func (e *dryEnv) close() {
	for _, f := range e.fakes {
		f.close()
	}
}

func (e *dryEnv) fake(key string, mk func() *dryFake) *dryFake {
	e.mu.Lock()
	defer e.mu.Unlock()
	if f := e.fakes[key]; f != nil {
		return f
	}
	f := mk()
	e.fakes[key] = f
	return f
}

// fakeConfig copies cfg with every remote role pointed at a fake (keeping
// the model name and the role's total capacity, so the run keeps as much in
// flight as the real one), the tokenizer offline, the cache off and results
// in dir.
func (e *dryEnv) fakeConfig(cfg *config.Config, dir string) *config.Config {
	c := *cfg
	c.Run.Results, c.Run.Progress, c.Run.Verbose = dir, false, false
	c.Cache.Enabled, c.Cache.Dir = false, filepath.Join(dir, ".cache")
	for _, role := range dryRoles {
		r := c.Models.Role(role)
		if r.Local() {
			continue
		}
		dim := r.Dim
		if role == "embed" && dim <= 0 {
			dim = 1024
		}
		f := e.fake(role+"/"+strconv.Itoa(dim), func() *dryFake { return newDryFake(dim) })
		r.Endpoints = []config.Endpoint{{URL: f.URL, Model: r.Endpoints[0].Model, MaxInflight: capacity(*r), Timeout: time.Minute}}
	}
	if !c.Models.Tokenizer.Local() {
		c.Models.Tokenizer = config.Role{Provider: "qwen3"}
	}
	return &c
}

// dryFake is a speaking llmtest fake (pkg/llm/speaker: every prompt answered
// with what the offline rules compute from it, embeddings and reranks from
// the offline providers, so the run takes the paths a real one takes) whose
// chat usage is rewritten: prompt tokens become exact Qwen3 counts and
// completion tokens the request's max_tokens (the fake itself counts words).
type dryFake struct {
	URL     string
	inner   *llmtest.Server
	front   *httptest.Server
	counter tokens.Counter
}

func newDryFake(dim int) *dryFake {
	sp, err := speaker.New(speaker.Options{Dim: dim})
	if err != nil {
		panic(err) // only the embedded prompts are read: a failure is a build bug
	}
	f := &dryFake{inner: llmtest.New(sp.Install(llmtest.Options{})), counter: tokens.Default()}
	f.front = httptest.NewServer(f)
	f.URL = f.front.URL
	return f
}

func (f *dryFake) close() {
	f.front.Close()
	f.inner.Close()
}

// ServeHTTP passes requests to the fake, rewriting chat usage.
func (f *dryFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		f.inner.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		Messages  []llmtest.Message `json:"messages"`
		MaxTokens int               `json:"max_tokens"`
	}
	_ = json.Unmarshal(body, &req) // the fake itself reports a malformed body
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	f.inner.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(RewriteUsage(rec.Body.Bytes(), ChatPromptTokens(f.counter, req.Messages), req.MaxTokens))
}

// ChatPromptTokens is a chat request's prompt length under Qwen3's chat
// template: each message is "<|im_start|>role\n" + content + "<|im_end|>\n"
// (5 tokens besides the content) and the reply opens with
// "<|im_start|>assistant\n" (3 tokens).
func ChatPromptTokens(c tokens.Counter, msgs []llmtest.Message) int {
	n := 3
	for _, m := range msgs {
		n += 5 + c.Count(m.Content)
	}
	return n
}

// RewriteUsage sets the usage of a chat completion reply, streamed (SSE
// "data:" events) or whole (one JSON object): prompt_tokens to prompt,
// completion_tokens to completion when it is positive, and total_tokens to
// their sum. Anything it cannot parse is passed through unchanged.
func RewriteUsage(body []byte, prompt, completion int) []byte {
	fix := func(js []byte) []byte {
		var m map[string]json.RawMessage
		if json.Unmarshal(js, &m) != nil {
			return js
		}
		var u map[string]int
		if raw, ok := m["usage"]; !ok || json.Unmarshal(raw, &u) != nil || u == nil {
			return js
		}
		u["prompt_tokens"] = prompt
		if completion > 0 {
			u["completion_tokens"] = completion
		}
		u["total_tokens"] = u["prompt_tokens"] + u["completion_tokens"]
		m["usage"], _ = json.Marshal(u)
		out, err := json.Marshal(m)
		if err != nil {
			return js
		}
		return out
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return fix(trimmed)
	}
	lines := bytes.Split(body, []byte("\n"))
	for i, l := range lines {
		if rest, ok := bytes.CutPrefix(l, []byte("data: ")); ok && bytes.Contains(rest, []byte(`"usage"`)) {
			lines[i] = append([]byte("data: "), fix(rest)...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}
