package record

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// Bundle is one line of bundles.jsonl, the optional side file beside
// samples.jsonl: the evidence bundle a system handed to the answer model for
// one sample, item by item, and its localization trace. It is keyed like the
// sample it explains (same six fields, same Key) and written right after it,
// so the HTML report can open a question without replaying the episode.
type Bundle struct {
	Benchmark string `json:"benchmark"`
	Episode   string `json:"episode"`
	Question  string `json:"question"`
	System    string `json:"system"`
	Variant   string `json:"variant,omitempty"`
	Budget    int    `json:"budget"`
	// Text is the question as asked (samples.jsonl keeps only its id).
	Text string `json:"text,omitempty"`
	// Evidence lists the interaction IDs holding the gold evidence.
	Evidence []string     `json:"evidence,omitempty"`
	Items    []BundleItem `json:"items"`
	// Trace is the system's own trace (ArborMem: cascade step, chosen
	// parent, every candidate with its score parts); kept whole so that
	// fields added to memory.Candidate reach the report unchanged.
	Trace *memory.Trace `json:"trace,omitempty"`
	// Branch is the chosen parent's branch, from its root down to the
	// parent (interaction IDs), for systems that place interactions.
	Branch []string `json:"branch,omitempty"`
}

// BundleItem is one evidence item. Its text is either inline (Text) or, as
// the runner writes it, stored once in bundle-texts.jsonl under Ref: the
// same history turns fill the bundles of many questions, systems and
// budgets, and storing them once keeps the side file compact. Both are
// empty when the run records bundles without text (run.bundles: trace).
type BundleItem struct {
	Channel string   `json:"channel"`
	Block   string   `json:"block,omitempty"`
	Sources []string `json:"sources,omitempty"`
	Tokens  int      `json:"tokens"`
	Text    string   `json:"text,omitempty"`
	Ref     string   `json:"ref,omitempty"`
}

// BundleText is one line of bundle-texts.jsonl: an evidence text stored
// once, under its TextRef.
type BundleText struct {
	Ref  string `json:"ref"`
	Text string `json:"text"`
}

// Key identifies a stored text.
func (t BundleText) Key() string { return t.Ref }

// TextRef is the reference of an evidence text: the first 16 bytes of its
// SHA-256, in hex.
//
// A run refers to the same history texts from many bundles, so the
// references of recent texts are remembered (textRefMemo).
func TextRef(text string) string { return textRefMemo.GetShared(text) }

// textRefSlots bounds textRefMemo: each slot holds a text and its
// reference (a few MiB of chat interactions when full).
const textRefSlots = 2048

var textRefMemo = textmemo.New(textRefSlots, textRef)

// textRef is TextRef without the memo.
func textRef(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:16])
}

// Key identifies the bundle's sample (Sample.Key).
func (b Bundle) Key() string {
	return Sample{Benchmark: b.Benchmark, Episode: b.Episode, Question: b.Question, System: b.System, Variant: b.Variant, Budget: b.Budget}.Key()
}

// NewBundle is the record of bundle b recalled for sample s, with each
// item's text inline.
func NewBundle(s Sample, b memory.Bundle) Bundle {
	r := Bundle{Benchmark: s.Benchmark, Episode: s.Episode, Question: s.Question, System: s.System,
		Variant: s.Variant, Budget: s.Budget, Trace: b.Trace, Items: make([]BundleItem, 0, len(b.Items))}
	for _, it := range b.Items {
		r.Items = append(r.Items, BundleItem{Channel: string(it.Channel), Block: it.Block, Sources: it.Sources, Tokens: it.Tokens, Text: it.Text})
	}
	return r
}

// BranchPath follows parentOf from id up to its root and returns the chain
// root first, id last; it stops at a cycle or after limit steps, so a
// corrupt structure cannot hang the caller.
func BranchPath(id string, parentOf func(string) (string, bool), limit int) []string {
	if id == "" {
		return nil
	}
	seen := map[string]bool{id: true}
	path := []string{id}
	for cur := id; len(path) < limit; {
		p, ok := parentOf(cur)
		if !ok || p == "" || seen[p] {
			break
		}
		seen[p] = true
		path = append(path, p)
		cur = p
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}
