// Package memory defines the seam every memory system meets at: commit an
// interaction, recall an evidence bundle for a query under a token budget.
package memory

import (
	"context"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
)

// System is one isolated memory instance (one benchmark episode).
// Implementations must keep Recall free of side effects on committed state so
// that one ingestion can be recalled at many budgets (read-budget sweep).
type System interface {
	// Commit adds a completed interaction; it becomes readable from the next
	// Recall on (paper §4.4, the causal boundary).
	Commit(ctx context.Context, in dialog.Interaction) error
	// Recall returns the evidence bundle E_t for q; the bundle's token total
	// never exceeds q.Budget and a zero budget yields an empty bundle.
	Recall(ctx context.Context, q Query) (Bundle, error)
}

// Factory makes a fresh, empty System for one episode.
type Factory func(ctx context.Context, episodeID string) (System, error)

// Query is what a system is asked at answer time.
type Query struct {
	ID   string    `json:"id"`
	Text string    `json:"text"`
	Time time.Time `json:"time"`
	// Budget is the answer-time evidence budget in answer-model tokens.
	Budget int `json:"budget"`
	// Variant names a recall-only variant (an ablation that changes nothing at
	// commit time); systems that do not know it return an error.
	Variant string `json:"variant,omitempty"`
	// Benchmark names the benchmark the question comes from; answer prompts
	// carry its answer directives (prompt.Set.Directives). Recall ignores it.
	Benchmark string `json:"benchmark,omitempty"`
}

// Channel is which memory channel of E_t an item belongs to (paper eq. 3).
type Channel string

// The channels of the evidence bundle.
const (
	ChannelLocal   Channel = "local"  // branch-local context, or chronological history for baselines
	ChannelTurn    Channel = "turn"   // supplemental raw turns or retrieved units
	ChannelFact    Channel = "fact"   // atomic facts
	ChannelRecord  Channel = "record" // structured records (artifacts, events, states, ...)
	ChannelSummary Channel = "summary"
)

// Item is one piece of evidence.
type Item struct {
	Channel Channel `json:"channel"`
	// Block is the evidence block the item is rendered in
	// ("ConversationHistory", "ArtifactEvidence", ...); empty for the default.
	Block string `json:"block,omitempty"`
	Text  string `json:"text"`
	// Sources are the IDs of the interactions the item came from.
	Sources []string  `json:"sources"`
	Time    time.Time `json:"time"`
	// Tokens is Text's length by the configured tokens.Counter.
	Tokens int `json:"tokens"`
}

// Bundle is the evidence handed to the answer model.
type Bundle struct {
	Items []Item `json:"items"`
	// Trace carries system-specific diagnostics (ArborMem: chosen parent and
	// candidate scores); never shown to the answer model.
	Trace *Trace `json:"trace,omitempty"`
}

// Tokens is the bundle's total token count.
func (b Bundle) Tokens() int {
	n := 0
	for _, it := range b.Items {
		n += it.Tokens
	}
	return n
}

// Sources returns the set of interaction IDs cited by any item.
func (b Bundle) Sources() map[string]bool {
	s := map[string]bool{}
	for _, it := range b.Items {
		for _, id := range it.Sources {
			s[id] = true
		}
	}
	return s
}

// Trace records how a system built a bundle, for `arbor explain` and for
// localization accuracy.
type Trace struct {
	// Parent is the interaction ID of the node the query was localized to;
	// empty when a new root was chosen or the system does not localize.
	Parent string `json:"parent,omitempty"`
	// Localized is true when the system made a localization decision at all.
	Localized bool   `json:"localized"`
	Path      string `json:"path,omitempty"` // which cascade step decided: continuation, temporal, scored
	// Rules name, in order, every rule that made or changed the decision
	// (the cascade step, τ, each offline routing rule that applied).
	Rules      []string    `json:"rules,omitempty"`
	Candidates []Candidate `json:"candidates,omitempty"`
	// Channels is the token count each channel filled.
	Channels map[Channel]int `json:"channels,omitempty"`
}

// Candidate is one scored localization candidate.
type Candidate struct {
	Node  string  `json:"node"`
	Score float64 `json:"score"`
	// Raw is the reranker's score as returned (a probability, or a logit
	// from a server asked for raw scores) and Prob its probability; CE is
	// the s_ce used in Score.
	Raw   float64 `json:"raw"`
	Prob  float64 `json:"prob"`
	CE    float64 `json:"ce"`
	Key   float64 `json:"key"`
	Rec   float64 `json:"rec"`
	Topic float64 `json:"topic"`
}

// Renderer is implemented by systems that lay out their own answer messages
// (ArborMem's runtime assembly, paper appendix D); the rest use the shared
// answer template.
type Renderer interface {
	Render(q Query, b Bundle) ([]llm.Message, error)
}

// Placer is implemented by systems that place committed interactions in a
// structure (ArborMem's forest); used for localization accuracy.
type Placer interface {
	// ParentOf returns the parent interaction ID chosen when id was committed;
	// "" with ok=true means a new root.
	ParentOf(id string) (parent string, ok bool)
}

// Sealer is implemented by systems that do work once the dialogue before a
// question has ended (the summary baseline summarises the session still
// open). Runners call Seal after the interactions that precede a question,
// as part of ingestion, so that the work is not timed as query preparation;
// a system must give the same bundle whether or not Seal was called.
type Sealer interface {
	Seal(ctx context.Context) error
}

// Seal calls sys.Seal when sys is a Sealer.
func Seal(ctx context.Context, sys System) error {
	if s, ok := sys.(Sealer); ok {
		return s.Seal(ctx)
	}
	return nil
}

// Snapshotter is implemented by systems whose state can be saved and loaded.
type Snapshotter interface {
	Save(ctx context.Context, path string) error
	Load(ctx context.Context, path string) error
}

// Evidence block names (paper appendix D, "Prompt Usage and Runtime
// Assembly"): the contract between a system that fills a block (ArborMem)
// and whatever reads the rendered evidence (the answer model's prompts, the
// offline extractive answerer). Item.Block holds one of them, or "" for a
// system's default layout.
const (
	BlockHistory      = "ConversationHistory"
	BlockSupplemental = "SupplementalEvidence"
	BlockFacts        = "DATA CONTEXT"
	BlockUpdate       = "UpdateEvidence"
	BlockComputation  = "EventComputationEvidence"
	BlockTopicSlot    = "TopicSlotEvidence"
	BlockArtifact     = "ArtifactEvidence"
	BlockEvent        = "EventEvidence"
	BlockCountSource  = "CountSourceEvidence"
	BlockState        = "StateEvidence"
	BlockPreference   = "PreferenceEvidence"
	BlockBridge       = "BridgeEvidence"
)

// Health counts memory operations that did not go as the model-backed path
// intends, for the run's degraded counts (a memory that silently fell back
// to rules must say so).
type Health struct {
	// Fallbacks counts operations answered by a rule-based fallback.
	Fallbacks int
	// ModelErrors counts failed model calls (transport, server).
	ModelErrors int
	// BadReplies counts replies unparseable even after a repair retry.
	BadReplies int
	// Repaired counts replies that parsed only after a repair retry.
	Repaired int
}

// Prefetcher is implemented by systems that can start the part of a commit
// that needs only the interaction before the previous commit has ended. A
// runner that knows which interaction it commits next passes it to
// Prefetch before committing the current one; results must not change.
type Prefetcher interface {
	Prefetch(ctx context.Context, in dialog.Interaction)
}

// HealthReporter is implemented by systems that count their degraded
// operations.
type HealthReporter interface {
	Health() Health
}
