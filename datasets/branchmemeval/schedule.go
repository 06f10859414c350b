package branchmemeval

import (
	"fmt"
	"time"
)

// buildQueues orders each branch's acts: its intro, then content in random
// order (an update always after the value it replaces), questions after
// their same-branch evidence, and optional filler and small talk in between.
func (sp *sessionPlan) buildQueues(r *rng) {
	required := 0
	for _, b := range sp.branches {
		var content []*act
		content = append(content, b.queue...) // bridge facts placed by planBridge
		for _, s := range b.slots {
			content = append(content, s.setAct)
			if s.updAct != nil {
				content = append(content, s.updAct)
			}
		}
		if b.list != nil {
			content = append(content, b.list.act)
		}
		// Question evidence tends to come early so that questions can be
		// asked throughout the session, not only at its end.
		content = shuffled(r, content)
		isDep := map[*act]bool{}
		for _, qp := range sp.qs {
			for _, d := range qp.deps {
				isDep[d] = true
			}
		}
		keys := make(map[*act]float64, len(content))
		for _, a := range content {
			keys[a] = r.Float64()
			if isDep[a] {
				keys[a] *= 0.5
			}
		}
		for i := 1; i < len(content); i++ {
			for j := i; j > 0 && keys[content[j]] < keys[content[j-1]]; j-- {
				content[j], content[j-1] = content[j-1], content[j]
			}
		}
		// Updates go after their set with at least one act in between
		// when possible.
		for _, s := range b.slots {
			if s.updAct == nil {
				continue
			}
			si, ui := indexOf(content, s.setAct), indexOf(content, s.updAct)
			if ui < si {
				content[si], content[ui] = content[ui], content[si]
				si, ui = ui, si
			}
			if ui == si+1 && ui+1 < len(content) {
				content[ui], content[ui+1] = content[ui+1], content[ui]
			}
		}
		q := append([]*act{{kind: actIntro, br: b}}, content...)
		// Questions of this branch after their same-branch deps.
		for _, qp := range sp.qs {
			if qp.br != b {
				continue
			}
			at := 1
			for _, d := range qp.deps {
				if i := indexOf(q, d); i >= 0 && i+1 > at {
					at = i + 1
				}
			}
			at = min(at+r.between(0, 2), len(q))
			qa := &act{kind: actQuestion, br: b, q: qp}
			q = append(q[:at], append([]*act{qa}, q[at:]...)...)
		}
		b.queue = q
		required += len(q)
	}
	// Optional filler: what the turn budget leaves after required acts and
	// the resume turns that segments of about 3.5 turns need.
	segments := float64(sp.turns) / 3.5
	resumes := int(segments) - len(sp.branches)
	free := sp.turns - required - resumes
	for i := 0; i < free+2; i++ {
		b := pick(r, sp.branches)
		kind := actFiller
		if r.chance(0.15) {
			kind = actSmalltalk
		}
		at := r.between(1, len(b.queue))
		b.queue = append(b.queue[:at], append([]*act{{kind: kind, br: b, optional: true}}, b.queue[at:]...)...)
	}
}

func indexOf(xs []*act, a *act) int {
	for i, x := range xs {
		if x == a {
			return i
		}
	}
	return -1
}

// schedule interleaves the branch queues into exactly sp.turns turns made
// of segments of 2–5 consecutive turns of one branch. A B1 question is
// itself the return to its branch (paper Fig. 1 and appendix B.1, "Resume an
// earlier trajectory after intervening dialogue"): it opens a segment of its
// branch right after another branch's turns, with no resume turn before it.
// Any other segment of a branch already started opens with a resume turn,
// and the other questions are the second turn of a segment, right after
// that resume. No question shares a segment with its evidence.
func (sp *sessionPlan) schedule(r *rng) error {
	n := sp.turns
	var last *branchPlan
	seg := 0
	emit := func(a *act) {
		if a.kind == actSmalltalk && len(sp.order) > 0 && sp.order[len(sp.order)-1].kind == actSmalltalk {
			a.kind = actFiller // one aside at a time
		}
		a.turn, a.seg, a.emitted = len(sp.order), seg, true
		sp.order = append(sp.order, a)
	}
	for len(sp.order) < n {
		b := sp.pickBranch(r, last)
		if b == nil {
			return fmt.Errorf("no branch to schedule")
		}
		l := min(r.between(2, 5), n-len(sp.order))
		switch i := sp.returnQuestion(b, seg); {
		case !b.started:
			b.started = true
			emit(b.pop(0))
		case i >= 0:
			emit(b.pop(i))
		default:
			emit(&act{kind: actResume, br: b})
		}
		for k := 2; k <= l && len(sp.order) < n; k++ {
			a := sp.next(r, b, k, seg)
			if a == nil {
				break
			}
			emit(a)
		}
		last = b
		seg++
	}
	for _, b := range sp.branches {
		for _, a := range b.queue {
			if !a.optional {
				return fmt.Errorf("branch %s: %s act left unscheduled", b.id, a.kind)
			}
		}
	}
	return nil
}

func (b *branchPlan) pop(i int) *act {
	a := b.queue[i]
	b.queue = append(b.queue[:i], b.queue[i+1:]...)
	return a
}

// returnQuestion is the index in b's queue of a B1 question ready to open
// segment seg as the return to b, or -1.
func (sp *sessionPlan) returnQuestion(b *branchPlan, seg int) int {
	if !b.started {
		return -1
	}
	for i, a := range b.queue {
		if a.kind == actQuestion && a.q.dim == DimResume && sp.ready(a.q, seg) {
			return i
		}
	}
	return -1
}

// next picks the act for position k of the current segment of b, or nil to
// end the segment. B1 questions are never picked here: they open segments.
func (sp *sessionPlan) next(r *rng, b *branchPlan, k, seg int) *act {
	tight := sp.tight()
	for i := 0; i < len(b.queue); i++ {
		a := b.queue[i]
		switch {
		case a.kind == actQuestion && a.q.dim == DimResume:
			continue
		case a.kind == actQuestion:
			if k == 2 && sp.ready(a.q, seg) {
				return b.pop(i)
			}
			if i == 0 && k > 2 {
				return nil // keep the question for the next resume
			}
		case a.optional && tight:
			b.pop(i)
			i--
		default:
			return b.pop(i)
		}
	}
	if tight {
		return nil
	}
	kind := actFiller
	if r.chance(0.12) {
		kind = actSmalltalk
	}
	return &act{kind: kind, br: b, optional: true}
}

// ready reports whether all of q's dependencies were emitted in earlier
// segments.
func (sp *sessionPlan) ready(q *questionPlan, seg int) bool {
	for _, d := range q.deps {
		if !d.emitted || d.seg >= seg {
			return false
		}
	}
	return true
}

// tight reports whether the remaining turns are only just enough for the
// required acts and the resume turns their segments need.
func (sp *sessionPlan) tight() bool {
	need := 0
	for _, b := range sp.branches {
		content, qs := 0, 0
		for _, a := range b.queue {
			switch {
			case a.optional:
			case a.kind == actQuestion:
				qs++
			default:
				content++
			}
		}
		need += content + qs
		if b.started {
			need += max(qs, (content+2)/3)
		} else {
			need += qs
		}
	}
	return sp.remaining() <= need+1
}

func (sp *sessionPlan) remaining() int { return sp.turns - len(sp.order) }

// pickBranch chooses the next segment's branch: never the previous one;
// unstarted branches and branches with a question ready to ask are
// preferred, so questions spread through the session.
func (sp *sessionPlan) pickBranch(r *rng, last *branchPlan) *branchPlan {
	var cands []*branchPlan
	var weights []float64
	total := 0.0
	progress := float64(len(sp.order)) / float64(sp.turns)
	for _, b := range sp.branches {
		if b == last {
			continue
		}
		w := 0.5
		switch {
		case !b.started:
			w = 4
			if progress > 0.35 {
				w = 50
			}
		default:
			for _, a := range b.queue {
				if a.kind == actQuestion && sp.ready(a.q, 1<<30) {
					w = max(w, 5)
				} else if !a.optional && a.kind != actQuestion {
					w = max(w, 3)
				} else if a.optional {
					w = max(w, 1)
				}
			}
		}
		cands = append(cands, b)
		weights = append(weights, w)
		total += w
	}
	if len(cands) == 0 {
		return nil
	}
	x := r.Float64() * total
	for i, w := range weights {
		if x < w {
			return cands[i]
		}
		x -= w
	}
	return cands[len(cands)-1]
}

// stampTimes gives every turn a timestamp: a few minutes between turns of
// one segment, longer pauses between segments, and now and then a break of
// hours or an overnight gap, so a session spans hours or days.
func (sp *sessionPlan) stampTimes(r *rng) {
	t := sp.start
	sp.times = make([]time.Time, len(sp.order))
	for i, a := range sp.order {
		if i > 0 {
			if a.seg != sp.order[i-1].seg {
				switch {
				case r.chance(0.1):
					t = t.Add(time.Duration(r.between(10, 30)) * time.Hour)
				case r.chance(0.2):
					t = t.Add(time.Duration(r.between(60, 300)) * time.Minute)
				default:
					t = t.Add(time.Duration(r.between(4, 40)) * time.Minute)
				}
			} else {
				t = t.Add(time.Duration(r.between(1, 6))*time.Minute + time.Duration(r.IntN(60))*time.Second)
			}
		}
		sp.times[i] = t
	}
}
