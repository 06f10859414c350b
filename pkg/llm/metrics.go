package llm

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// callNote is what the layers under a metered call report about it: the
// retry layer counts retries, the cache marks hits, embedding and rerank
// clients add the token usage their replies carry. It travels in the
// context so that the Client/Embedder/Reranker interfaces stay small.
type callNote struct {
	retries    atomic.Int64
	prompt     atomic.Int64
	completion atomic.Int64
	cached     atomic.Bool
	ttft       time.Duration // chat only, set by MeterChat
}

type noteKey struct{}

func noteFrom(ctx context.Context) *callNote {
	n, _ := ctx.Value(noteKey{}).(*callNote)
	return n
}

func noteTokens(ctx context.Context, prompt, completion int) {
	if n := noteFrom(ctx); n != nil {
		n.prompt.Add(int64(prompt))
		n.completion.Add(int64(completion))
	}
}

func noteRetry(ctx context.Context) {
	if n := noteFrom(ctx); n != nil {
		n.retries.Add(1)
	}
}

func noteCached(ctx context.Context) {
	if n := noteFrom(ctx); n != nil {
		n.cached.Store(true)
	}
}

// Metrics aggregates calls by role and purpose. Safe for concurrent use.
type Metrics struct {
	mu     sync.Mutex
	series map[[2]string]*series
	logger *slog.Logger
}

// NewMetrics returns empty metrics. A non-nil logger hears about every call
// (arbor --verbose).
func NewMetrics(logger *slog.Logger) *Metrics {
	return &Metrics{series: map[[2]string]*series{}, logger: logger}
}

type series struct {
	count, errors, retries, cacheHits, prompt, completion int64
	latency, ttft                                         reservoir
}

// reservoir keeps a uniform sample of at most reservoirCap values (Vitter's
// algorithm R) so that percentiles of long runs cost bounded memory. Its
// generator is seeded, so equal call sequences give equal percentiles.
type reservoir struct {
	xs  []time.Duration
	n   int64
	rng *rand.Rand
}

const reservoirCap = 1 << 14

func (r *reservoir) add(d time.Duration) {
	r.n++
	if len(r.xs) < reservoirCap {
		r.xs = append(r.xs, d)
		return
	}
	if r.rng == nil {
		r.rng = rand.New(rand.NewPCG(1, 2))
	}
	if j := r.rng.Int64N(r.n); j < reservoirCap {
		r.xs[j] = d
	}
}

// quantiles returns nearest-rank percentiles of the sample.
func (r *reservoir) quantiles(ps ...float64) []time.Duration {
	out := make([]time.Duration, len(ps))
	if len(r.xs) == 0 {
		return out
	}
	s := slices.Clone(r.xs)
	slices.Sort(s)
	for i, p := range ps {
		k := int(p*float64(len(s))+0.999999) - 1
		out[i] = s[min(max(k, 0), len(s)-1)]
	}
	return out
}

// observe runs one logical call (all its retries, cache look-ups, batches)
// and records it under role and purpose, in m and in the context's Usage.
// Latency is what the caller waited, pool queueing and retries included;
// cache hits are counted but kept out of the latency percentiles.
func (m *Metrics) observe(ctx context.Context, role, purpose string, fn func(context.Context, *callNote) error) error {
	n := &callNote{}
	start := time.Now()
	err := fn(context.WithValue(ctx, noteKey{}, n), n)
	elapsed := time.Since(start)
	u := RoleUsage{Count: 1, PromptTokens: int(n.prompt.Load()), CompletionTokens: int(n.completion.Load())}
	if err != nil {
		u.Errors = 1
	}
	if n.cached.Load() {
		u.CacheHits = 1
	}
	UsageFrom(ctx).Add(role, u)
	traceFrom(ctx).add(Call{Role: role, Purpose: purpose, Start: start, End: start.Add(elapsed), Err: err != nil})
	if m == nil {
		return err
	}
	if m.logger != nil {
		m.logger.Info("model call", "role", role, "purpose", purpose, "latency", elapsed, "cached", u.CacheHits == 1,
			"retries", n.retries.Load(), "prompt_tokens", u.PromptTokens, "completion_tokens", u.CompletionTokens, "error", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{role, purpose}
	s := m.series[k]
	if s == nil {
		s = &series{}
		m.series[k] = s
	}
	s.count++
	s.errors += int64(u.Errors)
	s.cacheHits += int64(u.CacheHits)
	s.retries += n.retries.Load()
	s.prompt += int64(u.PromptTokens)
	s.completion += int64(u.CompletionTokens)
	if err == nil && u.CacheHits == 0 {
		s.latency.add(elapsed)
		if n.ttft > 0 {
			s.ttft.add(n.ttft)
		}
	}
	return err
}

// MetricsRow is one role and purpose's figures.
type MetricsRow struct {
	Role, Purpose                            string
	Count, Errors, Retries, CacheHits        int64
	PromptTokens, CompletionTokens           int64
	LatencyP50, LatencyP95, TTFTP50, TTFTP95 time.Duration
}

// Rows returns the figures sorted by role and purpose.
func (m *Metrics) Rows() []MetricsRow {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rows := make([]MetricsRow, 0, len(m.series))
	for k, s := range m.series {
		l := s.latency.quantiles(0.5, 0.95)
		t := s.ttft.quantiles(0.5, 0.95)
		rows = append(rows, MetricsRow{
			Role: k[0], Purpose: k[1], Count: s.count, Errors: s.errors, Retries: s.retries, CacheHits: s.cacheHits,
			PromptTokens: s.prompt, CompletionTokens: s.completion,
			LatencyP50: l[0], LatencyP95: l[1], TTFTP50: t[0], TTFTP95: t[1],
		})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Role != rows[j].Role {
			return rows[i].Role < rows[j].Role
		}
		return rows[i].Purpose < rows[j].Purpose
	})
	return rows
}

// WriteTable prints the rows as an aligned text table.
func (m *Metrics) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "role\tpurpose\tcalls\terrors\tretries\tcache hits\tp50\tp95\tttft p50\tttft p95\tprompt tok\tcompletion tok")
	for _, r := range m.Rows() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%d\n", r.Role, r.Purpose, r.Count, r.Errors, r.Retries, r.CacheHits,
			ms(r.LatencyP50), ms(r.LatencyP95), ms(r.TTFTP50), ms(r.TTFTP95), r.PromptTokens, r.CompletionTokens)
	}
	return tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

// MeterChat records every call of next in m under role and the request's
// Purpose ("chat" when empty).
func MeterChat(next Client, m *Metrics, role string) Client {
	return chatFunc(func(ctx context.Context, req ChatRequest) (resp ChatResponse, err error) {
		purpose := req.Purpose
		if purpose == "" {
			purpose = "chat"
		}
		err = m.observe(ctx, role, purpose, func(ctx context.Context, n *callNote) error {
			resp, err = next.Chat(ctx, req)
			if err == nil {
				n.prompt.Store(int64(resp.PromptTokens))
				n.completion.Store(int64(resp.CompletionTokens))
				if resp.Cached {
					n.cached.Store(true)
				} else {
					n.ttft = resp.TTFT
				}
			}
			return err
		})
		return resp, err
	})
}

// MeterEmbed records every call of next in m under role, purpose "embed".
func MeterEmbed(next Embedder, m *Metrics, role string) Embedder {
	return aroundEmbed(next, m.around(role, "embed"))
}

// MeterRerank records every call of next in m under role, purpose "rerank".
func MeterRerank(next Reranker, m *Metrics, role string) Reranker {
	return aroundRerank(next, m.around(role, "rerank"))
}

// MeterTokenizer records every call of next in m under role, purpose "tokenize".
func MeterTokenizer(next Tokenizer, m *Metrics, role string) Tokenizer {
	return aroundTokenizer(next, m.around(role, "tokenize"))
}

func (m *Metrics) around(role, purpose string) around {
	return func(ctx context.Context, call func(context.Context) error) error {
		return m.observe(ctx, role, purpose, func(ctx context.Context, _ *callNote) error { return call(ctx) })
	}
}

// RoleUsage is one role's share of a Usage.
type RoleUsage struct {
	Count            int `json:"count"`
	Errors           int `json:"errors"`
	CacheHits        int `json:"cache_hits"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Usage accounts the model calls made under one context (one sample, one
// episode): calls, errors, cache hits and tokens by role. A Usage created
// inside another's context also adds to the outer one. Safe for concurrent
// use; a nil *Usage ignores Add and snapshots as empty.
type Usage struct {
	mu     sync.Mutex
	roles  map[string]RoleUsage
	parent *Usage
}

type usageKey struct{}

// WithUsage returns a context whose calls are accounted in the returned Usage.
func WithUsage(ctx context.Context) (context.Context, *Usage) {
	u := &Usage{roles: map[string]RoleUsage{}, parent: UsageFrom(ctx)}
	return context.WithValue(ctx, usageKey{}, u), u
}

// UsageFrom returns the context's innermost Usage, or nil.
func UsageFrom(ctx context.Context) *Usage {
	u, _ := ctx.Value(usageKey{}).(*Usage)
	return u
}

// Add accounts r under role (here and in every enclosing Usage).
func (u *Usage) Add(role string, r RoleUsage) {
	for ; u != nil; u = u.parent {
		u.mu.Lock()
		c := u.roles[role]
		c.Count += r.Count
		c.Errors += r.Errors
		c.CacheHits += r.CacheHits
		c.PromptTokens += r.PromptTokens
		c.CompletionTokens += r.CompletionTokens
		u.roles[role] = c
		u.mu.Unlock()
	}
}

// Snapshot returns a copy of the figures by role.
func (u *Usage) Snapshot() map[string]RoleUsage {
	out := map[string]RoleUsage{}
	if u == nil {
		return out
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for k, v := range u.roles {
		out[k] = v
	}
	return out
}
