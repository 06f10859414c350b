// Package arbormem implements ArborMem (paper §3–§4, appendices A and D): an
// online conversational memory S_t = (F_t, M_t) made of a forest of
// interaction states F_t and a reusable evidence store M_t.
//
// At each input the system localizes the interaction state to resume
// (§4.2: continuation cue → active state; temporal-return cue → the global
// timeline; otherwise a hybrid candidate set reranked by a cross-encoder and
// scored s = s_ce + s_key + s_rec + s_topic against τ), assembles the
// root-to-parent trajectory with cross-branch facts and structured records
// under the answer-time budget (§4.3), and after the answer commits the
// interaction under the chosen parent (§4.4), updating summaries, indexes,
// facts (with collision audit) and records.
//
// Every model-backed memory operation has a chat-backed implementation (the
// paper's prompts, pkg/prompt/templates) and a rule-based one, so the system
// runs offline; System.Heuristic says which is in use.
//
// # The scale of s_ce
//
// The paper adds the cross-encoder score to routing adjustments of fixed
// size (keyword 1.0 + 0.5 per overlap, recency ≤ 1.0, topic +8.0 × match or
// −6.0) and compares the sum with τ = 8.0, but does not state the scale of
// s_ce. We take s_ce = ce_scale × p with p the reranker's relevance
// probability (BGE-Reranker-v2-M3 through /rerank returns sigmoid scores in
// [0,1]) and ce_scale = 10 by default, because it is the only order of
// magnitude under which the published constants are mutually consistent:
//   - a confident match alone (p ≈ 0.9, s_ce ≈ 9) clears τ = 8 and a weak one
//     (p < 0.7) needs routing support — with p unscaled (≤ 1) no candidate
//     could ever reach τ without a topic anchor, so every anchor-free input
//     would start a new root;
//   - the topic penalty −6.0 can veto even a confident cross-encoder match
//     (10 − 6 + 1 < 8), and a full topic match (+8.0) is decisive yet still
//     needs some cross-encoder support to strictly exceed τ, which is what
//     "anchor-adjusted" routing should mean; on a raw-logit scale (±10 and
//     beyond) these adjustments would be swamped or inverted;
//   - keyword and recency bonuses (a few points at most) then act as the
//     tie-breakers the paper calls "auxiliary routing signals".
//
// The scale is configurable (arbormem.ce_scale).
package arbormem

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// Deps are the model clients and resources a System uses.
type Deps struct {
	// Chat runs the memory-write prompts; nil selects the rule-based
	// operations (the offline default).
	Chat llm.Client
	// Embed embeds nodes, facts and queries (required).
	Embed llm.Embedder
	// Rerank is the cross-encoder of localization (required).
	Rerank llm.Reranker
	// RerankInstruction wraps the localization query in the paper's fixed
	// relevance instruction (reranker_instruction) before reranking. Set it
	// for model rerankers; leave it off for the offline lexical reranker,
	// where the instruction's words would count as query terms that no
	// candidate contains and lower every score.
	RerankInstruction bool
	// Tokens counts evidence in answer-model tokens (required).
	Tokens tokens.Counter
	// Prompts holds the templates; nil uses prompt.Default().
	Prompts *prompt.Set
	// BranchMemEval enables the attribute-tag predictor for query-side fact
	// filtering, which the paper uses only on the BranchMemEval path
	// (appendix D, "BranchMemEval-Specific Query Processing").
	BranchMemEval bool
	// Routing selects the localization rules: RoutingPaper (the paper's
	// cascade only), RoutingHeuristic (the cascade plus the offline routing
	// rules: implicit continuation, return and new-topic cues), or "" for
	// heuristic routing exactly when the memory operations are rule-based.
	Routing string
	// Extractor, Auditor and TagPredictor override the operations chosen
	// from Chat and cfg.Extractors (tests, experiments).
	Extractor    Extractor
	Auditor      Auditor
	TagPredictor TagPredictor
}

// Routing modes (Deps.Routing).
const (
	RoutingPaper     = "paper"
	RoutingHeuristic = "heuristic"
)

// Metrics counts what happened inside a System; safe for concurrent reads.
type Metrics struct {
	Commits atomic.Int64
	// ModelCalls counts chat requests made by memory operations.
	ModelCalls atomic.Int64
	// Repaired counts replies that parsed only after the repair retry.
	Repaired atomic.Int64
	// BadReplies counts replies that failed even after the repair retry;
	// each fell back to the rule-based operation.
	BadReplies atomic.Int64
	// ModelErrors counts failed model calls (transport, server), which also
	// fall back to the rule-based operation.
	ModelErrors atomic.Int64
	// Superseded counts facts marked superseded by the collision audit.
	Superseded atomic.Int64
	// ReusedLocalizations counts commits that reused the localization
	// decided at the preceding Recall for the same user text.
	ReusedLocalizations atomic.Int64
}

// MetricsSnapshot is a plain copy of Metrics.
type MetricsSnapshot struct {
	Commits             int64 `json:"commits"`
	ModelCalls          int64 `json:"model_calls"`
	Repaired            int64 `json:"repaired"`
	BadReplies          int64 `json:"bad_replies"`
	ModelErrors         int64 `json:"model_errors"`
	Superseded          int64 `json:"superseded"`
	ReusedLocalizations int64 `json:"reused_localizations"`
}

// System is one ArborMem instance (one episode's memory).
type System struct {
	cfg   config.ArborMem
	deps  Deps
	ext   Extractor
	aud   Auditor
	tags  TagPredictor
	rules ruleOps

	metrics Metrics

	// commitMu serialises commits; mu guards the committed state: commits
	// take it for writing only while applying their results, recalls for
	// reading, so a recall never sees a half-applied commit.
	commitMu sync.Mutex
	mu       sync.RWMutex

	forest  *Forest
	store   *Store
	nodeVec *index.Exact
	nodeLex *index.BM25
	factVec *index.Exact
	recLex  *index.BM25
	// df counts, per analyzed term, the nodes whose keyword terms contain it
	// (the 40% rule of s_key).
	df map[string]int
	// entityIdx maps a normalised entity to the nodes that mention it.
	entityIdx map[string][]int
	// topicIdx maps a topic term to the nodes whose topic terms contain it.
	topicIdx map[string][]int
	// rootFacts lists fact IDs by the root of their source node.
	rootFacts map[int][]int
	// rootLatest is the most recent node of each tree.
	rootLatest map[int]int
	// nodeArtifacts lists artifact indexes by source node.
	nodeArtifacts map[int][]int
	// eventIdx maps an event term to the indexes of the events that have it.
	eventIdx map[string][]int

	cacheMu  sync.Mutex
	locCache map[string]*Decision // key: forest size + "\x00" + user text
	tagCache map[string][]string
	tokCache map[string]int
}

var (
	_ memory.System      = (*System)(nil)
	_ memory.Renderer    = (*System)(nil)
	_ memory.Placer      = (*System)(nil)
	_ memory.Snapshotter = (*System)(nil)
)

// New builds an empty ArborMem instance.
func New(cfg config.ArborMem, deps Deps) (*System, error) {
	if deps.Embed == nil {
		return nil, fmt.Errorf("arbormem: deps.Embed is required")
	}
	if deps.Rerank == nil {
		return nil, fmt.Errorf("arbormem: deps.Rerank is required")
	}
	if deps.Tokens == nil {
		return nil, fmt.Errorf("arbormem: deps.Tokens is required")
	}
	if err := validateConfig(cfg); err != nil {
		return nil, err
	}
	if deps.Routing != "" && deps.Routing != RoutingPaper && deps.Routing != RoutingHeuristic {
		return nil, fmt.Errorf("arbormem: routing %q: want %q, %q or empty", deps.Routing, RoutingPaper, RoutingHeuristic)
	}
	if deps.Prompts == nil {
		deps.Prompts = prompt.Default()
	}
	s := &System{cfg: cfg, deps: deps}
	var chat *chatOps
	switch cfg.Extractors {
	case "", "auto":
		if deps.Chat != nil {
			chat = &chatOps{client: deps.Chat, prompts: deps.Prompts, maxTokens: cfg.MemoryOpMaxTokens, metrics: &s.metrics}
		}
	case "chat":
		if deps.Chat == nil {
			return nil, fmt.Errorf("arbormem: extractors is \"chat\" but no chat model is configured")
		}
		chat = &chatOps{client: deps.Chat, prompts: deps.Prompts, maxTokens: cfg.MemoryOpMaxTokens, metrics: &s.metrics}
	case "heuristic":
	default:
		return nil, fmt.Errorf("arbormem: extractors %q: want auto, chat or heuristic", cfg.Extractors)
	}
	if chat != nil {
		for _, name := range []string{"node_metadata", "path_evolution", "atomic_fact_miner", "fact_collision_auditor_batch",
			"assistant_artifact_miner", "event_miner", "state_slot_miner", "attribute_tag_predictor"} {
			if _, err := deps.Prompts.Text(name); err != nil {
				return nil, fmt.Errorf("arbormem: %w", err)
			}
		}
		s.ext, s.aud, s.tags = chat, chat, chat
	} else {
		s.ext, s.aud, s.tags = s.rules, s.rules, s.rules
	}
	if deps.Extractor != nil {
		s.ext = deps.Extractor
	}
	if deps.Auditor != nil {
		s.aud = deps.Auditor
	}
	if deps.TagPredictor != nil {
		s.tags = deps.TagPredictor
	}
	s.reset()
	return s, nil
}

// reset makes the state empty.
func (s *System) reset() {
	s.forest = newForest()
	s.store = newStore()
	s.nodeVec = index.NewExact(s.deps.Embed.Dim())
	s.nodeLex = index.NewBM25()
	s.factVec = index.NewExact(s.deps.Embed.Dim())
	s.recLex = index.NewBM25()
	s.df = map[string]int{}
	s.entityIdx = map[string][]int{}
	s.topicIdx = map[string][]int{}
	s.rootFacts = map[int][]int{}
	s.rootLatest = map[int]int{}
	s.nodeArtifacts = map[int][]int{}
	s.eventIdx = map[string][]int{}
	s.locCache = map[string]*Decision{}
	s.tagCache = map[string][]string{}
	s.tokCache = map[string]int{}
}

func validateConfig(c config.ArborMem) error {
	switch {
	case c.SemanticCandidates < 0, c.TopicCandidates < 0, c.KeywordCandidates < 0:
		return fmt.Errorf("arbormem: candidate counts must be >= 0 (semantic %d, topic %d, keyword %d)", c.SemanticCandidates, c.TopicCandidates, c.KeywordCandidates)
	case c.KeywordMaxDF <= 0 || c.KeywordMaxDF > 1:
		return fmt.Errorf("arbormem: keyword_max_df %v: want a share in (0,1]", c.KeywordMaxDF)
	case c.RawTail < 0:
		return fmt.Errorf("arbormem: raw_tail %d: want >= 0", c.RawTail)
	case c.BranchBudget < 0, c.SupplementalBudget < 0:
		return fmt.Errorf("arbormem: branch_budget %d and supplemental_budget %d must be >= 0", c.BranchBudget, c.SupplementalBudget)
	case c.MaxFacts < 0:
		return fmt.Errorf("arbormem: max_facts %d: want >= 0", c.MaxFacts)
	case c.CEScale <= 0:
		return fmt.Errorf("arbormem: ce_scale %v: want > 0", c.CEScale)
	}
	return nil
}

// Config returns the configuration the system was built with.
func (s *System) Config() config.ArborMem { return s.cfg }

// Heuristic reports whether the memory-write operations are rule-based
// (the offline default); results made so are labelled heuristic.
func (s *System) Heuristic() bool { return s.ext.Heuristic() }

// Label names the system for tables: "arbormem" or "arbormem (heuristic
// memory ops)".
func (s *System) Label() string {
	if s.Heuristic() {
		return "arbormem (heuristic memory ops)"
	}
	return "arbormem"
}

// Metrics returns a snapshot of the system's counters.
func (s *System) Metrics() MetricsSnapshot {
	m := &s.metrics
	return MetricsSnapshot{Commits: m.Commits.Load(), ModelCalls: m.ModelCalls.Load(), Repaired: m.Repaired.Load(),
		BadReplies: m.BadReplies.Load(), ModelErrors: m.ModelErrors.Load(), Superseded: m.Superseded.Load(),
		ReusedLocalizations: m.ReusedLocalizations.Load()}
}

// Forest returns the committed forest. Callers must not modify it, nor read
// it while a Commit may run.
func (s *System) Forest() *Forest { return s.forest }

// Store returns the committed evidence store, with the same caveats as Forest.
func (s *System) Store() *Store { return s.store }

// ParentOf implements memory.Placer: the parent chosen when interaction id
// was committed ("" for a new root).
func (s *System) ParentOf(id string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.forest.Lookup(id)
	if !ok {
		return "", false
	}
	if n.Parent < 0 {
		return "", true
	}
	return s.forest.Nodes[n.Parent].ID(), true
}

// count counts tokens of text, caching texts rendered at recall time.
func (s *System) count(text string) int {
	s.cacheMu.Lock()
	n, ok := s.tokCache[text]
	s.cacheMu.Unlock()
	if ok {
		return n
	}
	n = s.deps.Tokens.Count(text)
	s.cacheMu.Lock()
	if len(s.tokCache) > 1<<16 {
		s.tokCache = map[string]int{}
	}
	s.tokCache[text] = n
	s.cacheMu.Unlock()
	return n
}
