package arbormem

// Paper §4.3, context assembly: Recall localizes a question and packs the
// evidence bundle E_t under the answer-time budget: the root-to-parent
// trajectory first, then supplemental turns, atomic facts (up to 10 at
// similarity ≥ 0.4) and structured records (appendix A, "Context
// Assembly").

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// recallFlags are the components a recall uses: the configuration's
// ablation switches, narrowed by the query's recall-only variant.
type recallFlags struct {
	local, facts, records, keyword bool
}

func (s *System) flags(variant string) (recallFlags, error) {
	f := recallFlags{local: s.cfg.Localization, facts: s.cfg.AtomicFacts, records: s.cfg.StructuredEvidence, keyword: s.cfg.KeywordRouting}
	if variant == "" {
		return f, nil
	}
	v, ok := lookupVariant(variant)
	if !ok {
		return f, fmt.Errorf("arbormem: unknown variant %q (known: %s)", variant, variantNames())
	}
	if !v.RecallOnly {
		return f, fmt.Errorf("arbormem: variant %q changes commit-time behaviour; build the instance with ApplyVariant instead of passing it per query", variant)
	}
	switch v.Name {
	case VariantNoLocalization:
		f.local = false
	case VariantNoAtomicFacts:
		f.facts = false
	case VariantNoStructuredEvidence:
		f.records = false
	}
	return f, nil
}

// Recall assembles the evidence bundle E_t for q from the committed state
// S_{t-1} (§4.3, eq. 3): the branch-local trajectory of the localized parent,
// supplemental turns (zero budget by default), atomic facts and structured
// records, within q.Budget tokens. Recall changes no committed state; it
// caches its localization so that the following Commit of the same user
// text reuses it.
func (s *System) Recall(ctx context.Context, q memory.Query) (memory.Bundle, error) {
	b, _, err := s.recall(ctx, q)
	return b, err
}

// recall is Recall that also returns the recall's context, from which
// Explain reads why each item was chosen (nil when nothing was recalled).
func (s *System) recall(ctx context.Context, q memory.Query) (memory.Bundle, *recallCtx, error) {
	fl, err := s.flags(q.Variant)
	if err != nil {
		return memory.Bundle{}, nil, err
	}
	tr := &memory.Trace{Channels: map[memory.Channel]int{}}
	if q.Budget <= 0 {
		return memory.Bundle{Trace: tr}, nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.forest.Len() == 0 {
		tr.Localized = fl.local
		return memory.Bundle{Trace: tr}, nil, nil
	}
	var (
		qvOnce sync.Once
		qv     []float32
		qerr   error
	)
	qvec := func() ([]float32, error) {
		qvOnce.Do(func() { qv, qerr = s.embedOne(ctx, q.Text) })
		return qv, qerr
	}
	rc := &recallCtx{ctx: ctx, s: s, q: q, qt: rules.ClassifyQuery(q.Text), fl: fl, qvec: qvec, qterms: rules.Terms(q.Text)}
	if fl.facts && s.deps.BranchMemEval && s.factVec.Len() > 0 && s.cfg.MaxFacts != 0 {
		// The attribute-tag prediction needs only the question: it runs
		// beside localization's embed → rerank instead of after it.
		rc.tags = s.startPredictTags(ctx, q.Text)
	}
	if fl.local {
		d, ok := s.cachedDecision(q.Text, q.Time)
		if !ok {
			d, err = s.localize(ctx, q.Text, q.Time, "", true, qvec, fl.keyword)
			if err != nil {
				return memory.Bundle{}, nil, fmt.Errorf("arbormem: recall %s: %w", q.ID, err)
			}
			s.storeDecision(q.Text, q.Time, d)
		}
		rc.dec = d
		tr = s.traceOf(d)
		tr.Channels = map[memory.Channel]int{}
	}

	var facts, updates, records []memory.Item
	if fl.facts {
		facts, updates, err = rc.factItems(ctx)
		if err != nil {
			return memory.Bundle{}, nil, fmt.Errorf("arbormem: recall %s: %w", q.ID, err)
		}
	}
	if fl.records {
		records, err = rc.recordItems()
		if err != nil {
			return memory.Bundle{}, nil, fmt.Errorf("arbormem: recall %s: %w", q.ID, err)
		}
	}
	b := rc.allocate(facts, updates, records)
	for _, it := range b.Items {
		tr.Channels[it.Channel] += it.Tokens
	}
	b.Trace = tr
	// A prediction no fact needed is still awaited: the call was made, so
	// it belongs to this query's cost whatever the timing (a run answered
	// from the cache would otherwise record fewer calls than the run that
	// filled it).
	rc.tagResult()
	return b, rc, nil
}

// tagResult returns the attribute-tag prediction started with the recall,
// waiting for it the first time (a zero result when none was started).
func (rc *recallCtx) tagResult() tagResult {
	if rc.tags != nil {
		rc.tagsGot = <-rc.tags
		rc.tags = nil
	}
	return rc.tagsGot
}

// recallCtx carries one recall's inputs.
type recallCtx struct {
	ctx    context.Context // the caller's: token counts' server calls carry it
	s      *System
	q      memory.Query
	qt     rules.QueryType
	fl     recallFlags
	dec    *Decision
	qvec   func() ([]float32, error)
	qterms []string
	// suppFirst records that the supplemental channel was read first
	// (supplemental_fill), and suppRule the rule that picked each turn it
	// shows, by interaction ID (for Explain).
	suppFirst bool
	suppRule  map[string]string
	// suppTerms are the question's content terms the supplemental channel
	// matches (speaker names left out).
	suppTerms rules.TermSet
	// suppIDF weighs each of suppTerms (its inverse document frequency
	// over the nodes), for the excerpts' choice of sentences.
	suppIDF map[string]float64
	// tags delivers the attribute-tag prediction started with the recall
	// (BranchMemEval path only).
	tags    <-chan tagResult
	tagsGot tagResult
	// anchorList is anchors(), worked out once (topic-slot and bridge
	// evidence both read it).
	anchorOnce sync.Once
	anchorList []rules.Anchor
}

// item builds an evidence item with its exact token count.
func (rc *recallCtx) item(ch memory.Channel, block, text string, n *Node, sources ...string) memory.Item {
	it := memory.Item{Channel: ch, Block: block, Text: text, Sources: sources, Tokens: rc.s.countCtx(rc.ctx, text)}
	if n != nil {
		it.Time = n.Time()
	}
	return it
}

// allocate packs the bundle under q.Budget as appendix A prescribes: the
// branch-local trajectory first, within min(branch_budget, budget) ("When
// the selected trajectory fits within the branch budget, its interactions
// are retained in full"), then atomic facts and structured records
// "retrieved independently and appended without replacing the selected
// trajectory", under the remaining budget (§4.3). evidence_reserve (0 in
// the paper's setting) keeps a share of the budget for that evidence before
// the trajectory is packed.
func (rc *recallCtx) allocate(facts, updates, records []memory.Item) memory.Bundle {
	budget := rc.q.Budget
	reserve := 0
	if r := rc.s.cfg.EvidenceReserve; r > 0 {
		want := memory.TotalTokens(facts) + memory.TotalTokens(updates) + memory.TotalTokens(records)
		reserve = min(want, int(float64(budget)*r))
	}
	// Offline profile (supplemental_fill): a question that does not
	// continue the conversation reads supplemental turns first, up to the
	// whole budget; the trajectory and the evidence get what they leave.
	var sup []memory.Item
	if rc.s.offline().supplementalFill && rc.detached() {
		rc.suppFirst = true
		sup = rc.supplementalFill(budget - reserve)
	}
	used := memory.TotalTokens(sup)
	var local []memory.Item
	if rc.dec != nil && rc.dec.Parent >= 0 {
		capTokens := min(rc.s.cfg.BranchBudget, budget-reserve-used)
		local = rc.fitPath(rc.s.forest.Path(rc.dec.Parent), capTokens)
	}
	used += memory.TotalTokens(local)
	// Cross-branch evidence in priority order, skipping what does not fit.
	take := func(list []memory.Item) []memory.Item {
		var out []memory.Item
		for _, it := range list {
			if used+it.Tokens <= budget {
				out = append(out, it)
				used += it.Tokens
			}
		}
		return out
	}
	// Records carry ranks in order; facts first, since the paper reads them
	// as the highest-precision layer.
	f := take(facts)
	u := take(updates)
	r := take(records)
	if rc.s.cfg.SupplementalBudget > 0 {
		more := rc.supplemental(min(rc.s.cfg.SupplementalBudget, budget-used), local)
		used += memory.TotalTokens(more)
		sup = append(sup, more...)
	}
	sortFactsChrono(f)
	items := make([]memory.Item, 0, len(local)+len(sup)+len(f)+len(u)+len(r))
	items = append(items, local...)
	items = append(items, sup...)
	items = append(items, f...)
	items = append(items, u...)
	items = append(items, orderRecords(r)...)
	return memory.Bundle{Items: items}
}

func sortFactsChrono(f []memory.Item) {
	sort.SliceStable(f, func(i, j int) bool { return f[i].Time.Before(f[j].Time) })
}

// blockOrder is the order structured blocks are presented in.
var blockOrder = map[string]int{memory.BlockComputation: 0, memory.BlockTopicSlot: 1, memory.BlockArtifact: 2, memory.BlockEvent: 3, memory.BlockCountSource: 4,
	memory.BlockState: 5, memory.BlockPreference: 6, memory.BlockBridge: 7}

func orderRecords(r []memory.Item) []memory.Item {
	sort.SliceStable(r, func(i, j int) bool { return blockOrder[r[i].Block] < blockOrder[r[j].Block] })
	return r
}

// fitPath renders the root-to-parent trajectory within capTokens (appendix
// A): the whole path raw when it fits; otherwise the raw_tail most recent
// nodes raw and older nodes as summaries. When even that does not fit (a
// budget below the paper's), the raw tail shrinks first, then the summaries
// least related to the query are dropped (oldest first among equals), so the
// trajectory keeps its shape at lower fidelity.
func (rc *recallCtx) fitPath(path []int, capTokens int) []memory.Item {
	if capTokens <= 0 || len(path) == 0 {
		return nil
	}
	n := len(path)
	nodes := make([]*Node, n)
	rawTotal, sumTotal := 0, 0
	for i, seq := range path {
		nodes[i] = rc.s.forest.Nodes[seq]
		rawTotal += nodes[i].rawTokens
		sumTotal += nodes[i].sumTokens
	}
	raw := make([]bool, n)
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = true
	}
	switch {
	case rawTotal <= capTokens:
		for i := range raw {
			raw[i] = true
		}
	default:
		// Cost with the last t nodes raw and the rest summaries, for t from
		// raw_tail down to 0 (suffix sums make each O(1)).
		tail := min(rc.s.cfg.RawTail, n)
		cost := sumTotal
		costs := make([]int, tail+1)
		costs[0] = cost
		for t := 1; t <= tail; t++ {
			cost += nodes[n-t].rawTokens - nodes[n-t].sumTokens
			costs[t] = cost
		}
		chosen := -1
		for t := tail; t >= 0; t-- {
			if costs[t] <= capTokens {
				chosen = t
				break
			}
		}
		if chosen >= 0 {
			for i := n - chosen; i < n; i++ {
				raw[i] = true
			}
			break
		}
		// Drop summaries, least query-related first, oldest among equals;
		// the parent goes last.
		order := make([]int, n)
		rel := make([]int, n)
		for i, nd := range nodes {
			order[i] = i
			for _, t := range rc.qterms {
				if nd.keyTerms.has(t) {
					rel[i]++
				}
			}
		}
		rel[n-1] = 1 << 30
		sort.SliceStable(order, func(a, b int) bool { return rel[order[a]] < rel[order[b]] })
		total := sumTotal
		for _, i := range order {
			if total <= capTokens {
				break
			}
			keep[i] = false
			total -= nodes[i].sumTokens
		}
	}
	var out []memory.Item
	for i, nd := range nodes {
		if !keep[i] {
			continue
		}
		it := memory.Item{Channel: memory.ChannelLocal, Block: memory.BlockHistory, Sources: []string{nd.ID()}, Time: nd.Time()}
		if raw[i] {
			it.Text, it.Tokens = nd.rawText(), nd.rawTokens
		} else {
			it.Text, it.Tokens = nd.sumText(), nd.sumTokens
		}
		out = append(out, it)
	}
	return out
}

// supplemental returns raw turns outside the trajectory that semantic recall
// ranks highest, within capTokens ("Supplemental raw turns: supported by the
// architecture but assigned zero budget in the reported experiments").
func (rc *recallCtx) supplemental(capTokens int, local []memory.Item) []memory.Item {
	if capTokens <= 0 {
		return nil
	}
	v, err := rc.qvec()
	if err != nil {
		return nil
	}
	onPath := map[string]bool{}
	for _, it := range local {
		onPath[it.Sources[0]] = true
	}
	var out []memory.Item
	used := 0
	for _, h := range rc.s.nodeVec.Search(v, rc.s.cfg.SemanticCandidates) {
		n := rc.s.forest.Nodes[h.ID]
		if onPath[n.ID()] || used+n.rawTokens > capTokens {
			continue
		}
		used += n.rawTokens
		out = append(out, memory.Item{Channel: memory.ChannelTurn, Block: memory.BlockSupplemental, Text: n.rawText(), Tokens: n.rawTokens,
			Sources: []string{n.ID()}, Time: n.Time()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// factItems retrieves up to max_facts atomic facts with similarity at least
// fact_min_sim ("Up to 10 facts with a minimum semantic similarity of 0.4"),
// current facts before superseded ones, and the old → new pairs of the
// retrieved facts as [UpdateEvidence]. On the BranchMemEval path, facts are
// filtered to the predicted attribute tags when any remain.
func (rc *recallCtx) factItems(ctx context.Context) (facts, updates []memory.Item, err error) {
	s := rc.s
	if s.factVec.Len() == 0 || s.cfg.MaxFacts == 0 {
		return nil, nil, nil
	}
	v, err := rc.qvec()
	if err != nil {
		return nil, nil, err
	}
	type pick struct {
		f     *Fact
		score float64
	}
	// Up to max_facts facts with cosine at least fact_min_sim against the
	// fact key (appendix A). Entity-based matching (§4.3) only reorders
	// facts above the floor; it never admits one below it.
	sims := map[int]float64{}
	for _, h := range s.factVec.Search(v, FactSearchDepth(s.cfg)) {
		if h.Score < s.cfg.FactMinSim {
			break
		}
		sims[h.ID] = h.Score
	}
	overlap := rc.factOverlaps()
	var picks []pick
	for id, sim := range sims {
		f := s.store.Facts[id]
		sc := sim + 0.1*float64(overlap[id])
		if !f.Current() {
			sc -= 1 // superseded facts stay retrievable but rank after every current one
		}
		picks = append(picks, pick{f, sc})
	}
	if rc.tags != nil && len(picks) > 0 {
		r := rc.tagResult()
		tags, err := r.tags, r.err
		if err != nil {
			return nil, nil, err
		}
		if len(tags) > 0 {
			want := map[string]bool{}
			for _, t := range tags {
				want[t] = true
			}
			var kept []pick
			for _, p := range picks {
				if want[p.f.Tag] {
					kept = append(kept, p)
				}
			}
			if len(kept) > 0 {
				picks = kept
			}
		}
	}
	sort.SliceStable(picks, func(i, j int) bool {
		if picks[i].score != picks[j].score {
			return picks[i].score > picks[j].score
		}
		return picks[i].f.ID > picks[j].f.ID
	})
	if len(picks) > s.cfg.MaxFacts {
		picks = picks[:s.cfg.MaxFacts]
	}
	seenPair := map[[2]int]bool{}
	addPair := func(old, nw *Fact) {
		k := [2]int{old.ID, nw.ID}
		if seenPair[k] {
			return
		}
		seenPair[k] = true
		text := updateLine(old, nw)
		it := rc.item(memory.ChannelFact, memory.BlockUpdate, text, nil, old.Source, nw.Source)
		it.Time = nw.Time
		updates = append(updates, it)
	}
	for _, p := range picks {
		f := p.f
		var text string
		if f.Current() {
			text = factLine(f, "", rc.fl.local)
		} else {
			text = factLine(f, s.currentOf(f).Text, rc.fl.local)
		}
		it := memory.Item{Channel: memory.ChannelFact, Block: memory.BlockFacts, Text: text, Sources: []string{f.Source}, Time: f.Time}
		if f.Current() && (rc.fl.local || f.Topic == "") {
			it.Tokens = f.tokens
		} else {
			it.Tokens = s.countCtx(ctx, text)
		}
		facts = append(facts, it)
		if f.Current() {
			for _, o := range f.Supersedes {
				addPair(s.store.Facts[o], f)
			}
		} else {
			addPair(f, s.store.Facts[f.SupersededBy])
		}
	}
	return facts, updates, nil
}

// factOverlaps returns, for the entity-based ordering of facts, each fact's
// number of informative terms shared with the question: a fact counts when
// one of its entity terms is an informative question term, or when it
// shares two informative terms with the question. Terms in more than keyword_max_df of
// the facts are not informative (the same rule as s_key).
func (rc *recallCtx) factOverlaps() map[int]int {
	s := rc.s
	n := float64(len(s.store.Facts))
	count := map[int]int{}
	entity := map[int]bool{}
	for _, t := range rc.qterms {
		ids := s.store.factByTerm[t]
		if len(ids) == 0 || float64(len(ids)) > s.cfg.KeywordMaxDF*n && n >= 5 {
			continue
		}
		for _, id := range ids {
			count[int(id)]++
			if s.store.Facts[id].entityTerms.has(t) {
				entity[int(id)] = true
			}
		}
	}
	for id, k := range count {
		if k < 2 && !entity[id] {
			delete(count, id)
		}
	}
	return count
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// currentOf follows supersession links to the fact now current.
func (s *System) currentOf(f *Fact) *Fact {
	for i := 0; !f.Current() && i < 64; i++ {
		f = s.store.Facts[f.SupersededBy]
	}
	return f
}

// tagResult is the outcome of an attribute-tag prediction.
type tagResult struct {
	tags []string
	err  error
}

// startPredictTags runs predictTags in the background; the channel delivers
// its result once (buffered, so an unread result never blocks).
func (s *System) startPredictTags(ctx context.Context, query string) <-chan tagResult {
	ch := make(chan tagResult, 1)
	go func() {
		t, err := s.predictTags(ctx, query)
		ch <- tagResult{t, err}
	}()
	return ch
}

// predictTags runs the attribute-tag predictor once per distinct question.
func (s *System) predictTags(ctx context.Context, query string) ([]string, error) {
	s.cacheMu.Lock()
	t, ok := s.tagCache[query]
	s.cacheMu.Unlock()
	if ok {
		return t, nil
	}
	t, err := fallback(s, ctx, func() ([]string, error) { return s.tags.PredictTags(ctx, query) },
		func() ([]string, error) { return s.rules.PredictTags(ctx, query) })
	if err != nil {
		return nil, err
	}
	s.cacheMu.Lock()
	s.tagCache[query] = t
	s.cacheMu.Unlock()
	return t, nil
}
