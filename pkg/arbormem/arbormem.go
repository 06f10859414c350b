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
// paper's prompts, pkg/prompt/templates) and a rule-based one
// (pkg/arbormem/rules), behind the contract of pkg/arbormem/ops, so the
// system runs offline; System.Heuristic says which is in use.
//
// # Reading the method against the paper
//
// The files follow the paper, each opening with the section it implements:
// forest.go and store.go (§3.1, the memory state), localize.go (§4.2),
// assemble.go, assemble_records.go and assemble_render.go (§4.3 and
// appendix D's runtime assembly), commit.go and commit_prefetch.go (§4.4),
// ops.go and ops_chat.go (appendix D's memory operations), variants.go
// (appendix C.3) and snapshot.go (saved state, FORMAT.md). What the offline
// default adds to the method is the offline profile, offline*.go: its
// switches are resolved in one place (offline) and, left at "auto", are all
// off on the model path (a switch set to "on" applies there too).
//
// # The scale of s_ce
//
// The paper adds the cross-encoder score to routing adjustments of fixed
// size (keyword 1.0 + 0.5 per overlap, recency ≤ 1.0, topic +8.0 × match or
// −6.0) and compares the sum with τ = 8.0, without stating the scale of s_ce.
// Its reranker instruction is FlagEmbedding's, and FlagEmbedding's
// compute_score returns the raw logit unless asked to normalise
// (FlagOpen/FlagEmbedding, FlagEmbedding/inference/reranker/encoder_only/
// base.py, compute_score_single_gpu: `normalize=False` by default, sigmoid
// only when normalize is set). So by default s_ce is the reranker's logit
// (arbormem.ce_score: logit): TEI is asked for raw scores, and a probability
// (vLLM's relevance_score is the sigmoid of the logit) is inverted, clamped
// to ±13.8. ce_score: scaled keeps arbor's earlier reading, ce_scale × p.
// The offline lexical reranker returns a probability-like score that is no
// logit; ce_score: auto (the default) uses scaled for it and logit for a
// model reranker. docs/FIDELITY.md lists the choice.
package arbormem

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
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
	// ModelReranker is set when Rerank is a real cross-encoder (not the
	// offline lexical stand-in); it resolves the "auto" settings of
	// ce_score and rerank_instruction.
	ModelReranker bool
	// RerankLogits is set when Rerank returns raw logits (TEI asked for raw
	// scores) rather than probabilities.
	RerankLogits bool
	// Tokens counts evidence in answer-model tokens (required).
	Tokens tokens.Counter
	// Prompts holds the templates; nil uses prompt.Default().
	Prompts *prompt.Set
	// BranchMemEval enables the attribute-tag predictor for query-side fact
	// filtering, which the paper uses only on the BranchMemEval path
	// (appendix D, "BranchMemEval-Specific Query Processing").
	BranchMemEval bool
	// Routing overrides arbormem.routing when set: RoutingPaper (the paper's
	// cascade only) or RoutingHeuristic (the cascade plus the offline routing
	// rules: implicit continuation, return and new-topic cues).
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
	// fall back to the rule-based operation, and failed embed/rerank calls
	// that left an interaction with degraded indexing.
	ModelErrors atomic.Int64
	// Fallbacks counts memory operations answered by the rule-based
	// implementation after their model call failed or its reply could not
	// be parsed.
	Fallbacks atomic.Int64
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
	Fallbacks           int64 `json:"fallbacks"`
	Superseded          int64 `json:"superseded"`
	ReusedLocalizations int64 `json:"reused_localizations"`
}

// Add adds o's counters to m (sums over episodes).
func (m *MetricsSnapshot) Add(o MetricsSnapshot) {
	m.Commits += o.Commits
	m.ModelCalls += o.ModelCalls
	m.Repaired += o.Repaired
	m.BadReplies += o.BadReplies
	m.ModelErrors += o.ModelErrors
	m.Fallbacks += o.Fallbacks
	m.Superseded += o.Superseded
	m.ReusedLocalizations += o.ReusedLocalizations
}

// System is one ArborMem instance (one episode's memory).
type System struct {
	cfg   config.ArborMem
	deps  Deps
	ext   Extractor
	aud   Auditor
	tags  TagPredictor
	rules rules.Ops

	metrics Metrics

	// prefetched holds the rounds 1 that Prefetch started for coming commits.
	prefetchMu sync.Mutex
	prefetched []*round1

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
	// recVec indexes structured records by their embedding, keyed by
	// position in store.records (a record whose embedding failed has
	// none); offline it keeps them as given (see reset); recByEntity
	// lists the records by entity term.
	recVec      *index.Exact
	recByEntity map[string][]int
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
	// rootTerms counts, per tree and content word of its interactions,
	// the tree's nodes that say it, and termNodes all nodes that do: the
	// offline routing's content match (offline_content.go), kept only when
	// one of its rules is on.
	rootTerms map[int]map[string]int
	termNodes map[string]int
	// termRoots lists, per content word, the trees that say it (the keys
	// of rootTerms holding it), so a match reads its holders directly.
	termRoots map[string][]int
	// nodeArtifacts lists artifact indexes by source node.
	nodeArtifacts map[int][]int
	// eventIdx maps an event term to the indexes of the events that have it.
	eventIdx map[string][]int

	cacheMu  sync.Mutex
	locCache map[string]*Decision // key: forest size + "\x00" + user text
	tagCache map[string][]string
	tokCache map[string]int
	// turnTerms caches the analysed terms of each turn of a node, for the
	// supplemental channel.
	turnTerms map[int][]termList

	// vocab numbers the terms that nodes, facts and turns keep: each
	// distinct term is stored once per episode, not once per use.
	vocab *vocab
}

var (
	_ memory.System         = (*System)(nil)
	_ memory.Renderer       = (*System)(nil)
	_ memory.Placer         = (*System)(nil)
	_ memory.Snapshotter    = (*System)(nil)
	_ memory.HealthReporter = (*System)(nil)
)

// Health implements memory.HealthReporter from the system's metrics.
func (s *System) Health() memory.Health {
	m := &s.metrics
	return memory.Health{Fallbacks: int(m.Fallbacks.Load()), ModelErrors: int(m.ModelErrors.Load()),
		BadReplies: int(m.BadReplies.Load()), Repaired: int(m.Repaired.Load())}
}

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
	if deps.Routing == "" && cfg.Routing != "" && cfg.Routing != "auto" {
		deps.Routing = cfg.Routing
	}
	if deps.Prompts == nil {
		deps.Prompts = prompt.Default()
	}
	lim := ops.Limits{FactsPerTurn: cfg.MaxFactsPerTurn, Entities: cfg.MaxEntities, PathSummary: cfg.PathSummaryChars}
	s := &System{cfg: cfg, deps: deps, rules: rules.Ops{Limits: lim}}
	var chat *chatOps
	switch cfg.Extractors {
	case "", "auto":
		if deps.Chat != nil {
			chat = &chatOps{client: deps.Chat, prompts: deps.Prompts, maxTokens: cfg.MemoryOpMaxTokens, metrics: &s.metrics, limits: lim}
		}
	case "chat":
		if deps.Chat == nil {
			return nil, fmt.Errorf("arbormem: extractors is \"chat\" but no chat model is configured")
		}
		chat = &chatOps{client: deps.Chat, prompts: deps.Prompts, maxTokens: cfg.MemoryOpMaxTokens, metrics: &s.metrics, limits: lim}
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

// vectorOptions resolves arbormem.vector_storage and vector_search into
// the dense channels' index options. Storage "auto" is int8 exactly with
// model memory operations, so that the offline default stores as it
// always has.
func (s *System) vectorOptions() index.Options {
	o := index.Options{Probe: s.cfg.IVFProbe, Rerank: s.cfg.VectorRerank}
	o.Storage, _ = VectorStorages(s.cfg, s.Heuristic())
	switch s.cfg.VectorSearch {
	case "ivf":
		o.Search = index.IVF
	case "binary":
		o.Search = index.Binary
	}
	return o
}

// reset makes the state empty.
func (s *System) reset() {
	s.forest = newForest()
	s.store = newStore()
	dim := s.deps.Embed.Dim()
	// One copy of each vector. A record's entity match takes the float64
	// cosine of its stored float32 row (index.Exact.Cosines; quantised
	// rows give their search score). With rule-based memory operations
	// (the offline profile) the record index keeps each vector as given,
	// so that cosine is the one the offline default has always taken, bit
	// for bit; a dense row stored so has its unit row rebuilt at each
	// search (index.Options.KeepRaw), which offline vectors, stored
	// sparse, rarely need. On the model path the stored row is the unit
	// row, searched without rebuilding, whose cosine is within float32
	// rounding of the given vector's (docs/FIDELITY.md, vector_storage).
	o := s.vectorOptions()
	s.nodeVec = index.NewExactWith(dim, o)
	fo := o
	_, fo.Storage = VectorStorages(s.cfg, s.Heuristic())
	s.factVec = index.NewExactWith(dim, fo)
	o.KeepRaw = s.Heuristic()
	s.recVec = index.NewExactWith(dim, o)
	s.nodeLex = index.NewBM25()
	s.recByEntity = map[string][]int{}
	s.df = map[string]int{}
	s.entityIdx = map[string][]int{}
	s.topicIdx = map[string][]int{}
	s.rootFacts = map[int][]int{}
	s.rootLatest = map[int]int{}
	s.rootTerms = map[int]map[string]int{}
	s.termNodes = map[string]int{}
	s.termRoots = map[string][]int{}
	s.nodeArtifacts = map[int][]int{}
	s.eventIdx = map[string][]int{}
	s.locCache = map[string]*Decision{}
	s.tagCache = map[string][]string{}
	s.tokCache = map[string]int{}
	s.turnTerms = map[int][]termList{}
	s.vocab = newVocab()
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
	case !oneOf(c.CEScore, "", "auto", CELogit, CEScaled):
		return fmt.Errorf("arbormem: ce_score %q: want auto, %s or %s", c.CEScore, CELogit, CEScaled)
	case !oneOf(c.RerankInstruction, "", "auto", "prefix", "off"):
		return fmt.Errorf("arbormem: rerank_instruction %q: want auto, prefix or off", c.RerankInstruction)
	case !oneOf(c.Routing, "", "auto", RoutingPaper, RoutingHeuristic):
		return fmt.Errorf("arbormem: routing %q: want auto, %s or %s", c.Routing, RoutingPaper, RoutingHeuristic)
	case !(c.EvidenceReserve >= 0 && c.EvidenceReserve < 1):
		return fmt.Errorf("arbormem: evidence_reserve %v: want a share in [0,1)", c.EvidenceReserve)
	case !oneOf(c.VectorSearch, "", "exact", "ivf", "binary"):
		return fmt.Errorf("arbormem: vector_search %q: want exact, ivf or binary", c.VectorSearch)
	case c.VectorSearch == "ivf" && c.IVFProbe <= 0:
		return fmt.Errorf("arbormem: ivf_probe %d: want > 0 with vector_search ivf", c.IVFProbe)
	case c.VectorSearch == "binary" && c.VectorRerank <= 0:
		return fmt.Errorf("arbormem: vector_rerank %d: want > 0 with vector_search binary", c.VectorRerank)
	case !oneOf(c.VectorStorage, "", "auto", "float32", "int8", "int4"):
		return fmt.Errorf("arbormem: vector_storage %q: want auto, float32, int8 or int4", c.VectorStorage)
	case !oneOf(c.FactVectorStorage, "", "auto", "float32", "int8", "int4"):
		return fmt.Errorf("arbormem: fact_vector_storage %q: want auto, float32, int8 or int4", c.FactVectorStorage)
	case c.MaxFactsPerTurn < 0, c.MaxEntities < 0, c.PathSummaryChars < 0:
		return fmt.Errorf("arbormem: max_facts_per_turn %d, max_entities %d and path_summary_chars %d must be >= 0 (0: the default)", c.MaxFactsPerTurn, c.MaxEntities, c.PathSummaryChars)
	case c.RecordCandidates < 0, c.MaxRecordLines < 0:
		return fmt.Errorf("arbormem: record_candidates %d and max_record_lines %d must be >= 0", c.RecordCandidates, c.MaxRecordLines)
	case !(c.RecencyScale > 0):
		return fmt.Errorf("arbormem: recency_scale %v: want > 0", c.RecencyScale)
	case c.CountSourceLines < 0, c.TopicSlotFacts < 0, c.BridgeFacts < 0:
		return fmt.Errorf("arbormem: count_source_lines %d, topic_slot_facts %d and bridge_facts %d must be >= 0", c.CountSourceLines, c.TopicSlotFacts, c.BridgeFacts)
	case !oneOf(c.SupplementalFill, "", "auto", "on", "off"):
		return fmt.Errorf("arbormem: supplemental_fill %q: want auto, on or off", c.SupplementalFill)
	case !oneOf(c.AnchorTrigger, "", AnchorAny, AnchorTopic, AnchorExplicit, "off"):
		return fmt.Errorf("arbormem: anchor_trigger %q: want %s, %s, %s or off", c.AnchorTrigger, AnchorTopic, AnchorAny, AnchorExplicit)
	case c.AnchorFactMinSim < 0 || c.AnchorFactMinSim > 1:
		return fmt.Errorf("arbormem: anchor_fact_min_sim %v: want a cosine in [0,1]", c.AnchorFactMinSim)
	case !(c.SupplementalWindowShare >= 0 && c.SupplementalWindowShare <= 1):
		return fmt.Errorf("arbormem: supplemental_window_share %v: want a share in [0,1]", c.SupplementalWindowShare)
	case !(c.SupplementalWholeShare >= 0 && c.SupplementalWholeShare <= 1):
		return fmt.Errorf("arbormem: supplemental_whole_share %v: want a share in [0,1]", c.SupplementalWholeShare)
	case !oneOf(c.ShiftMarkers, "", "auto", "on", "off"):
		return fmt.Errorf("arbormem: shift_markers %q: want auto, on or off", c.ShiftMarkers)
	case !oneOf(c.ContentReturns, "", "auto", "on", "off"):
		return fmt.Errorf("arbormem: content_returns %q: want auto, on or off", c.ContentReturns)
	case !oneOf(c.LabelReturns, "", "auto", "on", "off"):
		return fmt.Errorf("arbormem: label_returns %q: want auto, on or off", c.LabelReturns)
	case !oneOf(c.NovelShift, "", "auto", "on", "off"):
		return fmt.Errorf("arbormem: novel_shift %q: want auto, on or off", c.NovelShift)
	case c.EmbedMaxChars < 0:
		return fmt.Errorf("arbormem: embed_max_chars %d: want >= 0", c.EmbedMaxChars)
	}
	return nil
}

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// Values of arbormem.ce_score.
const (
	CELogit  = "logit"
	CEScaled = "scaled"
)

// ceMode resolves arbormem.ce_score: "auto" is the logit for a model
// reranker and the scaled probability for the offline lexical one.
func (s *System) ceMode() string {
	switch s.cfg.CEScore {
	case CELogit, CEScaled:
		return s.cfg.CEScore
	}
	if s.deps.ModelReranker {
		return CELogit
	}
	return CEScaled
}

// rerankInstruction resolves arbormem.rerank_instruction: "auto" prefixes
// the instruction for a model reranker only; for the offline lexical
// reranker the instruction's words would count as query terms no candidate
// contains and lower every score.
func (s *System) rerankInstruction() bool {
	switch s.cfg.RerankInstruction {
	case "prefix":
		return true
	case "off":
		return false
	}
	return s.deps.ModelReranker
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
		BadReplies: m.BadReplies.Load(), ModelErrors: m.ModelErrors.Load(), Fallbacks: m.Fallbacks.Load(), Superseded: m.Superseded.Load(),
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

// countCtx counts tokens of text, caching texts rendered at recall time;
// a remote counter's calls carry the caller's context (usage accounting).
func (s *System) countCtx(ctx context.Context, text string) int {
	s.cacheMu.Lock()
	n, ok := s.tokCache[text]
	s.cacheMu.Unlock()
	if ok {
		return n
	}
	n = tokens.CountContext(ctx, s.deps.Tokens, text)
	s.cacheMu.Lock()
	if len(s.tokCache) > 1<<16 {
		s.tokCache = map[string]int{}
	}
	s.tokCache[text] = n
	s.cacheMu.Unlock()
	return n
}
