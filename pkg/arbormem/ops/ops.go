package ops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/text"
)

// The model-backed operations of ArborMem come in three families, each an
// interface with a chat-backed implementation (the paper's prompts,
// appendix D) and a rule-based one (the offline default, labelled
// heuristic):
//
//   - Extractor: post-generation memory writes (node_metadata,
//     path_evolution, atomic_fact_miner, assistant_artifact_miner,
//     event_miner, state_slot_miner);
//   - Auditor: fact_collision_auditor_batch;
//   - TagPredictor: attribute_tag_predictor (BranchMemEval path only).

// NodeMeta is node_metadata's output: a compact summary and recall anchors.
type NodeMeta struct {
	Summary  string   `json:"summary"`
	Entities []string `json:"entities"`
}

// FactDraft is atomic_fact_miner's output for one fact.
type FactDraft struct {
	Fact     string   `json:"fact"`
	Tag      string   `json:"attribute_tag"`
	Entities []string `json:"entities"`
}

// Extractor runs the post-generation memory-write operations for one
// completed interaction. Records carry no provenance: the manager adds it.
type Extractor interface {
	// Name labels the implementation ("chat", "heuristic").
	Name() string
	// Heuristic reports whether results come from rules rather than a model.
	Heuristic() bool
	NodeMetadata(ctx context.Context, in dialog.Interaction) (NodeMeta, error)
	// PathSummary updates the branch mission summary from the parent's path
	// summary ("" for a new root) and the current node's metadata.
	PathSummary(ctx context.Context, prev string, cur NodeMeta, in dialog.Interaction) (string, error)
	Facts(ctx context.Context, in dialog.Interaction) ([]FactDraft, error)
	Artifacts(ctx context.Context, in dialog.Interaction) ([]Artifact, error)
	Events(ctx context.Context, in dialog.Interaction) ([]Event, error)
	States(ctx context.Context, in dialog.Interaction) ([]State, error)
}

// AuditPair is one OLD/NEW pair from the same attribute slot: two facts,
// or two values of one mutable-state key ("home_city: Porto") for the
// revision check of appendix A ("When a newly extracted fact or mutable
// state refers to an existing attribute, a revision check determines
// whether the records can coexist").
type AuditPair struct {
	ID  string `json:"pair_id"`
	Tag string `json:"attribute_tag"`
	Old string `json:"old_fact"`
	New string `json:"new_fact"`
	// State marks a mutable-state pair (not sent to the model).
	State bool `json:"-"`
}

// Auditor judges fact pairs in one batch; true means CONFLICT (the old fact
// is superseded), false INDEPENDENT.
type Auditor interface {
	Name() string
	Heuristic() bool
	Audit(ctx context.Context, pairs []AuditPair) ([]bool, error)
}

// TagPredictor predicts the 1–3 ontology tags a question is about, for
// query-side fact filtering on the BranchMemEval path (appendix D).
type TagPredictor interface {
	Name() string
	Heuristic() bool
	PredictTags(ctx context.Context, query string) ([]string, error)
}

// BadReplyError is a model reply that could not be parsed even after the
// repair retry. Callers fall back to the rule-based operation so the
// interaction is never dropped, and count it in Metrics.BadReplies.
type BadReplyError struct {
	Op    string
	Reply string
	Err   error
}

// Error describes the failed operation and reply.
func (e *BadReplyError) Error() string {
	return fmt.Sprintf("%s: unparseable model reply after one repair retry: %v (reply %.60q)", e.Op, e.Err, e.Reply)
}

// Unwrap returns the parse error.
func (e *BadReplyError) Unwrap() error { return e.Err }

// IsBadReply reports whether err is a BadReplyError.
func IsBadReply(err error) bool {
	var b *BadReplyError
	return errors.As(err, &b)
}

// Output limits of the memory-write prompts (appendix D): the chat-backed
// operations enforce them on the model's reply, the rules produce within them.
const (
	MaxSummaryWords  = 50  // node_metadata: "max 50 words"
	MaxArtifacts     = 8   // assistant_artifact_miner: "at most 8 items"
	MaxArtifactItem  = 120 // "item_text must be under 120 characters"
	MaxArtifactEvid  = 80  // "evidence_text under 80 characters"
	MaxEvents        = 8   // event_miner: "at most 8 events"
	MaxEventField    = 180 // "Each string field must be under 180 characters"
	MaxStates        = 6   // state_slot_miner: "at most 6 slots"
	MaxStateField    = 180 // "Each string field must be under 180 characters"
	MaxFactsPerTurn  = 12  // ours, default of Limits.FactsPerTurn: bounds a runaway fact list
	MaxEntities      = 16  // ours, default of Limits.Entities: bounds a runaway entity list
	MaxPathSummary   = 480 // ours, default of Limits.PathSummary: characters of a path summary kept
	MaxPredictedTags = 3   // attribute_tag_predictor: "1-3 most relevant"
)

// Limits are the output caps the paper does not state, set by config keys
// (docs/FIDELITY.md): arbormem.max_facts_per_turn, arbormem.max_entities and
// arbormem.path_summary_chars. A zero field takes its default (MaxFactsPerTurn,
// MaxEntities, MaxPathSummary), so the zero Limits are the defaults.
type Limits struct {
	// FactsPerTurn bounds the facts kept from one interaction.
	FactsPerTurn int
	// Entities bounds the entities kept in a node's metadata.
	Entities int
	// PathSummary bounds a path summary, in characters.
	PathSummary int
}

func (l Limits) resolved() Limits {
	if l.FactsPerTurn <= 0 {
		l.FactsPerTurn = MaxFactsPerTurn
	}
	if l.Entities <= 0 {
		l.Entities = MaxEntities
	}
	if l.PathSummary <= 0 {
		l.PathSummary = MaxPathSummary
	}
	return l
}

// ClipPathSummary clips a path summary to l's character bound.
func (l Limits) ClipPathSummary(s string) string {
	return text.ClipRunes(s, l.resolved().PathSummary)
}

// artifactTypes is the artifact_type vocabulary of assistant_artifact_miner.
var artifactTypes = text.WordSet("recommendation list_item link generated_text recipe step title other")

// IsArtifactType reports whether t is of the artifact_type vocabulary.
func IsArtifactType(t string) bool { return artifactTypes[t] }

// Under clips s to strictly fewer than n runes.
func Under(s string, n int) string { return text.ClipRunes(text.OneLine(s), n-1) }

// SanitizeMeta applies node_metadata's limits, the entity cap of l.
func SanitizeMeta(m NodeMeta, l Limits) NodeMeta {
	m.Summary = text.ClipWords(text.OneLine(m.Summary), MaxSummaryWords)
	m.Entities = CleanList(m.Entities, l.resolved().Entities, 80)
	return m
}

func CleanList(in []string, max, maxLen int) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		s = Under(s, maxLen+1)
		k := strings.ToLower(s)
		if s == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
		if len(out) == max {
			break
		}
	}
	return out
}

// SanitizeFacts applies atomic_fact_miner's limits, the per-turn cap of l.
func SanitizeFacts(fs []FactDraft, l Limits) []FactDraft {
	limit := l.resolved().FactsPerTurn
	var out []FactDraft
	for _, f := range fs {
		f.Fact = Under(f.Fact, 400)
		if f.Fact == "" {
			continue
		}
		f.Tag = NormalizeTag(f.Tag)
		f.Entities = CleanList(f.Entities, 8, 80)
		out = append(out, f)
		if len(out) == limit {
			break
		}
	}
	return out
}

func SanitizeArtifacts(as []Artifact) []Artifact {
	var out []Artifact
	for _, a := range as {
		a.Item = Under(a.Item, MaxArtifactItem)
		if a.Item == "" {
			continue
		}
		a.Type = strings.ToLower(strings.TrimSpace(a.Type))
		if !artifactTypes[a.Type] {
			a.Type = "other"
		}
		a.Topic = Under(a.Topic, MaxArtifactItem)
		a.Evidence = Under(a.Evidence, MaxArtifactEvid)
		if a.Ordinal < 0 {
			a.Ordinal = 0
		}
		a.Entities = CleanList(a.Entities, 8, 80)
		out = append(out, a)
		if len(out) == MaxArtifacts {
			break
		}
	}
	return out
}

func SanitizeEvents(es []Event) []Event {
	var out []Event
	for _, e := range es {
		for _, p := range []*string{&e.Type, &e.Subject, &e.Object, &e.Value, &e.Unit, &e.CanonicalAction, &e.CanonicalObject, &e.DateText, &e.NormalizedDate, &e.Evidence} {
			*p = Under(*p, MaxEventField)
		}
		e.CanonicalAction = strings.ToLower(e.CanonicalAction)
		e.CanonicalObject = strings.ToLower(e.CanonicalObject)
		if e.Object == "" && e.CanonicalObject == "" && e.Value == "" {
			continue
		}
		if e.Subject == "" {
			e.Subject = "User"
		}
		e.NormalizedDate = NormalizeDate(e.NormalizedDate)
		e.Entities = CleanList(e.Entities, 8, MaxEventField)
		out = append(out, e)
		if len(out) == MaxEvents {
			break
		}
	}
	return out
}

func SanitizeStates(ss []State) []State {
	var out []State
	for _, s := range ss {
		s.Key = SnakeKey(s.Key)
		s.Value = Under(s.Value, MaxStateField)
		s.Evidence = Under(s.Evidence, MaxStateField)
		if s.Key == "" || s.Value == "" {
			continue
		}
		s.Tag = NormalizeTag(s.Tag)
		s.Entities = CleanList(s.Entities, 8, MaxStateField)
		out = append(out, s)
		if len(out) == MaxStates {
			break
		}
	}
	return out
}

// SnakeKey normalises a slot key to lower_snake_case.
func SnakeKey(k string) string {
	var b strings.Builder
	us := false
	for _, r := range strings.ToLower(strings.TrimSpace(k)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			us = false
		} else if !us && b.Len() > 0 {
			b.WriteByte('_')
			us = true
		}
	}
	s := strings.TrimSuffix(b.String(), "_")
	if strings.HasPrefix(s, "favourite_") {
		s = "favorite_" + strings.TrimPrefix(s, "favourite_")
	}
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}
