package arbormem

import (
	"fmt"
	"math"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
)

// The offline profile's routing (arbormem.routing; docs/FIDELITY.md): rules
// that the paper's cascade (§4.2) does not have, on when the memory
// operations are rule-based. The paper's cascade attaches an input only on
// an explicit cue or a score above τ; a lexical reranker's scores are too
// flat for τ alone to tell a new topic from a continuation, so offline an
// input with no sign of leaving the active state continues it, a return cue
// ("back to the garden plan") picks a trajectory other than the active one,
// an announced new agenda starts a root, and a trajectory resumes at its
// latest state. Each rule is read only where localize calls it.

// routeCues are the offline routing's reading of one input: its return cue,
// found at once, and its new-topic cue, the dearer one, read only where its
// answer can change the decision (most inputs are decided before: a pause
// or session change rules out the implicit continuation, a scored input
// without a parent stays a root).
type routeCues struct {
	text                       string
	isReturn                   bool
	newTopicRead, newTopicSaid bool
}

func readRouteCues(text string) *routeCues {
	_, isReturn := rules.DetectResume(text)
	return &routeCues{text: text, isReturn: isReturn}
}

// newTopic is rules.NewTopicCue of the input, read once.
func (c *routeCues) newTopic() bool {
	if !c.newTopicRead {
		c.newTopicRead, c.newTopicSaid = true, rules.NewTopicCue(c.text)
	}
	return c.newTopicSaid
}

// continuationGuard reports whether an input with a continuation cue names
// a topic or an entity of another trajectory than the active one, so that
// the lexical cue must not attach it to the active state.
func (s *System) continuationGuard(anchors []rules.Anchor, text string) bool {
	return s.anchorConflict(anchors, s.forest.Active) || s.entityConflict(text, s.forest.Active)
}

// implicitContinuation reports whether an input with no sign of leaving the
// active state (no return or new-topic cue, no foreign anchor, no pause or
// session change) continues it.
func (s *System) implicitContinuation(c *routeCues, t time.Time, session string, query bool, anchors []rules.Anchor) bool {
	if eagerRoutingCues {
		return !c.isReturn && !c.newTopic() && s.sameConversation(t, session, query) && !s.anchorConflict(anchors, s.forest.Active)
	}
	return !c.isReturn && s.sameConversation(t, session, query) && !s.anchorConflict(anchors, s.forest.Active) && !c.newTopic()
}

// reroute applies the offline routing to a scored decision: a return cue
// takes the best supported candidate outside the active trajectory; an
// announced new agenda that names no known trajectory starts a root even
// when it shares vocabulary with a twin (an input already without a parent
// need not ask); a chosen trajectory resumes at its most recent state
// rather than forking at an older node whose summary happens to match.
func (s *System) reroute(d *Decision, c *routeCues) {
	f := s.forest
	newRoot := func() bool {
		if eagerRoutingCues {
			return c.newTopic() && !anyAnchorMatch(d.Candidates)
		}
		return d.Parent >= 0 && !anyAnchorMatch(d.Candidates) && c.newTopic()
	}
	switch {
	case c.isReturn && (d.Parent < 0 || f.Nodes[d.Parent].Root == f.Nodes[f.Active].Root):
		if seq, ok := s.returnTarget(d.Candidates, f.Nodes[f.Active].Root); ok {
			d.Parent, d.Path = seq, "return"
			d.Rules = append(d.Rules, ruleReturn)
		}
	case newRoot():
		if d.Parent >= 0 {
			// Named only where it changed the choice: τ may have made a
			// new root already.
			d.Rules = append(d.Rules, ruleNewTopic)
		}
		d.Parent = -1
	}
	if d.Parent >= 0 {
		if latest := s.rootLatest[f.Nodes[d.Parent].Root]; latest != d.Parent {
			d.Rules = append(d.Rules, fmt.Sprintf("%s (%s, not %s)", ruleResumeLatest, f.Nodes[latest].ID(), f.Nodes[d.Parent].ID()))
			d.Parent = latest
		}
	}
}

// eagerRoutingCues makes localize read the return and new-topic cues of
// every input and apply the offline rules as written before it read them
// only where they can change its decision: the reference
// FuzzLocalizeLazyCues compares with. Only tests set it.
var eagerRoutingCues = false

// implicitGap is the longest pause after which the offline routing still
// assumes the conversation continues the active state.
const implicitGap = time.Hour

// sameConversation reports whether an input at time t (in session, if
// known) follows the active node without a pause or a session change. A
// question (query) must come strictly after the active node: benchmarks that
// pose their questions after the whole conversation (LoCoMo dates them at
// the last session's start, LongMemEval days later, some not at all) are not
// continuing any state, while an in-dialogue question (BranchMemEval) is.
func (s *System) sameConversation(t time.Time, session string, query bool) bool {
	a := s.forest.Nodes[s.forest.Active]
	if session != "" && a.Interaction.Session != "" && session != a.Interaction.Session {
		return false
	}
	if t.IsZero() || a.Time().IsZero() {
		return !query
	}
	gap := t.Sub(a.Time())
	if query {
		return gap > 0 && gap <= implicitGap
	}
	return gap >= 0 && gap <= implicitGap
}

// returnTarget picks, for an input with a return cue, the best candidate
// outside the active trajectory by s_ce + s_key + s_rec + max(s_topic, 0),
// provided it has lexical or topical support.
func (s *System) returnTarget(cands []Scored, activeRoot int) (int, bool) {
	best, bestScore := -1, 0.0
	for _, c := range cands {
		if s.forest.Nodes[c.Seq].Root == activeRoot {
			continue
		}
		support := c.CE + c.Key + math.Max(c.Topic, 0)
		if support <= 0 {
			continue
		}
		if sc := support + c.Rec; best < 0 || sc > bestScore {
			best, bestScore = c.Seq, sc
		}
	}
	return best, best >= 0
}

func anyAnchorMatch(cands []Scored) bool {
	for _, c := range cands {
		if c.Topic > 0 {
			return true
		}
	}
	return false
}

// anchorConflict reports whether an explicit anchor points away from the
// active state's trajectory.
func (s *System) anchorConflict(anchors []rules.Anchor, active int) bool {
	if active < 0 {
		return true
	}
	n := s.forest.Nodes[active]
	for _, a := range anchors {
		if topicMatch(a, n.topic) <= s.cfg.TopicMatchMin {
			return true
		}
	}
	return false
}

// entityConflict reports whether the input names an entity that is known
// only from other trajectories than the active one.
func (s *System) entityConflict(text string, active int) bool {
	if active < 0 {
		return true
	}
	root := s.forest.Nodes[active].Root
	for _, e := range rules.Entities(text, 8) {
		if !rules.IsNameLike(e) {
			continue
		}
		seqs := s.entityIdx[rules.NormEntity(e)]
		if len(seqs) == 0 {
			continue
		}
		inActive := false
		for _, seq := range seqs {
			if s.forest.Nodes[seq].Root == root {
				inActive = true
				break
			}
		}
		if !inActive {
			return true
		}
	}
	return false
}
