package arbormem

// Paper appendix D, the memory operations: their contract (interfaces,
// output schemas and limits) is pkg/arbormem/ops, below both
// implementations: the paper's prompts through a chat model (ops_chat.go)
// and the offline rules (pkg/arbormem/rules).

import "github.com/arbor-eval/arbor/pkg/arbormem/ops"

// The memory operations' contract lives in pkg/arbormem/ops, below both
// their implementations (chat-backed here, rule-based in
// pkg/arbormem/rules); the store keeps their outputs as its records.
type (
	NodeMeta      = ops.NodeMeta
	FactDraft     = ops.FactDraft
	Extractor     = ops.Extractor
	AuditPair     = ops.AuditPair
	Auditor       = ops.Auditor
	TagPredictor  = ops.TagPredictor
	BadReplyError = ops.BadReplyError
	Provenance    = ops.Provenance
	Artifact      = ops.Artifact
	Event         = ops.Event
	State         = ops.State
)
