// Package dialog is the vocabulary every other package speaks: turns and the
// user–assistant interactions that memory systems commit.
package dialog

import (
	"strings"
	"time"
)

// Role names who produced a turn.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Turn is one message of a conversation.
type Turn struct {
	// ID is the benchmark's own turn id when it has one (LoCoMo "D1:3",
	// BEAM message id), otherwise derived by the loader. Unique in an episode.
	ID string `json:"id"`
	// Role is RoleUser or RoleAssistant. Two-speaker corpora (LoCoMo) map
	// the first speaker to user and the second to assistant.
	Role string `json:"role"`
	// Speaker is the human-readable name of the author where the corpus
	// gives one ("Caroline"); empty otherwise.
	Speaker string `json:"speaker,omitempty"`
	Content string `json:"content"`
}

// Interaction is the unit a memory system commits: usually one user turn and
// the assistant reply to it (paper §3: "Each node is created from one
// user–assistant interaction").
type Interaction struct {
	// ID is unique within an episode and is what bundle items cite as provenance.
	ID string `json:"id"`
	// Session groups interactions into the corpus's sessions (summary
	// baselines keep one summary per session); empty when the corpus has none.
	Session string `json:"session,omitempty"`
	// Time is when the interaction happened; zero when the corpus gives no time.
	Time  time.Time `json:"time"`
	Turns []Turn    `json:"turns"`
	// Chunk names the benchmark-defined retrieval unit the interaction
	// belongs to (BEAM: the turn, several user–assistant exchanges, that
	// BEAM's own turn_chunk retrieval indexes as one document); consecutive
	// interactions with the same Chunk form one BM25 unit. Empty: the
	// interaction is a unit of its own.
	Chunk string `json:"chunk,omitempty"`
}

// User returns the concatenated user-side text of the interaction.
func (in Interaction) User() string { return in.join(RoleUser) }

// Assistant returns the concatenated assistant-side text of the interaction.
func (in Interaction) Assistant() string { return in.join(RoleAssistant) }

func (in Interaction) join(role string) string {
	var parts []string
	for _, t := range in.Turns {
		if t.Role == role {
			parts = append(parts, t.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Text renders the interaction as plain lines "Speaker: content", the form
// baselines store and token budgets are counted on.
func (in Interaction) Text() string {
	var b strings.Builder
	in.WriteText(&b)
	return b.String()
}

// WriteText writes Text() to b, for callers that make a longer text of
// it without building the interaction's text first.
func (in Interaction) WriteText(b *strings.Builder) {
	for i, t := range in.Turns {
		if i > 0 {
			b.WriteByte('\n')
		}
		name := t.Speaker
		if name == "" {
			name = t.Role
		}
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(t.Content)
	}
}

// TimeLayout is how interaction and question times are shown to models
// (the paper's "### CURRENT TIME (YYYY-MM-DD HH:MM)").
const TimeLayout = "2006-01-02 15:04"

// FormatTime renders t in TimeLayout, or "unknown" for the zero time.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.Format(TimeLayout)
}
