package branchmemeval

import (
	"fmt"
	"strings"
	"time"
)

// The planner (appendix B.2, "Structural planning"): branches, slots,
// updates, artifacts, bridges, question positions, gold answers and
// confounders, before any text exists.

// Act kinds, as recorded in the turn annotations.
const (
	actIntro     = "intro"
	actSet       = "set"
	actUpdate    = "update"
	actList      = "list"
	actLink      = "link"
	actFiller    = "filler"
	actSmalltalk = "smalltalk"
	actResume    = "resume"
	actQuestion  = "question"
)

type kv struct{ k, v string }

type branchPlan struct {
	id     string
	dom    *domain
	anchor string // "" for the user's own agenda
	rel    string
	ctx    []kv
	twin   *branchPlan
	slots  []*slotPlan
	list   *listPlan
	queue  []*act
	// started is set once the branch's intro has been scheduled.
	started bool
}

type slotPlan struct {
	spec  *slotSpec
	value string // the value first set
	// latest is the value after the update (B2), else "".
	latest  string
	setAct  *act
	updAct  *act
	inQuest bool // used by a question (as gold or confounder)
}

type listPlan struct {
	spec  *listSpec
	items []listItem
	act   *act
}

type listItem struct{ name, desc string }

// linkFact is a bridge turn: an event that carries a link value (source
// or decoy), or a target-branch mapping from a link value to an answer.
type linkFact struct {
	event  *eventPlan
	target *bridgeTarget
	link   string
	value  string
}

type eventPlan struct {
	spec *sourceEvent
	br   *branchPlan
	desc string // rendered description (first person)
	vars []kv
	link string
}

type act struct {
	kind     string
	br       *branchPlan
	slot     *slotPlan
	list     *listPlan
	fact     *linkFact
	q        *questionPlan
	optional bool
	// set by the scheduler
	turn, seg int
	emitted   bool
}

type questionPlan struct {
	id     string
	dim    string
	family string
	br     *branchPlan
	gold   string
	conf   string
	slot   *slotPlan
	// evid are the acts that support the gold; confAct introduces the
	// confounder in confBr. deps must all be emitted, in earlier segments,
	// before the question is asked.
	evid     []*act
	confAct  *act
	confBr   *branchPlan
	deps     []*act
	link     string
	linkActs []*act
	anchor   string
	ordinal  int
	// question text and canonical answer (filled by the planner: questions
	// come from the plan, never from the verbalizer)
	text, answer string
}

type sessionPlan struct {
	id       string
	family   string
	dims     []string
	turns    int
	start    time.Time
	branches []*branchPlan
	qs       []*questionPlan
	reg      *registry
	dates    dateGen
	// acts in schedule order, one per turn
	order []*act
	times []time.Time
}

// short and other branch variables.
func (b *branchPlan) short() string {
	if b.anchor != "" {
		return b.anchor + "'s " + b.dom.noun
	}
	return "the " + b.dom.noun
}

func (b *branchPlan) poss() string {
	if b.anchor != "" {
		return b.anchor + "'s"
	}
	return "my"
}

func (b *branchPlan) ctxVar(name string) (string, bool) {
	for _, c := range b.ctx {
		if c.k == name {
			return c.v, true
		}
	}
	return "", false
}

// vars resolves branch placeholders; extra come first.
func (b *branchPlan) vars(r *rng, extra ...kv) vars {
	var self vars
	self = func(name string) (string, bool) {
		for _, e := range extra {
			if e.k == name {
				return e.v, true
			}
		}
		switch name {
		case "short":
			return b.short(), true
		case "poss":
			return b.poss(), true
		case "title":
			return r.expandRaw(b.dom.title, self), true
		case "anchor":
			return b.anchor, true
		case "rel":
			return b.rel, true
		case "noun":
			return b.dom.noun, true
		case "ref":
			if b.anchor != "" {
				return pick(r, []string{b.short(), r.expandRaw(b.dom.title, self)}), true
			}
			return r.expandRaw(pick(r, b.dom.alias), self), true
		}
		return b.ctxVar(name)
	}
	return self
}

func (b *branchPlan) title(r *rng) string { return r.expandRaw(b.dom.title, b.vars(r)) }

func (b *branchPlan) slot(key string) *slotPlan {
	for _, s := range b.slots {
		if s.spec.key == key {
			return s
		}
	}
	return nil
}

func slotSpecByKey(d *domain, key string) *slotSpec {
	for i := range d.slots {
		if d.slots[i].key == key {
			return &d.slots[i]
		}
	}
	return nil
}

// planSession builds one session's structure; it returns an error when the
// random choices lead to an infeasible plan, and the caller retries with
// the next stream.
func planSession(r *rng, id, family string, dims []string, turns int, start time.Time) (*sessionPlan, error) {
	sp := &sessionPlan{id: id, family: family, dims: dims, turns: turns, start: start, reg: &registry{}, dates: dateGen{start}}
	need := map[string]int{}
	for _, d := range dims {
		need[d]++
	}
	nb := r.between(3, 4)
	// Pick domains.
	var doms []*domain
	order := shuffled(r, domains)
	switch {
	case need[DimTwin] > 0:
		tw := order[0]
		doms = append(doms, tw, tw)
		for _, d := range order[1:] {
			if len(doms) >= nb {
				break
			}
			doms = append(doms, d)
		}
	case need[DimBridge] > 0:
		nb = 4
		targets := shuffled(r, bridgeTargets)
		var chosen []bridgeTarget
		for _, t := range targets {
			if len(chosen) == 2 {
				break
			}
			if len(chosen) == 1 && (chosen[0].domain == t.domain || chosen[0].link == t.link && r.chance(0.7)) {
				continue
			}
			chosen = append(chosen, t)
		}
		for _, t := range chosen {
			doms = append(doms, domainByKey(t.domain))
		}
		for _, d := range order {
			if len(doms) >= nb {
				break
			}
			if !containsDomain(doms, d) {
				doms = append(doms, d)
			}
		}
	default:
		doms = order[:nb]
	}
	// Shuffle so the twin or target branch is not always b1.
	doms = shuffled(r, doms)
	usedAnchors := map[string]bool{}
	for i, d := range doms {
		b := &branchPlan{id: fmt.Sprintf("b%d", i+1), dom: d}
		sp.branches = append(sp.branches, b)
	}
	// Twins: the two branches of the same domain.
	for i, b := range sp.branches {
		for _, c := range sp.branches[i+1:] {
			if b.dom == c.dom {
				b.twin, c.twin = c, b
			}
		}
	}
	for _, b := range sp.branches {
		if b.twin != nil || r.chance(0.3) {
			for {
				a := pick(r, anchorNames)
				if !usedAnchors[a] && sp.reg.ok(a) {
					usedAnchors[a] = true
					sp.reg.add(a)
					b.anchor = a
					break
				}
			}
			b.rel = pick(r, relations)
		}
	}
	// Context values.
	for _, b := range sp.branches {
		for _, c := range b.dom.ctx {
			b.ctx = append(b.ctx, kv{c.name, sp.reg.draw(r, poolGen(c.pool, sp.dates))})
		}
	}
	// Lists: every branch in artifact sessions, now and then elsewhere.
	for _, b := range sp.branches {
		if need[DimArtifact] > 0 || r.chance(0.2) {
			if err := sp.addList(r, b); err != nil {
				return nil, err
			}
		}
	}
	// Slots: 3–5 per branch; twins set the same keys.
	for _, b := range sp.branches {
		if b.twin != nil && b.twin.slots != nil {
			for _, s := range b.twin.slots {
				sp.addSlot(r, b, s.spec)
			}
			continue
		}
		n := r.between(3, 5)
		if b.twin != nil {
			n = r.between(4, 5)
		}
		for _, i := range r.Perm(len(b.dom.slots))[:min(n, len(b.dom.slots))] {
			sp.addSlot(r, b, &b.dom.slots[i])
		}
	}
	// Questions, in a fixed dimension order so that the harder-to-place
	// bridges and twins claim their slots first.
	qn := 0
	for _, dim := range []string{DimBridge, DimTwin, DimArtifact, DimLatest, DimResume} {
		for i := 0; i < need[dim]; i++ {
			qn++
			q := &questionPlan{id: fmt.Sprintf("%s-q%d", id, qn), dim: dim, family: family}
			var err error
			switch dim {
			case DimResume:
				err = sp.planResume(r, q)
			case DimLatest:
				err = sp.planLatest(r, q)
			case DimArtifact:
				err = sp.planArtifact(r, q)
			case DimBridge:
				err = sp.planBridge(r, q)
			case DimTwin:
				err = sp.planTwin(r, q)
			}
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", q.id, dim, err)
			}
			sp.qs = append(sp.qs, q)
		}
	}
	sp.buildQueues(r)
	if err := sp.schedule(r); err != nil {
		return nil, err
	}
	// Question IDs follow dialogue order.
	n := 0
	for _, a := range sp.order {
		if a.kind == actQuestion {
			n++
			a.q.id = fmt.Sprintf("%s-q%02d", id, n)
		}
	}
	sp.stampTimes(r)
	return sp, nil
}

func containsDomain(ds []*domain, d *domain) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

func (sp *sessionPlan) addSlot(r *rng, b *branchPlan, spec *slotSpec) *slotPlan {
	if s := b.slot(spec.key); s != nil {
		return s
	}
	s := &slotPlan{spec: spec, value: sp.reg.draw(r, poolGen(spec.pool, sp.dates))}
	s.setAct = &act{kind: actSet, br: b, slot: s}
	b.slots = append(b.slots, s)
	return s
}

func (sp *sessionPlan) addList(r *rng, b *branchPlan) error {
	spec := &b.dom.list
	n := r.between(4, 6)
	var items []listItem
	for _, i := range r.Perm(len(spec.items)) {
		name, desc, _ := strings.Cut(spec.items[i], " — ")
		if !sp.reg.ok(name) {
			continue
		}
		sp.reg.add(name)
		items = append(items, listItem{name, desc})
		if len(items) == n {
			break
		}
	}
	if len(items) < 4 {
		return fmt.Errorf("branch %s: list pool too small", b.id)
	}
	if spec.kind == "step" {
		// Steps keep the pool's natural order.
		sortByPool(items, spec.items)
	}
	b.list = &listPlan{spec: spec, items: items}
	b.list.act = &act{kind: actList, br: b, list: b.list}
	return nil
}

func sortByPool(items []listItem, pool []string) {
	pos := func(name string) int {
		for i, p := range pool {
			if strings.HasPrefix(p, name+" — ") {
				return i
			}
		}
		return len(pool)
	}
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && pos(items[j].name) < pos(items[j-1].name); j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
}

// freeSlots lists b's slots that no question uses yet.
func freeSlots(b *branchPlan, pred func(*slotPlan) bool) []*slotPlan {
	var out []*slotPlan
	for _, s := range b.slots {
		if !s.inQuest && (pred == nil || pred(s)) {
			out = append(out, s)
		}
	}
	return out
}

// planResume (B1): an underspecified follow-up that is itself the return to
// an earlier branch, asked right after another branch's turns (the
// schedule opens a segment with it, no resume turn before it). It names the
// branch's topic, never the value; the slot is asked for by its generic
// noun. The confounder is the same kind of slot in another branch (the
// twin's in twin sessions).
func (sp *sessionPlan) planResume(r *rng, q *questionPlan) error {
	type cand struct {
		b, o *branchPlan
		s, c *slotPlan
	}
	var cands []cand
	twins := false
	for _, b := range sp.branches {
		twins = twins || b.twin != nil
	}
	for _, b := range sp.branches {
		if twins && b.twin == nil {
			continue // twin sessions resume a twin (appendix B.1: "Twin, B5 (+B1)")
		}
		for _, s := range freeSlots(b, func(s *slotPlan) bool { return s.latest == "" }) {
			_, generic := genericNoun[s.spec.key]
			for _, o := range sp.branches {
				if o == b {
					continue
				}
				if b.twin != nil && o != b.twin {
					continue // in twin sessions the trap is the twin
				}
				if b.twin == nil && !generic {
					continue
				}
				c := o.slot(s.spec.key)
				if c == nil || c.latest != "" || c.inQuest {
					continue
				}
				cands = append(cands, cand{b, o, s, c})
			}
		}
	}
	if len(cands) == 0 {
		// Add the missing slot to another branch so a shared key exists.
		for _, b := range shuffled(r, sp.branches) {
			for _, s := range freeSlots(b, func(s *slotPlan) bool { return s.latest == "" }) {
				if _, ok := genericNoun[s.spec.key]; !ok || b.twin != nil {
					continue
				}
				for _, o := range sp.branches {
					if o == b || o.slot(s.spec.key) != nil {
						continue
					}
					if spec := slotSpecByKey(o.dom, s.spec.key); spec != nil {
						cands = append(cands, cand{b, o, s, sp.addSlot(r, o, spec)})
						break
					}
				}
				if len(cands) > 0 {
					break
				}
			}
			if len(cands) > 0 {
				break
			}
		}
	}
	if len(cands) == 0 {
		return fmt.Errorf("no shared slot for a resume question")
	}
	c := pick(r, cands)
	c.s.inQuest, c.c.inQuest = true, true
	q.br, q.slot, q.gold = c.b, c.s, c.s.value
	q.conf, q.confBr, q.confAct = c.c.value, c.o, c.c.setAct
	q.evid = []*act{c.s.setAct}
	q.deps = []*act{c.s.setAct, c.c.setAct}
	asks := askResume[c.s.spec.key]
	if asks == nil {
		asks = askResume[""] // a twin-only slot: the label is the noun
	}
	q.phrase(r, asks, answerSlot)
	q.text = r.expand(pick(r, returnOpen), q.br.vars(r)) + " " + lowerInitial(q.text)
	return nil
}

// lowerInitial lower-cases s's first letter when it opens an ordinary word
// ("What was" → "what was"), so that it can follow a return cue.
func lowerInitial(s string) string {
	if len(s) > 1 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'a' && s[1] <= 'z' {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}

// phrase renders a slot question and its canonical answer from the plan.
func (q *questionPlan) phrase(r *rng, asks, answers []string) {
	v := q.br.vars(r, kv{"label", q.slot.spec.label}, kv{"v", q.gold})
	q.text = r.expand(pick(r, asks), v)
	q.answer = r.expand(pick(r, answers), v)
}

// planLatest (B2): a slot set early and updated later in the same branch.
func (sp *sessionPlan) planLatest(r *rng, q *questionPlan) error {
	var cands []*slotPlan
	var owners []*branchPlan
	for _, b := range sp.branches {
		for _, s := range freeSlots(b, func(s *slotPlan) bool { return s.spec.upd }) {
			cands = append(cands, s)
			owners = append(owners, b)
		}
	}
	if len(cands) == 0 {
		// Add an updatable slot somewhere.
		for _, b := range shuffled(r, sp.branches) {
			for i := range b.dom.slots {
				spec := &b.dom.slots[i]
				if spec.upd && b.slot(spec.key) == nil {
					cands = append(cands, sp.addSlot(r, b, spec))
					owners = append(owners, b)
					break
				}
			}
			if len(cands) > 0 {
				break
			}
		}
	}
	if len(cands) == 0 {
		return fmt.Errorf("no updatable slot")
	}
	i := r.IntN(len(cands))
	s, b := cands[i], owners[i]
	s.inQuest = true
	s.latest = sp.reg.draw(r, poolGen(s.spec.pool, sp.dates))
	s.updAct = &act{kind: actUpdate, br: b, slot: s}
	q.br, q.slot, q.gold, q.conf = b, s, s.latest, s.value
	q.confBr, q.confAct = b, s.setAct
	q.evid = []*act{s.updAct}
	q.deps = []*act{s.setAct, s.updAct}
	q.phrase(r, askLatest, answerLatest)
	return nil
}

// planArtifact (B3): an item of an assistant list by ordinal; the confounder
// is the same ordinal in another branch's list.
func (sp *sessionPlan) planArtifact(r *rng, q *questionPlan) error {
	lists := sp.branchesWhere(func(b *branchPlan) bool { return b.list != nil })
	if len(lists) < 2 {
		return fmt.Errorf("fewer than two lists")
	}
	// Prefer a list no question has used yet.
	used := map[*branchPlan]int{}
	for _, o := range sp.qs {
		if o.dim == DimArtifact {
			used[o.br]++
		}
	}
	b := lists[0]
	for _, c := range shuffled(r, lists) {
		if used[c] < used[b] || (used[c] == used[b] && r.chance(0.5)) {
			b = c
		}
	}
	o := pick(r, lists)
	for o == b {
		o = pick(r, lists)
	}
	maxOrd := min(len(b.list.items), len(o.list.items))
	ord := r.between(1, maxOrd)
	for _, prev := range sp.qs {
		if prev.br == b && prev.ordinal == ord {
			ord = ord%maxOrd + 1
		}
	}
	q.br, q.ordinal = b, ord
	q.gold, q.conf = b.list.items[ord-1].name, o.list.items[ord-1].name
	q.confBr, q.confAct = o, o.list.act
	q.evid = []*act{b.list.act}
	q.deps = []*act{b.list.act, o.list.act}
	v := b.vars(r, kv{"ord", ordinals[ord]}, kv{"num", ordinalNums[ord]}, kv{"n", fmt.Sprint(ord)}, kv{"v", q.gold})
	q.text = r.expand(pick(r, askArtifact), v)
	q.answer = r.expand(pick(r, answerArtifact), v)
	return nil
}

func (sp *sessionPlan) branchesWhere(pred func(*branchPlan) bool) []*branchPlan {
	var out []*branchPlan
	for _, b := range sp.branches {
		if pred(b) {
			out = append(out, b)
		}
	}
	return out
}

// planTwin (B5): the question names one twin's anchor; the confounder is
// the other twin's value for the same slot.
func (sp *sessionPlan) planTwin(r *rng, q *questionPlan) error {
	twins := sp.branchesWhere(func(b *branchPlan) bool { return b.twin != nil })
	if len(twins) != 2 {
		return fmt.Errorf("no twin branches")
	}
	// Alternate between the twins.
	n := 0
	for _, o := range sp.qs {
		if o.dim == DimTwin {
			n++
		}
	}
	b := twins[(n+r.IntN(2))%2]
	if n == 1 {
		for _, o := range sp.qs {
			if o.dim == DimTwin {
				b = o.br.twin
			}
		}
	}
	var cands []*slotPlan
	for _, s := range freeSlots(b, func(s *slotPlan) bool { return s.latest == "" }) {
		if c := b.twin.slot(s.spec.key); c != nil && !c.inQuest && c.latest == "" {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return fmt.Errorf("no free twin slot")
	}
	s := pick(r, cands)
	c := b.twin.slot(s.spec.key)
	s.inQuest, c.inQuest = true, true
	q.br, q.slot, q.gold, q.conf = b, s, s.value, c.value
	q.confBr, q.confAct = b.twin, c.setAct
	q.anchor = b.anchor
	q.evid = []*act{s.setAct}
	q.deps = []*act{s.setAct, c.setAct}
	q.phrase(r, askTwin, answerSlot)
	return nil
}

// planBridge (B4): see bridges.go.
func (sp *sessionPlan) planBridge(r *rng, q *questionPlan) error {
	// Target branches are those whose domain hosts a bridge target not yet
	// used by another question.
	usedT := map[*branchPlan]bool{}
	for _, o := range sp.qs {
		if o.dim == DimBridge {
			usedT[o.br] = true
		}
	}
	for _, t := range shuffled(r, bridgeTargets) {
		for _, tb := range sp.branches {
			if tb.dom.key != t.domain || usedT[tb] {
				continue
			}
			// Sources: other branches with an event of this link kind.
			type src struct {
				b *branchPlan
				e *sourceEvent
			}
			var srcs []src
			for _, b := range shuffled(r, sp.branches) {
				if b == tb {
					continue
				}
				for i := range sourceEvents {
					e := &sourceEvents[i]
					if e.link == t.link && e.dom == b.dom.key && !sp.eventUsed(b, e) {
						srcs = append(srcs, src{b, e})
						break
					}
				}
			}
			if len(srcs) < 2 {
				continue
			}
			t := t
			// A plain slot with the target's label would be a third,
			// unplanned answer to the question.
			for i, s := range tb.slots {
				if s.spec.key == t.label && !s.inQuest {
					tb.slots = append(tb.slots[:i], tb.slots[i+1:]...)
					break
				}
			}
			ev := sp.newEvent(r, srcs[0].b, srcs[0].e)
			de := sp.newEvent(r, srcs[1].b, srcs[1].e)
			gold := sp.reg.draw(r, poolGen(t.pool, sp.dates))
			conf := sp.reg.draw(r, poolGen(t.pool, sp.dates))
			evAct := &act{kind: actLink, br: ev.br, fact: &linkFact{event: ev, link: ev.link}}
			deAct := &act{kind: actLink, br: de.br, fact: &linkFact{event: de, link: de.link}}
			gAct := &act{kind: actLink, br: tb, fact: &linkFact{target: &t, link: ev.link, value: gold}}
			cAct := &act{kind: actLink, br: tb, fact: &linkFact{target: &t, link: de.link, value: conf}}
			ev.br.queue = append(ev.br.queue, evAct)
			de.br.queue = append(de.br.queue, deAct)
			tb.queue = append(tb.queue, gAct, cAct)
			q.br, q.gold, q.conf = tb, gold, conf
			q.confBr, q.confAct = tb, cAct
			q.link = ev.link
			q.linkActs = []*act{evAct, gAct}
			q.evid = []*act{evAct, gAct}
			q.deps = []*act{evAct, gAct, deAct, cAct}
			v := tb.vars(r, kv{"e", ev.desc}, kv{"L", ev.link}, kv{"v", gold})
			q.text = r.expand(pick(r, t.ask), v)
			q.answer = r.expand(pick(r, t.answer), tb.vars(r, kv{"e", youForm(ev.desc)}, kv{"L", ev.link}, kv{"v", gold}))
			return nil
		}
	}
	return fmt.Errorf("no feasible bridge")
}

func (sp *sessionPlan) eventUsed(b *branchPlan, e *sourceEvent) bool {
	for _, a := range b.queue {
		if a.fact != nil && a.fact.event != nil && a.fact.event.spec == e {
			return true
		}
	}
	return false
}

func (sp *sessionPlan) newEvent(r *rng, b *branchPlan, e *sourceEvent) *eventPlan {
	ev := &eventPlan{spec: e, br: b}
	for _, c := range e.ctx {
		ev.vars = append(ev.vars, kv{c.name, sp.reg.draw(r, poolGen(c.pool, sp.dates))})
	}
	pool := map[string]string{"city": "city", "date": "date", "person": "person"}[e.link]
	ev.link = sp.reg.draw(r, poolGen(pool, sp.dates))
	ev.desc = r.expandRaw(e.desc, b.vars(r, ev.vars...))
	return ev
}

// youForm turns the user's "my X" into the assistant's "your X".
func youForm(s string) string {
	for _, p := range [][2]string{{"my ", "your "}, {"our ", "your "}} {
		if strings.HasPrefix(s, p[0]) {
			return p[1] + s[len(p[0]):]
		}
	}
	return s
}
