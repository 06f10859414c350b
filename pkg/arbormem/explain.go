package arbormem

// Not in the paper: `arbor explain`'s account of the forest and of one
// localization decision.

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/text"
)

// Explain prints the forest as an indented tree (each trajectory's topic,
// then every node's interaction ID, time and summary) and, when question is
// not nil, recalls it and prints the localization (cascade step, chosen
// parent, every candidate with its score parts) and which channels and
// blocks filled the budget. A question with no budget uses 30,968 tokens
// (the paper's 32K condition).
func Explain(w io.Writer, sys *System, question *memory.Query) error {
	return ExplainContext(context.Background(), w, sys, question)
}

// ExplainContext is Explain with a context for the recall's model calls.
func ExplainContext(ctx context.Context, w io.Writer, sys *System, question *memory.Query) error {
	ew := &errWriter{w: w}
	sys.mu.RLock()
	f := sys.forest
	ew.printf("forest: %d nodes, %d roots, %d facts (%d superseded), %d artifacts, %d events, %d states; %s\n",
		f.Len(), len(f.Roots), len(sys.store.Facts), countSuperseded(sys.store), len(sys.store.Artifacts), len(sys.store.Events),
		len(sys.store.States), sys.Label())
	if f.Active >= 0 {
		ew.printf("active: %s\n", f.Nodes[f.Active].ID())
	}
	for _, r := range f.Roots {
		ew.printf("\n◆ %s\n", f.Nodes[r].TopicKey)
		var walk func(seq, depth int)
		walk = func(seq, depth int) {
			n := f.Nodes[seq]
			mark := ""
			if seq == f.Active {
				mark = " ← active"
			}
			ew.printf("%s- %s [%s] %s%s\n", strings.Repeat("  ", depth+1), n.ID(), dialog.FormatTime(n.Time()), text.ClipRunes(n.Summary, 140), mark)
			for _, c := range n.Children {
				walk(c, depth+1)
			}
		}
		walk(r, 0)
	}
	sys.mu.RUnlock()
	if question == nil {
		return ew.err
	}
	q := *question
	if q.Budget <= 0 {
		q.Budget = 30968
	}
	b, rc, err := sys.recall(ctx, q)
	if err != nil {
		return err
	}
	ew.printf("\nquestion %s: %q (budget %d)\n", q.ID, q.Text, q.Budget)
	if tr := b.Trace; tr != nil {
		if !tr.Localized {
			ew.printf("localization: off\n")
		} else {
			parent := tr.Parent
			if parent == "" {
				parent = "(new root)"
			}
			ew.printf("localization: step=%s parent=%s τ=%.2f s_ce=%s\n", tr.Path, parent, sys.cfg.Tau, sys.ceDescription())
			for _, r := range tr.Rules {
				ew.printf("  decided by: %s\n", r)
			}
			if qt := rules.ClassifyQuery(q.Text); len(qt.Anchors) > 0 {
				ew.printf("topic anchors: %s\n", strings.Join(qt.Anchors, "; "))
			}
			if len(tr.Candidates) > 0 {
				ew.printf("  %-14s %8s %9s %8s %8s %8s %8s %8s\n", "candidate", "score", "rerank", "prob", "s_ce", "s_key", "s_rec", "s_topic")
				for _, c := range tr.Candidates {
					ew.printf("  %-14s %8.3f %9.4f %8.4f %8.3f %8.3f %8.3f %8.3f\n", c.Node, c.Score, c.Raw, c.Prob, c.CE, c.Key, c.Rec, c.Topic)
				}
			}
		}
		var chans []string
		for ch, n := range tr.Channels {
			chans = append(chans, fmt.Sprintf("%s=%d", ch, n))
		}
		sort.Strings(chans)
		ew.printf("channels (tokens): %s; total %d of %d\n", strings.Join(chans, " "), b.Tokens(), q.Budget)
	}
	blocks := map[string]int{}
	var names []string
	for _, it := range b.Items {
		if _, ok := blocks[it.Block]; !ok {
			names = append(names, it.Block)
		}
		blocks[it.Block] += it.Tokens
	}
	for _, n := range names {
		ew.printf("  [%s] %d tokens\n", n, blocks[n])
	}
	ew.printf("items (channel/block, tokens, sources: rule):\n")
	for _, it := range b.Items {
		ew.printf("  %s/%s %d %s: %s\n", it.Channel, it.Block, it.Tokens, strings.Join(it.Sources, ","), itemRule(rc, it))
	}
	return ew.err
}

// ceDescription says how s_ce is computed from the reranker's score.
func (s *System) ceDescription() string {
	from := "probability"
	if s.deps.RerankLogits {
		from = "raw logit"
	}
	if s.ceMode() == CELogit {
		return "logit (reranker returns a " + from + ")"
	}
	return fmt.Sprintf("%g × probability (reranker returns a %s)", s.cfg.CEScale, from)
}

func countSuperseded(st *Store) int {
	n := 0
	for _, f := range st.Facts {
		if !f.Current() {
			n++
		}
	}
	return n
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// itemRule says which channel rule put an item in the bundle.
func itemRule(rc *recallCtx, it memory.Item) string {
	switch it.Block {
	case memory.BlockHistory:
		if strings.Contains(it.Text, "(summary)") {
			return "trajectory of the localized parent, older node as summary"
		}
		return "trajectory of the localized parent, raw"
	case memory.BlockSupplemental:
		if rc == nil || !rc.suppFirst {
			return "supplemental_budget: semantic recall outside the trajectory"
		}
		var rules []string
		for _, src := range it.Sources {
			rules = append(rules, src+" "+rc.suppRule[src])
		}
		return "supplemental_fill (question after the conversation): " + strings.Join(rules, "; ")
	case memory.BlockFacts:
		return "atomic fact: cosine ≥ fact_min_sim, ordered by entity/term overlap"
	case memory.BlockUpdate:
		return "revision pair of a retrieved fact"
	case memory.BlockComputation, memory.BlockCountSource, memory.BlockTopicSlot, memory.BlockBridge:
		return "derived block over matched records or anchored trajectories"
	}
	return "structured record: embedding similarity and entity match"
}
