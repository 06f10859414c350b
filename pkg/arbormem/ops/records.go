package ops

import "time"

// Provenance is attached to every record by the memory manager at commit
// (appendix D, "Memory Output Schemas": provenance, timestamps, structural
// identifiers and revision links are not model output).
type Provenance struct {
	// Source is the interaction ID the record was extracted from.
	Source string `json:"source"`
	// Node is the source node's Seq.
	Node int       `json:"node"`
	Time time.Time `json:"time"`
}

// Artifact is an assistant-generated item (assistant_artifact_miner schema).
type Artifact struct {
	Type     string   `json:"artifact_type"`
	Topic    string   `json:"topic"`
	Item     string   `json:"item_text"`
	Ordinal  int      `json:"ordinal,omitempty"` // 1-based, 0 when unordered
	Entities []string `json:"entities,omitempty"`
	Evidence string   `json:"evidence_text,omitempty"`
	Provenance
}

// Event is a dated, countable or aggregatable event (event_miner schema).
type Event struct {
	Type            string   `json:"event_type"`
	Subject         string   `json:"subject"`
	Object          string   `json:"object"`
	Value           string   `json:"value,omitempty"`
	Quantity        *float64 `json:"quantity"`
	Unit            string   `json:"unit,omitempty"`
	CanonicalAction string   `json:"canonical_action"`
	CanonicalObject string   `json:"canonical_object"`
	DateText        string   `json:"date_text,omitempty"`
	NormalizedDate  string   `json:"normalized_date,omitempty"`
	Negated         bool     `json:"is_negated"`
	Countable       bool     `json:"countable"`
	Entities        []string `json:"entities,omitempty"`
	Evidence        string   `json:"evidence_text,omitempty"`
	Provenance
}

// State is a mutable user state or durable preference (state_slot_miner
// schema), linked to the value it replaced.
type State struct {
	Key      string   `json:"key"`
	Value    string   `json:"value"`
	Tag      string   `json:"attribute_tag,omitempty"`
	Entities []string `json:"entities,omitempty"`
	Evidence string   `json:"evidence_text,omitempty"`
	Provenance
	// Prev is the index of the state this one revised (same key), -1 if none;
	// Next is the index of the state that revised this one, -1 if current.
	Prev int `json:"prev"`
	Next int `json:"next"`
}
