package arbormem

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/arbor-eval/arbor/pkg/dialog"
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

// isBadReply reports whether err is a BadReplyError.
func isBadReply(err error) bool {
	var b *BadReplyError
	return errors.As(err, &b)
}

// Output limits of the memory-write prompts (appendix D): the chat-backed
// operations enforce them on the model's reply, the rules produce within them.
const (
	maxSummaryWords  = 50  // node_metadata: "max 50 words"
	maxArtifacts     = 8   // assistant_artifact_miner: "at most 8 items"
	maxArtifactItem  = 120 // "item_text must be under 120 characters"
	maxArtifactEvid  = 80  // "evidence_text under 80 characters"
	maxEvents        = 8   // event_miner: "at most 8 events"
	maxEventField    = 180 // "Each string field must be under 180 characters"
	maxStates        = 6   // state_slot_miner: "at most 6 slots"
	maxStateField    = 180 // "Each string field must be under 180 characters"
	maxFactsPerTurn  = 12  // ours: bounds a runaway fact list
	maxEntities      = 16  // ours: bounds a runaway entity list
	maxPathSummary   = 480 // ours: characters of a path summary kept
	maxPredictedTags = 3   // attribute_tag_predictor: "1-3 most relevant"
)

// artifactTypes is the artifact_type vocabulary of assistant_artifact_miner.
var artifactTypes = toSet("recommendation list_item link generated_text recipe step title other")

// under clips s to strictly fewer than n runes.
func under(s string, n int) string { return clipRunes(oneLine(s), n-1) }

// sanitizeMeta applies node_metadata's limits.
func sanitizeMeta(m NodeMeta) NodeMeta {
	m.Summary = clipWords(oneLine(m.Summary), maxSummaryWords)
	m.Entities = cleanList(m.Entities, maxEntities, 80)
	return m
}

func cleanList(in []string, max, maxLen int) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		s = under(s, maxLen+1)
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

func sanitizeFacts(fs []FactDraft) []FactDraft {
	var out []FactDraft
	for _, f := range fs {
		f.Fact = under(f.Fact, 400)
		if f.Fact == "" {
			continue
		}
		f.Tag = normalizeTag(f.Tag)
		f.Entities = cleanList(f.Entities, 8, 80)
		out = append(out, f)
		if len(out) == maxFactsPerTurn {
			break
		}
	}
	return out
}

func sanitizeArtifacts(as []Artifact) []Artifact {
	var out []Artifact
	for _, a := range as {
		a.Item = under(a.Item, maxArtifactItem)
		if a.Item == "" {
			continue
		}
		a.Type = strings.ToLower(strings.TrimSpace(a.Type))
		if !artifactTypes[a.Type] {
			a.Type = "other"
		}
		a.Topic = under(a.Topic, maxArtifactItem)
		a.Evidence = under(a.Evidence, maxArtifactEvid)
		if a.Ordinal < 0 {
			a.Ordinal = 0
		}
		a.Entities = cleanList(a.Entities, 8, 80)
		out = append(out, a)
		if len(out) == maxArtifacts {
			break
		}
	}
	return out
}

func sanitizeEvents(es []Event) []Event {
	var out []Event
	for _, e := range es {
		for _, p := range []*string{&e.Type, &e.Subject, &e.Object, &e.Value, &e.Unit, &e.CanonicalAction, &e.CanonicalObject, &e.DateText, &e.NormalizedDate, &e.Evidence} {
			*p = under(*p, maxEventField)
		}
		e.CanonicalAction = strings.ToLower(e.CanonicalAction)
		e.CanonicalObject = strings.ToLower(e.CanonicalObject)
		if e.Object == "" && e.CanonicalObject == "" && e.Value == "" {
			continue
		}
		if e.Subject == "" {
			e.Subject = "User"
		}
		e.NormalizedDate = normalizeDate(e.NormalizedDate)
		e.Entities = cleanList(e.Entities, 8, maxEventField)
		out = append(out, e)
		if len(out) == maxEvents {
			break
		}
	}
	return out
}

func sanitizeStates(ss []State) []State {
	var out []State
	for _, s := range ss {
		s.Key = snakeKey(s.Key)
		s.Value = under(s.Value, maxStateField)
		s.Evidence = under(s.Evidence, maxStateField)
		if s.Key == "" || s.Value == "" {
			continue
		}
		s.Tag = normalizeTag(s.Tag)
		s.Entities = cleanList(s.Entities, 8, maxStateField)
		out = append(out, s)
		if len(out) == maxStates {
			break
		}
	}
	return out
}

// snakeKey normalises a slot key to lower_snake_case.
func snakeKey(k string) string {
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
