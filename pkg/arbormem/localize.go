package arbormem

// Paper §4.2, state localization: the priority cascade (explicit
// continuation cue → the active state; explicit temporal-return cue → the
// timeline; otherwise hybrid candidates reranked by the cross-encoder and
// scored s = s_ce + s_key + s_rec + s_topic against τ, eq. 1–2), with the
// candidate and scoring rules of appendix A and Table "Reference
// implementation settings".

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// Decision is the outcome of state localization for one input (§4.2).
type Decision struct {
	// Parent is the chosen parent's Seq, -1 for a new root.
	Parent int
	// Path names the cascade step that decided: "empty" (nothing committed),
	// "continuation", "temporal", "scored"; offline also "implicit",
	// "shift", "label" and "content".
	Path string
	// Anchors are the explicit topic anchors detected in the input.
	Anchors []rules.Anchor
	// Candidates are the scored candidates, best first ("scored" only).
	Candidates []Scored
	// Rules name, in order, every rule that made or changed the choice of
	// Parent (the cascade step, τ, and each offline routing rule that
	// applied), so that a trace says why a lower-scored node won.
	Rules []string
}

// The rules a Decision names (Decision.Rules).
const (
	ruleEmpty        = "empty forest: a new root"
	ruleContinuation = "explicit continuation cue: the active state (§4.2)"
	ruleTemporal     = "explicit temporal-return cue: the node of the cued time window (§4.2)"
	ruleAboveTau     = "highest score above τ: its node (eq. 2)"
	ruleBelowTau     = "no candidate above τ: a new root (eq. 2)"
	ruleNoCandidates = "no candidate from any channel: a new root"
	ruleImplicit     = "offline routing: no cue, anchor, pause or session change leaves the active state (implicit continuation)"
	ruleReturn       = "offline routing: a return cue takes the best supported candidate outside the active trajectory"
	ruleNewTopic     = "offline routing: an announced new topic naming no known trajectory starts a new root"
	ruleResumeLatest = "offline routing: a trajectory resumes at its latest node"
)

// Scored is one candidate with its score parts (eq. 1).
type Scored struct {
	Seq int
	// Raw is the reranker's score as returned, Prob its probability and CE
	// the s_ce used (the logit, or ce_scale × Prob; see the package doc).
	Raw   float64
	Prob  float64
	CE    float64
	Key   float64
	Rec   float64
	Topic float64
	// From records which recall channels proposed the candidate:
	// "s" semantic, "k" keyword, "e" entity, "t" topic anchor.
	From string
}

// The recall channels of a candidate (Scored.From), as bits.
const (
	chanSemantic uint8 = 1 << iota
	chanKeyword
	chanEntity
	chanTopic
)

// channelNames spells each set of channels as Scored.From does: the
// channels' letters in the order localize consults them.
var channelNames = func() (names [16]string) {
	for set := range names {
		for i, ch := range "sket" {
			if set&(1<<i) != 0 {
				names[set] += string(ch)
			}
		}
	}
	return names
}()

// Total is s_t(v) = s_ce + s_key + s_rec + s_topic.
func (c Scored) Total() float64 { return c.CE + c.Key + c.Rec + c.Topic }

// localize runs the cascade for input text at time t against the committed
// forest. qvec embeds the input lazily (only the scored path needs it).
// keyword reports whether keyword/entity routing is on (ablation switch).
func (s *System) localize(ctx context.Context, text string, t time.Time, session string, query bool, qvec func() ([]float32, error), keyword bool) (*Decision, error) {
	f := s.forest
	if f.Len() == 0 {
		return &Decision{Parent: -1, Path: "empty", Rules: []string{ruleEmpty}}, nil
	}
	anchors := s.knownAnchors(rules.DetectAnchors(text))
	d := &Decision{Parent: -1, Anchors: anchors}
	off := s.offline()
	// Offline profile: the input's content words against each trajectory
	// (offline_content.go), read before the cues they may overrule.
	var cm *contentMatch
	if off.contentRouting() {
		m := s.matchContent(text)
		cm = &m
		if off.shiftMarkers && s.shiftRoute(d, text, cm) {
			return d, nil
		}
		if off.novelShift && s.novelRoute(d, text, cm) {
			return d, nil
		}
	}
	if off.labelReturns && s.labelRoute(d, text) {
		return d, nil
	}
	// (a) Explicit continuation cue: attach to the active state (§4.2). The
	// offline routing also checks that the input names no topic or entity
	// of another trajectory (continuationGuard), because its cue detection
	// is lexical, and that its content words do not match another
	// trajectory far better (contentReturn: "So what's the deadline now?").
	if rules.ContinuationCue(text) && !(off.routing && s.continuationGuard(anchors, text)) {
		if off.contentReturns && s.contentReturn(d, cm) {
			return d, nil
		}
		d.Parent, d.Path, d.Rules = f.Active, "continuation", []string{ruleContinuation}
		return d, nil
	}
	// (b) Explicit temporal-return cue: resolve through the timeline.
	if tc, ok := rules.DetectTemporal(text, t); ok {
		if seq, ok := s.resolveTemporal(tc, text); ok {
			d.Parent, d.Path, d.Rules = seq, "temporal", []string{ruleTemporal}
			return d, nil
		}
	}
	// Offline profile: the implicit continuation of the active state.
	var cues *routeCues
	if off.routing || eagerRoutingCues {
		cues = readRouteCues(text)
	}
	if off.routing && s.implicitContinuation(cues, t, session, query, anchors) {
		if off.contentReturns && s.contentReturn(d, cm) {
			return d, nil
		}
		d.Parent, d.Path, d.Rules = f.Active, "implicit", []string{ruleImplicit}
		return d, nil
	}
	// (c) Hybrid candidate set, reranked and scored.
	d.Path = "scored"
	// from holds each candidate's channels as bits (chanSemantic, ...),
	// named once at the end (channelNames) rather than spelt out as each
	// channel proposes the candidate.
	from := map[int]uint8{}
	note := func(seq int, ch uint8) { from[seq] |= ch }
	if s.cfg.SemanticCandidates > 0 {
		v, err := qvec()
		if err != nil {
			return nil, err
		}
		for _, h := range s.nodeVec.Search(v, s.cfg.SemanticCandidates) {
			note(h.ID, chanSemantic)
		}
	}
	if keyword && s.cfg.KeywordCandidates > 0 {
		// The query is the input and its entities, made in one piece.
		q := text
		if ents := rules.Entities(text, 8); len(ents) > 0 {
			var qb strings.Builder
			n := len(text)
			for _, e := range ents {
				n += 1 + len(e)
			}
			qb.Grow(n)
			qb.WriteString(text)
			for _, e := range ents {
				qb.WriteByte(' ')
				qb.WriteString(e)
			}
			q = qb.String()
		}
		for _, h := range s.nodeLex.Search(q, s.cfg.KeywordCandidates) {
			note(h.ID, chanKeyword)
		}
		for _, seq := range s.entityCandidates(text, s.cfg.KeywordCandidates) {
			note(seq, chanEntity)
		}
	}
	for _, a := range anchors {
		for _, seq := range s.topicCandidates(a, s.cfg.TopicCandidates) {
			note(seq, chanTopic)
		}
	}
	if len(from) == 0 {
		d.Rules = []string{ruleNoCandidates}
		return d, nil
	}
	seqs := make([]int, 0, len(from))
	for seq := range from {
		seqs = append(seqs, seq)
	}
	sort.Ints(seqs)
	docs := make([]string, len(seqs))
	for i, seq := range seqs {
		docs[i] = f.Nodes[seq].rerankDoc()
	}
	rq, err := s.rerankQuery(text)
	if err != nil {
		return nil, err
	}
	ce, err := s.deps.Rerank.Rerank(ctx, rq, docs)
	if err != nil {
		return nil, fmt.Errorf("localization rerank: %w", err)
	}
	if len(ce) != len(docs) {
		return nil, fmt.Errorf("localization rerank: %d scores for %d candidates", len(ce), len(docs))
	}
	// The input's terms are analysed only here and for a temporal cue
	// without a topic (rules.Terms remembers them): most offline inputs take
	// neither path. Only s_key reads them.
	var informative []uint32
	if keyword {
		informative = s.vocab.known(s.informativeTerms(rules.Terms(text)))
	}
	n := f.Len()
	for i, seq := range seqs {
		node := f.Nodes[seq]
		c := Scored{Seq: seq, From: channelNames[from[seq]]}
		c.Raw, c.Prob, c.CE = s.ceScore(ce[i])
		if keyword {
			c.Key = s.keywordScore(informative, node)
		}
		c.Rec = s.recencyScore(n - 1 - seq)
		c.Topic = s.topicScore(anchors, node)
		d.Candidates = append(d.Candidates, c)
	}
	sort.SliceStable(d.Candidates, func(i, j int) bool {
		a, b := d.Candidates[i], d.Candidates[j]
		if a.Total() != b.Total() {
			return a.Total() > b.Total()
		}
		return a.Seq > b.Seq
	})
	// eq. 2: the argmax becomes the parent only if it strictly exceeds τ.
	if best := d.Candidates[0]; best.Total() > s.cfg.Tau {
		d.Parent = best.Seq
		d.Rules = []string{ruleAboveTau}
	} else {
		d.Rules = []string{ruleBelowTau}
	}
	// Offline profile: the return and new-topic cues and the resumption of
	// a trajectory at its latest state.
	if off.routing {
		s.reroute(d, cues)
	}
	return d, nil
}

// maxLogit bounds the logit recovered from a probability: p is clamped to
// [σ(−13.8), σ(13.8)] ≈ [1e-6, 1 − 1e-6], beyond BGE-Reranker-v2-M3's
// observed logit range, so a server's rounded 0 or 1 stays finite.
const maxLogit = 13.8

// ceScore turns one reranker score into its probability and s_ce:
// the logit itself (ce_score logit) or ce_scale × probability (scaled).
// Scores are logits when the reranker returns raw scores
// (Deps.RerankLogits), probabilities otherwise.
func (s *System) ceScore(raw float64) (rawOut, prob, ce float64) {
	var logit float64
	if s.deps.RerankLogits {
		logit = raw
		if math.IsNaN(logit) {
			logit = -maxLogit
		}
		logit = math.Max(-maxLogit, math.Min(maxLogit, logit))
		prob = 1 / (1 + math.Exp(-logit))
	} else {
		prob = clamp01(raw)
		p := math.Max(1/(1+math.Exp(maxLogit)), math.Min(1/(1+math.Exp(-maxLogit)), prob))
		logit = math.Log(p / (1 - p))
	}
	if s.ceMode() == CELogit {
		return raw, prob, logit
	}
	return raw, prob, s.cfg.CEScale * prob
}

// clamp01 keeps a probability in [0,1]; NaN counts as 0.
func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// rerankQuery wraps the input in the reranker instruction (appendix D,
// _RERANKER_PROMPT).
func (s *System) rerankQuery(text string) (string, error) {
	if !s.rerankInstruction() {
		return text, nil
	}
	return s.deps.Prompts.Render("reranker_instruction", struct{ Query string }{text})
}

// informativeTerms keeps query terms that appear in at most keyword_max_df of
// the committed nodes (Table "Reference implementation settings": "terms
// appearing in more than 40% of nodes are ignored").
func (s *System) informativeTerms(qterms []string) []string {
	n := float64(s.forest.Len())
	var out []string
	for _, t := range qterms {
		df := s.df[t]
		if df == 0 || float64(df) > s.cfg.KeywordMaxDF*n {
			continue
		}
		out = append(out, t)
	}
	return out
}

// keywordScore is s_key: keyword_first for the first informative overlap and
// keyword_next for each further one (same table). informative holds the
// informative terms' numbers (vocab.known), looked up once per input
// rather than once per candidate.
func (s *System) keywordScore(informative []uint32, n *Node) float64 {
	k := 0
	for _, id := range informative {
		if n.keyTerms.hasID(id) {
			k++
		}
	}
	if k == 0 {
		return 0
	}
	return s.cfg.KeywordFirst + s.cfg.KeywordNext*float64(k-1)
}

// recencyScore is s_rec for a node with delta interactions committed after
// it, bounded by recency_max (same table).
func (s *System) recencyScore(delta int) float64 {
	if delta < 0 {
		delta = 0
	}
	return s.cfg.RecencyMax * math.Exp(-float64(delta)/s.cfg.RecencyScale)
}

// topicScore is s_topic: topic_weight × match for the best-matching anchor
// when the match exceeds topic_match_min, topic_penalty otherwise; zero when
// no anchor was detected (same table).
func (s *System) topicScore(anchors []rules.Anchor, n *Node) float64 {
	if len(anchors) == 0 {
		return 0
	}
	best := 0.0
	for _, a := range anchors {
		if m := topicMatch(a, n.topic); m > best {
			best = m
		}
	}
	if best > s.cfg.TopicMatchMin {
		return s.cfg.TopicWeight * best
	}
	return s.cfg.TopicPenalty
}

// topicCandidates returns up to k nodes whose topic terms match anchor a,
// best match first, newest first among equals (topic-anchor candidates:
// "Up to 12 additional candidates per detected topic anchor").
func (s *System) topicCandidates(a rules.Anchor, k int) []int {
	if k <= 0 {
		return nil
	}
	seen := map[int]bool{}
	type cm struct {
		seq int
		m   float64
	}
	var cs []cm
	for _, t := range a.Terms {
		for _, seq := range s.topicIdx[t] {
			if seen[seq] {
				continue
			}
			seen[seq] = true
			if m := topicMatch(a, s.forest.Nodes[seq].topic); m > 0 {
				cs = append(cs, cm{seq, m})
			}
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].m != cs[j].m {
			return cs[i].m > cs[j].m
		}
		return cs[i].seq > cs[j].seq
	})
	out := make([]int, 0, k)
	for _, c := range cs {
		if len(out) == k {
			break
		}
		out = append(out, c.seq)
	}
	return out
}

// entityCandidates returns up to k nodes (newest first) that mention an
// entity of text (the entity index of keyword recall).
func (s *System) entityCandidates(text string, k int) []int {
	seen := map[int]bool{}
	var out []int
	for _, e := range rules.Entities(text, 8) {
		seqs := s.entityIdx[rules.NormEntity(e)]
		if len(seqs) > 0 && float64(len(seqs)) > s.cfg.KeywordMaxDF*float64(s.forest.Len()) && s.forest.Len() >= 5 {
			continue // a ubiquitous entity routes nowhere
		}
		for i := len(seqs) - 1; i >= 0; i-- {
			if !seen[seqs[i]] {
				seen[seqs[i]] = true
				out = append(out, seqs[i])
			}
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(out)))
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// knownAnchors drops "named" anchors ("the Baltic Summit") that match no
// committed trajectory: a capitalised noun phrase is a topic anchor only
// when it names a known topic; otherwise it is a new value, not a
// reference. Possessive, quoted and return anchors are explicit and stay.
func (s *System) knownAnchors(as []rules.Anchor) []rules.Anchor {
	var out []rules.Anchor
	for _, a := range as {
		if a.Kind == "named" {
			known := false
			for _, seq := range s.topicCandidates(a, 1) {
				known = topicMatch(a, s.forest.Nodes[seq].topic) > s.cfg.TopicMatchMin
			}
			if !known {
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// temporalStop are words of a temporal-return cue that say nothing about
// the topic.
var temporalStop = sync.OnceValue(func() rules.TermSet {
	return rules.NewTermSet(rules.Terms("earlier today yesterday week month time ago discuss discussed talked remember mention mentioned chat conversation morning night"))
})

// resolveTemporal picks, within the cue's time window, the node that shares
// the most informative terms with the cue's topic (or with the rest of the
// input), newest first among equals. No window node with an overlap: no
// fast path.
func (s *System) resolveTemporal(tc rules.TemporalCue, input string) (int, bool) {
	window := s.forest.Window(tc.From, tc.To)
	if len(window) == 0 {
		return -1, false
	}
	want := tc.Topic
	if want == "" {
		want = input
	}
	var terms []string
	for _, t := range s.informativeTerms(rules.Terms(want)) {
		if !temporalStop().Has(t) {
			terms = append(terms, t)
		}
	}
	best, bestN := -1, 0
	for _, seq := range window {
		n := s.forest.Nodes[seq]
		k := 0
		for _, t := range terms {
			if n.keyTerms.has(t) || n.topic.has(t) {
				k++
			}
		}
		if k > bestN || (k == bestN && k > 0 && seq > best) {
			best, bestN = seq, k
		}
	}
	return best, bestN > 0
}

// cachedDecision returns the decision made at the last Recall for the same
// text and time against the current forest, if any.
func (s *System) cachedDecision(text string, t time.Time) (*Decision, bool) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	d, ok := s.locCache[s.locKey(text, t)]
	return d, ok
}

func (s *System) storeDecision(text string, t time.Time, d *Decision) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if len(s.locCache) > 256 {
		s.locCache = map[string]*Decision{}
	}
	s.locCache[s.locKey(text, t)] = d
}

// locKey identifies a decision: the same text at the same time against the
// same committed forest.
func (s *System) locKey(text string, t time.Time) string {
	return strconv.Itoa(s.forest.Len()) + "\x00" + strconv.FormatInt(t.UnixNano(), 10) + "\x00" + strings.TrimSpace(text)
}

// trace converts a decision to memory.Trace's form.
func (s *System) traceOf(d *Decision) *memory.Trace {
	tr := &memory.Trace{Localized: true, Path: d.Path, Rules: d.Rules}
	if d.Parent >= 0 {
		tr.Parent = s.forest.Nodes[d.Parent].ID()
	}
	for _, c := range d.Candidates {
		tr.Candidates = append(tr.Candidates, memory.Candidate{Node: s.forest.Nodes[c.Seq].ID(), Score: c.Total(),
			Raw: c.Raw, Prob: c.Prob, CE: c.CE, Key: c.Key, Rec: c.Rec, Topic: c.Topic})
	}
	return tr
}

// topicMatch is the share of an anchor's weighted terms found in a
// candidate's topic terms, in [0,1] (the "topic-match score" of Table
// "Reference implementation settings").
func topicMatch(a rules.Anchor, topic termList) float64 {
	var hit, all float64
	for i, t := range a.Terms {
		all += a.Weights[i]
		if topic.has(t) {
			hit += a.Weights[i]
		}
	}
	if all == 0 {
		return 0
	}
	return hit / all
}
