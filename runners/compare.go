package runners

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/scoring"
)

// CompareOptions configure CompareModelPath.
type CompareOptions struct {
	// Data is a BranchMemEval file; "" is the embedded default set.
	Data string
	// Limit keeps the first N episodes (0: all).
	Limit int
	// Noise and Seed configure the speaking fake (fake.Options).
	Noise float64
	Seed  uint64
	// ModelDefaults runs the model-backed ArborMem as cfg configures it
	// (by default the paper's routing cascade, s_ce as the reranker's logit
	// and no supplemental fill) instead of with the offline run's resolution
	// of those keys (arbormem.routing heuristic, arbormem.ce_score scaled,
	// arbormem.supplemental_fill on), which is what makes the two runs
	// comparable: it measures what those choices change.
	ModelDefaults bool
	// Workers replays that many episodes at once (default 2).
	Workers int
}

// Comparison is what CompareModelPath measured.
type Comparison struct {
	Episodes int `json:"episodes"`
	// Interactions counts committed interactions; SamePlacement those whose
	// parent is the same in both runs (both new roots, or the same node).
	Interactions  int `json:"interactions"`
	SamePlacement int `json:"same_placement"`
	// Questions counts questions; SameBundle those whose evidence bundles
	// are item for item the same text (but for the topic notes offline facts
	// carry, see sameBundle); OfflineRecall and ModelRecall are the
	// mean gold evidence recall (BranchMemEval's, scoring.BMERecall).
	Questions     int     `json:"questions"`
	SameBundle    int     `json:"same_bundle"`
	OfflineRecall float64 `json:"offline_recall"`
	ModelRecall   float64 `json:"model_recall"`
	// Metrics sums the model-backed ArborMem's counters over episodes, and
	// Degraded its degraded counts as a run records them on its episode
	// records (record.EpisodeStat.Degraded).
	Metrics  arbormem.MetricsSnapshot `json:"metrics"`
	Degraded record.Degraded          `json:"degraded"`
	// Speaker is what the fake replied, by prompt.
	Speaker map[string]fake.PromptStats `json:"speaker"`
	// Noise and Seed repeat the options; Routing and CEScore are the
	// model-backed ArborMem's arbormem.routing and arbormem.ce_score.
	Noise   float64 `json:"noise"`
	Seed    uint64  `json:"seed"`
	Routing string  `json:"routing"`
	CEScore string  `json:"ce_score"`
}

// memoryPrompts are the prompts of ArborMem's memory operations, whose
// unparseable replies it counts.
var memoryPrompts = []string{"node_metadata", "atomic_fact_miner", "assistant_artifact_miner", "event_miner",
	"state_slot_miner", "fact_collision_auditor_batch", "attribute_tag_predictor"}

// Unrepairable counts the memory-operation replies the speaker made that no
// parser could read although they answered a repair request: after them
// ArborMem gives up and falls back to its rules (Metrics.BadReplies).
func (c *Comparison) Unrepairable() int {
	n := 0
	for _, p := range memoryPrompts {
		n += c.Speaker[p].UnparseableRepairs
	}
	return n
}

// RepairedReplies counts the repair requests of memory operations whose
// reply parsed (Metrics.Repaired).
func (c *Comparison) RepairedReplies() int {
	n := 0
	for _, p := range memoryPrompts {
		n += c.Speaker[p].Repairs - c.Speaker[p].UnparseableRepairs
	}
	return n
}

// CompareModelPath replays BranchMemEval through ArborMem twice: offline
// (rule-based memory operations, local embedder and reranker) and on the
// model-backed path against an in-process speaking fake on loopback (chat
// memory operations, embeddings and reranks over HTTP), and compares the
// forests and the evidence recalled for every question. With noise 0 the
// two must agree; with noise the model-backed run's degraded counts must
// match the replies the fake made unrepairable.
func CompareModelPath(ctx context.Context, cfg *config.Config, opts CompareOptions) (*Comparison, error) {
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	eps, err := datasets.Load(ctx, "branchmemeval", opts.Data, datasets.Options{})
	if err != nil {
		return nil, err
	}
	if opts.Limit > 0 && opts.Limit < len(eps) {
		eps = eps[:opts.Limit]
	}
	sp, err := fake.New(fake.Options{Noise: opts.Noise, Seed: opts.Seed, Dim: cfg.Models.Embed.Dim})
	if err != nil {
		return nil, err
	}
	srv := openaifake.New(sp.Install(openaifake.Options{}))
	defer srv.Close()

	offCfg := *cfg
	offCfg.ArborMem.Extractors = "heuristic"
	offCfg.Models.Chat, offCfg.Models.Embed, offCfg.Models.Rerank = config.Role{Provider: "local"}, cfg.Models.Embed, cfg.Models.Rerank
	offCfg.Models.Embed.Provider, offCfg.Models.Rerank.Provider = "local", "local"
	offCfg.Models.Embed.Endpoints, offCfg.Models.Rerank.Endpoints = nil, nil
	modCfg := SpeakingConfig(cfg, srv.URL, cfg.Models.Embed.Dim, 4*opts.Workers)
	if !opts.ModelDefaults {
		// The offline run's resolution of the keys whose "auto" depends on
		// whether the memory operations are rule-based (the offline
		// routing's content rules among them: left at auto they would be
		// off on the model-backed run only).
		a := &modCfg.ArborMem
		a.Routing, a.CEScore = arbormem.RoutingHeuristic, arbormem.CEScaled
		for _, k := range []*string{&a.SupplementalFill, &a.ShiftMarkers, &a.ContentReturns, &a.LabelReturns, &a.NovelShift} {
			if *k == "" || *k == "auto" {
				*k = "on"
			}
		}
	}
	factory := func(c *config.Config) (memory.Factory, func(), error) {
		d, err := newMemoryDeps(ctx, c, "branchmemeval")
		if err != nil {
			return nil, nil, err
		}
		f, err := d.factory("arbormem", "")
		return f, func() { d.models.Close() }, err
	}
	offF, closeOff, err := factory(&offCfg)
	if err != nil {
		return nil, err
	}
	defer closeOff()
	modF, closeMod, err := factory(modCfg)
	if err != nil {
		return nil, err
	}
	defer closeMod()

	out := &Comparison{Episodes: len(eps), Noise: opts.Noise, Seed: opts.Seed, Routing: modCfg.ArborMem.Routing, CEScore: modCfg.ArborMem.CEScore}
	var mu sync.Mutex
	recall := scoring.RecallerFor("branchmemeval", cfg.Judge.AnswerInBundleMaxWords)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Workers)
	for _, ep := range eps {
		g.Go(func() error {
			c, err := compareEpisode(gctx, ep, offF, modF, recall, cfg.Answer.Budget)
			if err != nil {
				return fmt.Errorf("episode %s: %w", ep.ID, err)
			}
			mu.Lock()
			defer mu.Unlock()
			out.Interactions += c.Interactions
			out.SamePlacement += c.SamePlacement
			out.Questions += c.Questions
			out.SameBundle += c.SameBundle
			out.OfflineRecall += c.OfflineRecall
			out.ModelRecall += c.ModelRecall
			out.Metrics.Add(c.Metrics)
			out.Degraded.Add(&c.Degraded)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if out.Questions > 0 {
		out.OfflineRecall /= float64(out.Questions)
		out.ModelRecall /= float64(out.Questions)
	}
	out.Speaker = sp.Stats()
	return out, nil
}

// compareEpisode replays one episode through both systems; recall figures
// are sums.
func compareEpisode(ctx context.Context, ep datasets.Episode, offF, modF memory.Factory, recall scoring.Recaller, budget int) (*Comparison, error) {
	off, err := offF(ctx, ep.ID)
	if err != nil {
		return nil, err
	}
	mod, err := modF(ctx, ep.ID)
	if err != nil {
		return nil, err
	}
	c := &Comparison{}
	var ids []string
	commit := func(in dialog.Interaction) error {
		if err := off.Commit(ctx, in); err != nil {
			return fmt.Errorf("offline commit %s: %w", in.ID, err)
		}
		if err := mod.Commit(ctx, in); err != nil {
			return fmt.Errorf("model-backed commit %s: %w", in.ID, err)
		}
		ids = append(ids, in.ID)
		return nil
	}
	for _, st := range ep.Steps {
		if st.Interaction != nil {
			if err := commit(*st.Interaction); err != nil {
				return nil, err
			}
			continue
		}
		q := st.Question
		query := memory.Query{ID: q.ID, Text: q.Text, Time: q.Time, Budget: budget}
		bo, err := off.Recall(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("offline recall %s: %w", q.ID, err)
		}
		bm, err := mod.Recall(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("model-backed recall %s: %w", q.ID, err)
		}
		c.Questions++
		c.OfflineRecall += recall(q, bo).Gold
		c.ModelRecall += recall(q, bm).Gold
		if sameBundle(bo, bm) {
			c.SameBundle++
		}
		if q.Canonical != nil {
			if err := commit(*q.Canonical); err != nil {
				return nil, err
			}
		}
	}
	po, okO := off.(memory.Placer)
	pm, okM := mod.(memory.Placer)
	if !okO || !okM {
		return nil, fmt.Errorf("ArborMem does not report placements")
	}
	for _, id := range ids {
		a, _ := po.ParentOf(id)
		b, _ := pm.ParentOf(id)
		c.Interactions++
		if a == b {
			c.SamePlacement++
		}
	}
	if am, ok := mod.(*arbormem.System); ok {
		c.Metrics = am.Metrics()
	}
	if d := degradedOf(mod, 0); d != nil {
		c.Degraded = *d
	}
	return c, nil
}

// topicNote is the "(re: topic)" ArborMem shows beside a rule-extracted
// fact that does not name its trajectory's topic; a model writes
// self-contained facts and gets none (arbormem's contextualize).
var topicNote = regexp.MustCompile(` \(re: [^)]*\)`)

// sameBundle reports whether the offline bundle off and the model-backed
// bundle mod hold the same items, in order, with the same text but for the
// offline facts' topic notes.
func sameBundle(off, mod memory.Bundle) bool {
	return slices.EqualFunc(off.Items, mod.Items, func(a, b memory.Item) bool {
		return a.Text == b.Text || topicNote.ReplaceAllString(a.Text, "") == b.Text
	})
}

// WriteComparison prints a comparison as a short report.
func WriteComparison(w io.Writer, c *Comparison) error {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	fmt.Fprintf(w, "BranchMemEval, %d episodes: ArborMem offline vs model-backed against the speaking fake (noise %.2f, seed %d; model-backed arbormem.routing %s, ce_score %s)\n",
		c.Episodes, c.Noise, c.Seed, c.Routing, c.CEScore)
	fmt.Fprintf(w, "  same placement:     %d / %d interactions (%.1f%%)\n", c.SamePlacement, c.Interactions, pct(c.SamePlacement, c.Interactions))
	fmt.Fprintf(w, "  same bundle:        %d / %d questions (%.1f%%)\n", c.SameBundle, c.Questions, pct(c.SameBundle, c.Questions))
	fmt.Fprintf(w, "  evidence recall:    offline %.3f, model-backed %.3f (difference %+.3f)\n", c.OfflineRecall, c.ModelRecall, c.ModelRecall-c.OfflineRecall)
	m := c.Metrics
	d := c.Degraded
	fmt.Fprintf(w, "  memory-op calls:    %d; degraded: repaired %d, bad replies %d, fallbacks %d, model errors %d\n", m.ModelCalls, d.Repaired, d.BadReplies, d.Fallbacks, d.ModelErrors)
	replies, varied := 0, 0
	for _, p := range c.Speaker {
		replies += p.Replies
		for _, n := range p.Noisy {
			varied += n
		}
	}
	fmt.Fprintf(w, "  fake's replies:     %d, %d varied; memory operations: repaired %d, unrepairable %d\n", replies, varied, c.RepairedReplies(), c.Unrepairable())
	if u := c.Speaker[fake.Unrecognised].Replies; u > 0 {
		fmt.Fprintf(w, "  unrecognised requests: %d\n", u)
	}
	return nil
}

// WriteComparisonRow prints a comparison as one row of the README's
// equivalence table (scripts/readme-figures.sh), labelled label.
func WriteComparisonRow(w io.Writer, label string, c *Comparison) error {
	replies, varied := 0, 0
	for _, p := range c.Speaker {
		replies += p.Replies
		for _, n := range p.Noisy {
			varied += n
		}
	}
	calls := thousandsInt(int(c.Metrics.ModelCalls))
	if varied > 0 {
		calls += " (" + thousandsInt(varied) + " replies varied)"
	}
	_, err := fmt.Fprintf(w, "| %s | %d / %d | %d / %d | %.3f / %.3f | %s | %d | %d (%d) |\n", label,
		c.SamePlacement, c.Interactions, c.SameBundle, c.Questions, c.OfflineRecall, c.ModelRecall,
		calls, c.Degraded.Repaired, c.Degraded.BadReplies, c.Unrepairable())
	return err
}

// thousandsInt prints n with thousands separators (9,554).
func thousandsInt(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
