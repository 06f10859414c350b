// Package provider builds arbor's model clients from the config: the one
// place where endpoints, pool, retries, response cache and metrics are
// composed around the small llm interfaces, and where the offline providers
// stand in for roles without endpoints.
package provider

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/local"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// ErrNoChat is returned (wrapped, naming the config key to set) when a chat
// model is asked of a role that has no endpoints. Callers that have an
// offline heuristic test for it with errors.Is and fall back.
var ErrNoChat = errors.New("no chat model")

// Set holds every model role of a run.
type Set struct {
	// Chat answers questions and runs memory operations; Judge grades
	// answers. Both are nil when their role is local (no endpoints).
	Chat, Judge llm.Client
	Embed       llm.Embedder
	Rerank      llm.Reranker
	// RerankLogits is set when Rerank returns raw logits (TEI, asked for
	// raw scores, or models.rerank.scores: logit) rather than probabilities
	// (vLLM's relevance_score, the offline reranker).
	RerankLogits bool
	Tokens       tokens.Counter
	Metrics      *llm.Metrics
	// ChatCapacity is the sum of max_inflight over the chat endpoints
	// (0 when local): how many requests the runner can keep in flight.
	ChatCapacity int
	// Cache is the response cache (nil when disabled).
	Cache *llm.Cache

	info   []EndpointInfo
	health *[]roleHealth // shared with the builder, which adds each pool
}

// roleHealth is what a Set asks of one role's pool.
type roleHealth struct {
	role    string
	dead    func() error
	failing func() (time.Duration, bool)
}

// Dead returns the first role given up (every endpoint failing for
// retry.dead_after; an error wrapping llm.ErrDead that names the role and
// the last failure), or nil.
func (s *Set) Dead() error {
	if s == nil || s.health == nil {
		return nil
	}
	for _, h := range *s.health {
		if err := h.dead(); err != nil {
			return fmt.Errorf("models.%s: %w", h.role, err)
		}
	}
	return nil
}

// Failing names the roles whose every endpoint is failing, with how long,
// in role order ("" when none): a run's progress line shows it while the
// run stalls.
func (s *Set) Failing() string {
	if s == nil || s.health == nil {
		return ""
	}
	var parts []string
	for _, h := range *s.health {
		if d, ok := h.failing(); ok {
			parts = append(parts, fmt.Sprintf("%s endpoints failing for %s", h.role, d.Round(time.Second)))
		}
	}
	return strings.Join(parts, ", ")
}

// watch registers p's health under role.
func watch[T any](health *[]roleHealth, role string, p *llm.Pool[T]) {
	*health = append(*health, roleHealth{role: role, dead: p.Dead, failing: p.Failing})
}

// EndpointInfo names one role's endpoint for manifests. It never holds a key.
type EndpointInfo struct {
	Role  string `json:"role"`
	URL   string `json:"url,omitempty"`
	Model string `json:"model"`
}

// New composes the roles of cfg. Remote roles become
// metrics(cache(retry(pool(endpoints)))), with batching between cache and
// retry for embeddings and reranks so that only uncached texts are sent and
// each batch is retried on its own. It makes no network call.
func New(ctx context.Context, cfg *config.Config) (*Set, error) {
	_ = ctx // reserved: construction is offline; probing is Check's job
	b := builder{cfg: cfg, hc: llm.NewHTTPClient(), logger: slog.Default(), health: &[]roleHealth{}}
	var callLog *slog.Logger
	if cfg.Run.Verbose {
		callLog = b.logger
	}
	b.metrics = llm.NewMetrics(callLog)
	if cfg.Cache.Enabled {
		c, err := llm.OpenCache(cfg.CacheDir(), b.logger)
		if err != nil {
			return nil, fmt.Errorf("cache.dir: %w", err)
		}
		b.cache = c
	}
	s := &Set{Metrics: b.metrics, Cache: b.cache, info: Describe(cfg), health: b.health}
	m := &cfg.Models
	if !m.Chat.Local() {
		s.Chat, s.ChatCapacity = b.chat("chat", m.Chat)
	}
	if !m.Judge.Local() {
		s.Judge, _ = b.chat("judge", m.Judge)
	}
	if m.Embed.Local() {
		s.Embed = llm.MeterEmbed(local.NewEmbedder(m.Embed.Dim), b.metrics, "embed")
	} else {
		s.Embed = b.embed(m.Embed)
	}
	if m.Rerank.Local() {
		s.Rerank = llm.MeterRerank(local.NewReranker(), b.metrics, "rerank")
	} else {
		s.Rerank = b.rerank(m.Rerank)
		s.RerankLogits = m.Rerank.RerankLogits()
	}
	if m.Tokenizer.Local() { // "qwen3" or "local": exact offline Qwen3 counts
		s.Tokens = tokens.Default()
	} else {
		// nil: Qwen3 fallback (and local counter), loaded on first use.
		s.Tokens = tokens.NewVerified(b.tokenizer(m.Tokenizer), nil, m.Tokenizer.VerifyEvery)
	}
	return s, nil
}

// Close writes out the response cache's pending entries. Call it before the
// process exits, or a re-run will miss the last replies (never corrupt them).
func (s *Set) Close() error {
	if s.Cache == nil {
		return nil
	}
	s.Cache.Flush()
	if n := s.Cache.WriteErrors(); n > 0 {
		return fmt.Errorf("response cache %s: %d writes failed", s.Cache.Dir(), n)
	}
	return nil
}

// ChatClient returns Chat, or an error wrapping ErrNoChat that says which
// key to set.
func (s *Set) ChatClient() (llm.Client, error) {
	if s.Chat == nil {
		return nil, noModel("chat")
	}
	return s.Chat, nil
}

// JudgeClient returns Judge, or an error wrapping ErrNoChat that says which
// key to set.
func (s *Set) JudgeClient() (llm.Client, error) {
	if s.Judge == nil {
		return nil, noModel("judge")
	}
	return s.Judge, nil
}

func noModel(role string) error {
	return fmt.Errorf(`%w: %s model is "local": set models.%s.endpoints (see README "Pointing arbor at vLLM")`, ErrNoChat, role, role)
}

// Describe lists every role's endpoints (model and URL without credentials)
// for the run manifest; local roles appear with their offline provider.
func (s *Set) Describe() []EndpointInfo { return slices.Clone(s.info) }

// Describe lists the roles of cfg as Set.Describe does.
func Describe(cfg *config.Config) []EndpointInfo {
	var out []EndpointInfo
	for _, r := range cfg.Models.Roles() {
		if r.Role.Local() {
			out = append(out, EndpointInfo{Role: r.Name, Model: localName(r.Name)})
			continue
		}
		for _, ep := range r.Role.Endpoints {
			out = append(out, EndpointInfo{Role: r.Name, URL: llm.DisplayURL(ep.URL), Model: ep.Model})
		}
	}
	return out
}

// localName is what stands in for a role without endpoints.
func localName(role string) string {
	if role == "tokenizer" {
		return "qwen3"
	}
	return "local"
}

type builder struct {
	cfg     *config.Config
	hc      *http.Client
	cache   *llm.Cache
	metrics *llm.Metrics
	logger  *slog.Logger
	health  *[]roleHealth
}

// members turns a role's endpoints into pool members with clients made by mk.
func members[T any](r config.Role, mk func(config.Endpoint) T) []llm.Member[T] {
	out := make([]llm.Member[T], len(r.Endpoints))
	for i, ep := range r.Endpoints {
		out[i] = llm.Member[T]{Client: mk(ep), URL: llm.DisplayURL(ep.URL), MaxInflight: ep.MaxInflight, Timeout: ep.Timeout}
	}
	return out
}

func (b builder) poolOptions(role string) llm.PoolOptions {
	return llm.PoolOptions{Role: role, FailuresToEject: b.cfg.Retry.FailuresToEject, EjectFor: b.cfg.Retry.EjectFor,
		DeadAfter: b.cfg.Retry.DeadAfter, Logger: b.logger}
}

func (b builder) retrier(role string) llm.Retrier { return llm.NewRetrier(b.cfg.Retry, role, b.logger) }

// modelKey names a role's model in cache keys: the distinct endpoint models,
// so replies are shared across servers of the same model but never across
// models.
func modelKey(r config.Role) string {
	var ms []string
	for _, ep := range r.Endpoints {
		if !slices.Contains(ms, ep.Model) {
			ms = append(ms, ep.Model)
		}
	}
	slices.Sort(ms)
	return strings.Join(ms, ",")
}

func (b builder) chat(role string, r config.Role) (llm.Client, int) {
	p := llm.NewPool(members(r, func(ep config.Endpoint) llm.Client { return llm.NewChatClient(ep, b.hc) }), b.poolOptions(role))
	watch(b.health, role, p)
	c := llm.RetryChat(llm.PoolChat(p), b.retrier(role))
	if b.cache != nil {
		c = llm.CacheChat(c, b.cache, role, modelKey(r))
	}
	if t := b.cfg.Answer.EnableThinking; t != nil {
		// Outside the cache, so that cached replies are keyed with it.
		c = thinking{c, *t}
	}
	return llm.MeterChat(c, b.metrics, role), p.Capacity()
}

// thinking sends answer.enable_thinking as chat_template_kwargs with every
// chat call that does not set it itself: memory operations, summaries and
// judgements as well as answers, since a hybrid Qwen3 thinks by default and
// a thinking block spends the memory operations' and the judge's token caps.
type thinking struct {
	llm.Client
	on bool
}

func (t thinking) Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	if _, ok := req.ChatTemplateKwargs["enable_thinking"]; !ok {
		kw := maps.Clone(req.ChatTemplateKwargs)
		if kw == nil {
			kw = map[string]any{}
		}
		kw["enable_thinking"] = t.on
		req.ChatTemplateKwargs = kw
	}
	return t.Client.Chat(ctx, req)
}

func (b builder) embed(r config.Role) llm.Embedder {
	p := llm.NewPool(members(r, func(ep config.Endpoint) llm.Embedder { return llm.NewEmbedClient(ep, r.Dim, b.hc) }), b.poolOptions("embed"))
	watch(b.health, "embed", p)
	e := llm.BatchEmbed(llm.RetryEmbed(llm.PoolEmbed(p, r.Dim), b.retrier("embed")), r.BatchSize, p.Capacity())
	if b.cache != nil {
		e = llm.CacheEmbed(e, b.cache, "embed", modelKey(r))
	}
	return llm.MeterEmbed(e, b.metrics, "embed")
}

func (b builder) rerank(r config.Role) llm.Reranker {
	p := llm.NewPool(members(r, func(ep config.Endpoint) llm.Reranker { return llm.NewRerankClient(ep, r.API, b.hc) }), b.poolOptions("rerank"))
	watch(b.health, "rerank", p)
	// At most 32 texts a request, TEI's default max client batch; a size
	// <= 0 leaves BatchRerank's default, which is that same 32.
	rr := llm.BatchRerank(llm.RetryRerank(llm.PoolRerank(p), b.retrier("rerank")), min(r.BatchSize, 32), p.Capacity())
	if b.cache != nil {
		// "tei-raw": TEI replies are raw logits since raw_scores is sent
		// true; the key keeps probabilities cached before that apart.
		api := r.API
		if api == "tei" {
			api = "tei-raw"
		}
		rr = llm.CacheRerank(rr, b.cache, "rerank", api+":"+modelKey(r))
	}
	return llm.MeterRerank(rr, b.metrics, "rerank")
}

func (b builder) tokenizer(r config.Role) llm.Tokenizer {
	p := llm.NewPool(members(r, func(ep config.Endpoint) llm.Tokenizer { return llm.NewTokenizeClient(ep, b.hc) }), b.poolOptions("tokenizer"))
	watch(b.health, "tokenizer", p)
	t := llm.RetryTokenizer(llm.PoolTokenizer(p), b.retrier("tokenizer"))
	if b.cache != nil {
		t = llm.CacheTokenizer(t, b.cache, "tokenizer", modelKey(r))
	}
	return llm.MeterTokenizer(t, b.metrics, "tokenizer")
}
