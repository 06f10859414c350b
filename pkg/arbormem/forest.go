package arbormem

// Paper §3.1, the memory state S_t = (F_t, M_t): the conversation forest F_t
// (nodes, parent edges, trajectories, the global interaction timeline).
// The evidence store M_t is store.go.

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
)

// Node is one committed interaction state of the conversation forest F_t
// (§3.1, "Conversation forest"): the original interaction, node and path
// summaries, entities and keywords, a vector, and structural metadata.
type Node struct {
	// Seq is the node's global sequence position (0-based commit order); it
	// is also its id in the node indexes.
	Seq         int                `json:"seq"`
	Interaction dialog.Interaction `json:"interaction"`
	Summary     string             `json:"summary"`
	PathSummary string             `json:"path_summary"`
	// TopicKey names the trajectory the node belongs to (the "Topic" part of
	// its path summary); the reranker sees it first (§4.2).
	TopicKey string   `json:"topic_key"`
	Entities []string `json:"entities"`
	// Keywords are the node's routing keywords, routingKeywords(Summary).
	// A live node does not keep them (its keyTerms hold them, among the
	// entity terms); they are filled in when the node is written as JSON.
	Keywords []string `json:"keywords"`
	// Parent is the parent's Seq, -1 for a root.
	Parent   int   `json:"parent"`
	Root     int   `json:"root"`
	Depth    int   `json:"depth"`
	Children []int `json:"children,omitempty"`
	// Vector is the node's embedding until it is indexed (nodeVec then
	// holds the only copy; snapshots read it from there).
	Vector []float32 `json:"-"`

	// Caches derived from the fields above; rebuilt by index(). The texts
	// themselves (rawText, sumText, rerankDoc) are rendered when used, not
	// kept: the fields they derive from do not change once the node is
	// prepared, and an episode would otherwise hold its dialogue twice.
	rawTokens int
	sumTokens int
	lexTerms  []string // analyzed lexical text, until indexed
	keyTerms  termList // keyword/entity terms of the node (s_key)
	topic     termList // topic terms: topic key, path summary, entities
}

// MarshalJSON writes the node with its keywords, which a live node does not
// keep.
func (n *Node) MarshalJSON() ([]byte, error) {
	type plain Node // without this method
	p := plain(*n)
	if p.Keywords == nil {
		p.Keywords = routingKeywords(n.Summary)
	}
	return json.Marshal(p)
}

// rawText is the node as evidence: its time and turns (rawTokens long).
func (n *Node) rawText() string { return rawItemText(n.Interaction) }

// sumText is the node compressed to its summary (sumTokens long).
func (n *Node) sumText() string { return summaryItemText(n) }

// rerankDoc is the node's branch-aware representation for the
// cross-encoder.
func (n *Node) rerankDoc() string { return rerankText(n) }

// ID is the node's interaction ID.
func (n *Node) ID() string { return n.Interaction.ID }

// Time is when the node's interaction happened.
func (n *Node) Time() time.Time { return n.Interaction.Time }

// Forest is the interaction-state forest: nodes in commit order (the global
// timeline), roots, and the active-state pointer.
type Forest struct {
	Nodes []*Node `json:"nodes"`
	Roots []int   `json:"roots"`
	// Active is the Seq of the most recently committed node, -1 when empty.
	Active int `json:"active"`

	byID map[string]int
	// byTime holds Seqs ordered by (interaction time, Seq) for resolving
	// temporal-return cues; commit order is the tie-break.
	byTime []int
}

func newForest() *Forest { return &Forest{Active: -1, byID: map[string]int{}} }

// Len is the number of committed nodes.
func (f *Forest) Len() int { return len(f.Nodes) }

// Lookup returns the node with interaction ID id.
func (f *Forest) Lookup(id string) (*Node, bool) {
	i, ok := f.byID[id]
	if !ok {
		return nil, false
	}
	return f.Nodes[i], true
}

// attach appends n as a child of parent (-1: new root) and makes it active.
// The node's entities are copied: found in the interaction's text, each
// would otherwise keep that whole text alive for the episode's life (the
// node keeps its turns, not the joined text).
func (f *Forest) attach(n *Node, parent int) {
	for i, e := range n.Entities {
		n.Entities[i] = strings.Clone(e)
	}
	n.Seq = len(f.Nodes)
	n.Parent = parent
	if parent < 0 {
		n.Root, n.Depth = n.Seq, 0
		f.Roots = append(f.Roots, n.Seq)
	} else {
		p := f.Nodes[parent]
		n.Root, n.Depth = p.Root, p.Depth+1
		p.Children = append(p.Children, n.Seq)
	}
	f.Nodes = append(f.Nodes, n)
	f.byID[n.ID()] = n.Seq
	f.Active = n.Seq
	f.insertTime(n.Seq)
}

func (f *Forest) insertTime(seq int) {
	t := f.Nodes[seq].Time()
	i := sort.Search(len(f.byTime), func(i int) bool {
		o := f.Nodes[f.byTime[i]]
		return o.Time().After(t) || (o.Time().Equal(t) && o.Seq > seq)
	})
	f.byTime = append(f.byTime, 0)
	copy(f.byTime[i+1:], f.byTime[i:])
	f.byTime[i] = seq
}

// Path returns the Seqs from the root to seq (the trajectory that leads to it).
func (f *Forest) Path(seq int) []int {
	if seq < 0 {
		return nil
	}
	n := f.Nodes[seq]
	out := make([]int, n.Depth+1)
	for i := n.Depth; i >= 0; i-- {
		out[i] = seq
		seq = f.Nodes[seq].Parent
	}
	return out
}

// Window returns the Seqs of nodes whose time lies in [from, to], oldest first.
func (f *Forest) Window(from, to time.Time) []int {
	lo := sort.Search(len(f.byTime), func(i int) bool { return !f.Nodes[f.byTime[i]].Time().Before(from) })
	var out []int
	for i := lo; i < len(f.byTime); i++ {
		s := f.byTime[i]
		if f.Nodes[s].Time().After(to) {
			break
		}
		out = append(out, s)
	}
	return out
}

// rebuild restores the lookup tables after loading.
func (f *Forest) rebuild() {
	f.byID = make(map[string]int, len(f.Nodes))
	f.byTime = f.byTime[:0]
	for i, n := range f.Nodes {
		f.byID[n.ID()] = i
		f.insertTime(i)
	}
}

// rerankText is the branch-aware representation the cross-encoder scores a
// candidate by (§4.2): topic key, path summary, node summary, entities.
func rerankText(n *Node) string {
	var b strings.Builder
	size := len("Topic: \nPath: \nNode: \nEntities: ") + len(n.TopicKey) + len(n.PathSummary) + len(n.Summary)
	for _, e := range n.Entities {
		size += len(e) + len("; ")
	}
	b.Grow(size) // one allocation: every commit builds the candidates' documents
	if n.TopicKey != "" {
		b.WriteString("Topic: ")
		b.WriteString(n.TopicKey)
		b.WriteByte('\n')
	}
	if n.PathSummary != "" {
		b.WriteString("Path: ")
		b.WriteString(n.PathSummary)
		b.WriteByte('\n')
	}
	b.WriteString("Node: ")
	b.WriteString(n.Summary)
	if len(n.Entities) > 0 {
		b.WriteString("\nEntities: ")
		for i, e := range n.Entities {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(e)
		}
	}
	return b.String()
}

// speakerName is how a turn's author is shown in evidence.
func speakerName(t dialog.Turn) string {
	if t.Speaker != "" {
		return t.Speaker
	}
	if t.Role == dialog.RoleAssistant {
		return "Assistant"
	}
	return "User"
}

// rawItemText renders a node's original turns for [ConversationHistory].
func rawItemText(in dialog.Interaction) string { return rawTextOf(in.Time, turnLines(in)) }

// rawTextOf is rawItemText of an interaction at t whose turnLines are
// turns.
func rawTextOf(t time.Time, turns string) string {
	return "[" + dialog.FormatTime(t) + "] " + turns
}

// turnLines renders an interaction's turns as "Speaker: content" lines.
func turnLines(in dialog.Interaction) string {
	var b strings.Builder
	for i, t := range in.Turns {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(speakerName(t))
		b.WriteString(": ")
		b.WriteString(strings.TrimSpace(t.Content))
	}
	return b.String()
}

// summaryItemText renders a node compressed to its summary (older prefix of
// a long trajectory, appendix A).
func summaryItemText(n *Node) string {
	return "[" + dialog.FormatTime(n.Time()) + "] (summary) " + n.Summary
}
