package runners

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// PerfPlan configures Perf: the latency of every fake model call and the two
// configurations whose per-endpoint limits are measured (their URLs are
// replaced by the fake server's).
type PerfPlan struct {
	// Latency is L, the time every fake chat call takes before its reply,
	// and the unit of the table.
	Latency time.Duration
	// Roles gives a role ("embed", "rerank", "tokenizer") its own latency;
	// a role not named takes L. An embedding call is not a chat call.
	Roles map[string]time.Duration
	// Reference is the reference setup (configs/a800.yaml); Efficiency the
	// matched efficiency setup (configs/efficiency.yaml). Load them fresh:
	// Perf rewrites their endpoints.
	Reference, Efficiency func() (*config.Config, error)
	// Turns bounds the committed turns measured per LongMemEval-shaped row
	// (the BranchMemEval row replays its first session whole, to reach
	// its questions).
	Turns int
	// Sessions is how many BranchMemEval sessions the BranchMemEval rows
	// replay whole (default 3: enough questions for query preparation).
	Sessions int
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// PerfRow is one figure of the performance table, in units of L.
type PerfRow struct {
	Figure string
	L      float64
	// Median is the median commit or query in units of L: a busy machine
	// delays a few calls, which moves the mean more than the median.
	Median float64
	// N is how many commits or queries the figure averages.
	N int
	// Calls is the model calls made, by kind ("chat", "embed", …).
	Calls map[string]int64
}

// Perf measures the critical paths of ArborMem's ingest and query
// preparation against a fake OpenAI-compatible server that answers each
// memory prompt with valid JSON after a fixed latency L: one worker, one
// episode at a time, the configurations' own per-endpoint limits. Each row
// is the wall time per committed turn (or per query) divided by L, so it
// counts sequential model round trips. Nothing leaves loopback.
func Perf(ctx context.Context, p PerfPlan) ([]PerfRow, error) {
	if p.Latency <= 0 {
		return nil, fmt.Errorf("perf: latency must be positive, got %s", p.Latency)
	}
	if p.Turns <= 0 {
		p.Turns = 24
	}
	if p.Sessions <= 0 {
		p.Sessions = 3
	}
	// One fake server per role, each after its own latency.
	urls := map[string]string{}
	for _, role := range perfRoles {
		lat, ok := p.Roles[role]
		if !ok {
			lat = p.Latency
		}
		srv := openaifake.New(openaifake.Options{FirstTokenLatency: lat, Reply: memoryReply, Dim: perfDim,
			CountPrompt: tokens.Default().Count}) // a Qwen3 server: sampled verification agrees
		defer srv.Close()
		urls[role] = srv.URL
	}

	bme, err := datasets.Load(ctx, "branchmemeval", "", datasets.Options{})
	if err != nil {
		return nil, fmt.Errorf("perf: branchmemeval: %w", err)
	}
	if len(bme) == 0 {
		return nil, fmt.Errorf("perf: branchmemeval: no episode")
	}
	lme := SyntheticLongMemEval(p.Turns, 40, 160)

	type run struct {
		figure, benchmark string
		cfg               func() (*config.Config, error)
		remoteTokens      bool
		eps               []datasets.Episode
		query             bool // recall each question (and replay whole episodes to reach them)
		prefetch          bool // start the next turn's first round while this one commits
	}
	// Each ingest figure sequential (the efficiency run's reading, P:586)
	// and with prefetch (an accuracy run's throughput option).
	runs := []run{
		{figure: "ingest per committed turn (BranchMemEval), sequential", benchmark: "branchmemeval", cfg: p.Reference, eps: bme[:min(p.Sessions, len(bme))], query: true},
		{figure: "ingest per committed turn (BranchMemEval), prefetch", benchmark: "branchmemeval", cfg: p.Reference, eps: bme[:min(p.Sessions, len(bme))], prefetch: true},
		{figure: "ingest per committed turn (LongMemEval-shaped), sequential", benchmark: "longmemeval", cfg: p.Reference, eps: []datasets.Episode{lme}},
		{figure: "ingest per committed turn (LongMemEval-shaped), prefetch", benchmark: "longmemeval", cfg: p.Reference, eps: []datasets.Episode{lme}, prefetch: true},
		{figure: "ingest with configs/efficiency.yaml, sequential", benchmark: "longmemeval", cfg: p.Efficiency, eps: []datasets.Episode{lme}},
		{figure: "ingest with configs/efficiency.yaml, prefetch", benchmark: "longmemeval", cfg: p.Efficiency, eps: []datasets.Episode{lme}, prefetch: true},
		{figure: "ingest with a remote tokenizer, sequential", benchmark: "longmemeval", cfg: p.Reference, eps: []datasets.Episode{lme}, remoteTokens: true},
	}
	var rows []PerfRow
	for _, r := range runs {
		var ingD, qryD []time.Duration
		var ingCalls map[string]int64
		for _, ep := range r.eps {
			cfg, err := r.cfg()
			if err != nil {
				return nil, err
			}
			pointAtFake(cfg, urls, r.remoteTokens)
			cfg.ArborMem.Prefetch = r.prefetch
			turns := p.Turns
			if r.query {
				turns = len(ep.Steps)
			}
			ing, qry, calls, err := perfReplay(ctx, cfg, r.benchmark, ep, turns, r.query)
			if err != nil {
				return nil, fmt.Errorf("perf: %s: %w", r.figure, err)
			}
			ingD, qryD = append(ingD, ing...), append(qryD, qry...)
			ingCalls = addCalls(ingCalls, calls)
		}
		row := perfRow(r.figure, ingD, p.Latency)
		row.Calls = ingCalls
		rows = append(rows, row)
		logf(p.Log, "perf: %s: %.2f L (median %.2f L) over %d commits\n", row.Figure, row.L, row.Median, row.N)
		if r.query {
			q := perfRow("query preparation (BranchMemEval)", qryD, p.Latency)
			rows = append(rows, q)
			logf(p.Log, "perf: %s: %.2f L (median %.2f L) over %d queries\n", q.Figure, q.L, q.Median, q.N)
		}
	}
	return rows, nil
}

// perfRow summarises durations in units of latency.
func perfRow(figure string, ds []time.Duration, latency time.Duration) PerfRow {
	r := PerfRow{Figure: figure, N: len(ds)}
	if len(ds) == 0 {
		return r
	}
	var total time.Duration
	for _, d := range ds {
		total += d
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	r.L = float64(total) / float64(len(ds)) / float64(latency)
	r.Median = float64(sorted[len(sorted)/2]) / float64(latency)
	return r
}

func addCalls(a, b map[string]int64) map[string]int64 {
	if a == nil {
		a = map[string]int64{}
	}
	for k, v := range b {
		a[k] += v
	}
	return a
}

// perfDim is the fake server's embedding dimension (BGE-M3's).
const perfDim = 1024

// perfRoles are the model roles Perf serves, one fake server each.
var perfRoles = []string{"chat", "judge", "embed", "rerank", "tokenizer"}

// pointAtFake sends every model role of cfg to its fake server in urls,
// keeping each endpoint's limits (a local role gets one endpoint); the
// tokenizer stays the offline Qwen3 counter unless remoteTokens. One worker,
// no response cache (a cached reply would take no time).
func pointAtFake(cfg *config.Config, urls map[string]string, remoteTokens bool) {
	for _, nr := range cfg.Models.Roles() {
		r := nr.Role
		if nr.Name == "tokenizer" {
			if !remoteTokens {
				*r = config.Role{Provider: "qwen3"}
				continue
			}
		}
		if len(r.Endpoints) == 0 {
			r.Endpoints = []config.Endpoint{{MaxInflight: 8}}
		}
		for i := range r.Endpoints {
			r.Endpoints[i].URL, r.Endpoints[i].Model = urls[nr.Name], "fake-model"
			r.Endpoints[i].APIKey, r.Endpoints[i].APIKeyEnv = "", ""
		}
		r.Provider = "openai"
		if nr.Name == "rerank" && r.API == "" {
			r.API = "vllm"
		}
	}
	cfg.Models.Embed.Dim = perfDim
	cfg.Cache.Enabled = false
	cfg.Run.Workers = 1
	cfg.ArborMem.Extractors = "chat"
}

// perfReplay commits up to turns interactions of ep through a fresh
// ArborMem and recalls each question met on the way (when query), timing
// each call as the eval runner does; calls counts the model calls by role.
func perfReplay(ctx context.Context, cfg *config.Config, benchmark string, ep datasets.Episode, turns int, query bool) (ing, qry []time.Duration, calls map[string]int64, err error) {
	d, err := newMemoryDeps(ctx, cfg, benchmark)
	if err != nil {
		return nil, nil, nil, err
	}
	f, err := d.factory("arbormem", "")
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, usage := llm.WithUsage(ctx)
	sys, err := f(ctx, ep.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	commit := func(in *dialog.Interaction) error {
		t0 := time.Now()
		if err := sys.Commit(ctx, *in); err != nil {
			return err
		}
		ing = append(ing, time.Since(t0))
		return nil
	}
	for i, st := range ep.Steps {
		if len(ing) >= turns {
			break
		}
		if st.Interaction != nil {
			if len(ing)+1 < turns {
				prefetchNext(ctx, sys, ep.Steps, i)
			}
			if err := commit(st.Interaction); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		q := st.Question
		if query && len(ing) > 0 {
			t0 := time.Now()
			if _, err := sys.Recall(ctx, memory.Query{ID: q.ID, Text: q.Text, Time: q.Time, Budget: cfg.Answer.Budget}); err != nil {
				return nil, nil, nil, err
			}
			qry = append(qry, time.Since(t0))
		}
		if q.Canonical != nil {
			if err := commit(q.Canonical); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if h, ok := sys.(memory.HealthReporter); ok {
		if hs := h.Health(); hs.Fallbacks > 0 || hs.BadReplies > 0 || hs.ModelErrors > 0 || hs.Repaired > 0 {
			return nil, nil, nil, fmt.Errorf("memory operations degraded (%+v): the fake's replies no longer match the prompts", hs)
		}
	}
	if w, ok := d.models.Tokens.(interface{ Wait() }); ok {
		w.Wait() // background token-count verifications belong to this replay
	}
	calls = map[string]int64{}
	for role, u := range usage.Snapshot() {
		calls[role] += int64(u.Count)
	}
	return ing, qry, calls, nil
}

// SyntheticLongMemEval builds a LongMemEval-shaped episode in memory: turns
// user/assistant rounds in sessions of ten, a day apart, user messages of
// about userWords words and answers of about asstWords, over a handful of
// recurring topics, and no question. Used by Perf and by the memory
// benchmarks, so that no large file is ever committed.
func SyntheticLongMemEval(turns, userWords, asstWords int) datasets.Episode {
	topics := []string{"garden", "marathon training", "kitchen renovation", "trip to Lisbon", "python project", "guitar lessons", "tax return", "book club"}
	fillers := strings.Fields("the plan needs more detail about timing budget materials schedule people places costs options and the next steps we agreed on last week while reviewing notes from earlier sessions")
	words := func(seed, n int, topic string) string {
		var b strings.Builder
		b.WriteString("About the " + topic + ":")
		for i := range n {
			b.WriteByte(' ')
			b.WriteString(fillers[(seed*7+i*3)%len(fillers)])
			if i%9 == 8 {
				fmt.Fprintf(&b, " %d.", (seed*31+i)%997)
			}
		}
		return b.String()
	}
	start := time.Date(2023, 5, 1, 9, 0, 0, 0, time.UTC)
	ep := datasets.Episode{ID: "synthetic-lme", Benchmark: "longmemeval"}
	for i := range turns {
		sess := i / 10
		topic := topics[(i*5+sess)%len(topics)]
		in := dialog.Interaction{
			ID:      fmt.Sprintf("s%03d_t%02d", sess, i%10),
			Session: fmt.Sprintf("s%03d", sess),
			Time:    start.Add(time.Duration(sess)*24*time.Hour + time.Duration(i%10)*time.Minute),
			Turns: []dialog.Turn{
				{Role: dialog.RoleUser, Content: words(i, userWords, topic)},
				{Role: dialog.RoleAssistant, Content: words(i+1, asstWords, topic)},
			},
		}
		ep.Steps = append(ep.Steps, datasets.Step{Interaction: &in})
	}
	return ep
}

// PerfTable renders rows as the table: figure, value in L, and what
// it averages.
func PerfTable(rows []PerfRow, latency time.Duration, roles map[string]time.Duration) table.Table {
	lat := "every call after L = " + latency.String()
	if len(roles) > 0 {
		parts := []string{"chat after L = " + latency.String()}
		for _, role := range perfRoles {
			if d, ok := roles[role]; ok && role != "chat" {
				parts = append(parts, role+" after "+d.String())
			}
		}
		lat = strings.Join(parts, ", ") + " (others after L)"
	}
	t := table.Table{
		Title: "Critical paths of ingest and query preparation",
		Caption: "Fake model server answering " + lat + "; one worker, one episode at a time, each configuration's per-endpoint limits. " +
			"Sequential: each turn commits before the next starts (the efficiency run, P:586); prefetch: the next turn's extractors start while this one commits (arbormem.prefetch, an accuracy run's throughput option).",
		Stub:    "figure",
		Columns: []table.Column{{Name: "mean", Unit: "L", Decimals: 2}, {Name: "median", Unit: "L", Decimals: 2}, {Name: "commits or queries", Decimals: 0}, {Name: "model calls"}},
	}
	for _, r := range rows {
		calls := make([]string, 0, len(r.Calls))
		for _, k := range []string{"chat", "embed", "rerank", "tokenizer"} {
			if n := r.Calls[k]; n > 0 {
				calls = append(calls, fmt.Sprintf("%s %d", k, n))
			}
		}
		t.Rows = append(t.Rows, table.Row{Label: r.Figure, Cells: []table.Cell{table.V(r.L), table.V(r.Median), table.V(float64(r.N)), table.T(strings.Join(calls, ", "))}})
	}
	return t
}
