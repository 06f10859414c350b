package branchmemeval

import (
	"fmt"
	"strings"
)

// The template verbalizer (appendix B.2, "Dialogue realization"): turns a
// planned act into a user message and an assistant reply. Planned values
// appear only in the sentences that carry them; everything else is drawn
// from decks of domain and general sentences so long replies vary.

// deck deals strings without replacement, reshuffling when empty, so a
// sentence comes back only after the others have been used.
type deck struct {
	src   []string
	order []int
	pos   int
}

func newDeck(src []string) *deck { return &deck{src: src} }

func (d *deck) draw(r *rng) string {
	if d.pos >= len(d.order) {
		d.order = r.Perm(len(d.src))
		d.pos = 0
	}
	s := d.src[d.order[d.pos]]
	d.pos++
	return s
}

type branchDecks struct {
	subs     *deck // subtopic indices as strings
	says     []*deck
	asks     []*deck
	used     []int // times each subtopic has been asked about
	specific *deck
	tasks    *deck
}

type realizer struct {
	r        *rng
	sp       *sessionPlan
	generic  *deck
	opens    *deck
	closes   *deck
	small    *deck
	smallRe  *deck
	smallSub *deck
	follow   *deck
	decks    map[*branchPlan]*branchDecks
	// length control: words so far and the session's target
	words, target int
}

// wordsPerToken converts the session token targets into words for the
// generator; the real count is measured by `arbor bme stats`.
const wordsPerToken = 1 / 1.2

func newRealizer(r *rng, sp *sessionPlan) *realizer {
	all := append(append([]string(nil), replyGeneric...), replyGeneric2...)
	z := &realizer{
		r: r, sp: sp,
		generic:  newDeck(all),
		opens:    newDeck(replyOpen),
		closes:   newDeck(replyClose),
		small:    newDeck(smalltalkUser),
		smallRe:  newDeck(smalltalkReply),
		follow:   newDeck(followUpAsk),
		smallSub: newDeck(smalltalkSub),
		decks:    map[*branchPlan]*branchDecks{},
		// Sessions of about 15K–28K tokens: §5 says most fit the 32K
		// answer-time budget.
		target: int(float64(r.between(18500, 28000)) * wordsPerToken),
	}
	for _, b := range sp.branches {
		idx := make([]string, len(b.dom.subs))
		for i := range idx {
			idx[i] = fmt.Sprint(i)
		}
		bd := &branchDecks{subs: newDeck(idx), specific: newDeck(replySpecific), tasks: newDeck(domainTasks[b.dom.key])}
		for _, s := range b.dom.subs {
			bd.says = append(bd.says, newDeck(s.say))
			bd.asks = append(bd.asks, newDeck(s.ask))
		}
		bd.used = make([]int, len(b.dom.subs))
		z.decks[b] = bd
	}
	return z
}

// turnText is one realized turn.
type turnText struct {
	user, assistant string
	values          []string
	slot            string
}

func (z *realizer) realize(i int, a *act) turnText {
	r, b := z.r, a.br
	v := b.vars(r)
	sub := z.nextSub(b)
	var t turnText
	var head []string // assistant sentences before the padded body
	minBody, maxBody := 4, 14
	o := bodyOpts{sub: true}
	switch a.kind {
	case actIntro:
		tmpl := b.dom.introSelf
		if b.anchor != "" {
			tmpl = b.dom.introOther
		}
		t.user = r.expand(pick(r, tmpl), v)
		yt := b.title(r)
		if b.anchor == "" {
			yt = r.expandRaw(b.dom.title, b.vars(r, kv{"poss", "your"}))
		}
		head = append(head, r.expand(pick(r, b.dom.introReply), b.vars(r, kv{"title", yt})))
		minBody, maxBody, o.checklist = 6, 28, 0.5
	case actSet:
		s := a.slot
		t.slot, t.values = s.spec.key, []string{s.value}
		sv := b.vars(r, kv{"label", s.spec.label}, kv{"v", s.value})
		tmpl, acks := setGeneric, ackSet
		if len(s.spec.set) > 0 && r.chance(0.65) {
			tmpl = s.spec.set
		}
		if b.twin != nil {
			// Twin values are stated without the anchor most of the time:
			// the anchor lives in the branch (intro, resumes), so telling
			// the twins apart takes tracking the branch (B5), not matching
			// the name next to the value.
			tmpl, acks = withoutAnchor(s.spec.set), ackPlain
			if len(tmpl) == 0 || r.chance(0.15) {
				tmpl, acks = setGeneric, ackSet
			}
		}
		t.user = z.userLine(r.expand(pick(r, tmpl), sv), r.expand(pick(r, setTail), sv))
		head = append(head, r.expand(pick(r, acks), sv))
		minBody, maxBody, o.transition = 2, 9, true
	case actUpdate:
		s := a.slot
		t.slot, t.values = s.spec.key, []string{s.latest}
		why := "plans changed"
		if len(s.spec.why) > 0 {
			why = pick(r, s.spec.why)
		}
		sv := b.vars(r, kv{"label", s.spec.label}, kv{"v", s.latest}, kv{"why", why})
		t.user = z.userLine(r.expand(pick(r, updGeneric), sv), r.expand(pick(r, updTail), sv))
		head = append(head, r.expand(pick(r, ackUpd), sv))
		minBody, maxBody, o.transition = 1, 6, true
	case actList:
		l := a.list
		lv := b.vars(r, kv{"what", r.expandRaw(l.spec.what, v)})
		t.user = z.userLine(r.expand(pick(r, l.spec.ask), lv), r.expand(pick(r, listAskTail), lv))
		var lines []string
		for j, it := range l.items {
			t.values = append(t.values, it.name)
			lines = append(lines, fmt.Sprintf("%d) %s — %s.", j+1, it.name, it.desc))
		}
		head = append(head, r.expand(pick(r, listIntro), lv)+"\n\n"+strings.Join(lines, "\n")+"\n\n"+pick(r, l.spec.outro))
		minBody, maxBody = 1, 7
	case actLink:
		f := a.fact
		if f.event != nil {
			ev := f.event
			t.values = []string{f.link}
			ev2 := b.vars(r, append(ev.vars, kv{"L", f.link}, kv{"e", ev.desc})...)
			t.user = z.userLine(r.expand(pick(r, ev.spec.fact), ev2), "")
			prep := map[string]string{"city": "in ", "date": "on ", "person": ""}[ev.spec.link]
			head = append(head, r.expand("[Noted|Got it|Logged] — "+youForm(ev.desc)+" is "+prep+f.link+".", v))
		} else {
			tg := f.target
			t.values = []string{f.link, f.value}
			tv := b.vars(r, kv{"L", f.link}, kv{"v", f.value})
			t.user = z.userLine(r.expand(pick(r, tg.fact), tv), "")
			head = append(head, r.expand(pick(r, tg.ack), tv))
		}
		minBody, maxBody, o.transition = 2, 8, true
	case actSmalltalk:
		t.user = z.small.draw(r)
		head = append(head, r.expand(z.smallRe.draw(r), v))
		for k := r.between(1, 3); k > 0; k-- {
			head = append(head, z.smallSub.draw(r))
		}
		minBody, maxBody, o.sub = 0, 2, false
	case actResume:
		ask := ""
		if r.chance(0.7) {
			ask = z.subAsk(b, sub, v)
		} else {
			ask = r.expand(pick(r, resumeTail), v)
		}
		t.user = strings.TrimSpace(r.expand(pick(r, resumeOpen), v) + " " + ask)
		head = append(head, r.expand(pick(r, resumeReply), v))
		maxBody, o.checklist = 30, 0.35
	case actQuestion:
		// Questions and canonical responses come from the plan (appendix
		// B.2, "Answer grounding").
		t.user, t.assistant = a.q.text, a.q.answer
		t.values = []string{a.q.gold}
		if a.q.slot != nil {
			t.slot = a.q.slot.spec.key
		}
		z.words += words(t.user) + words(t.assistant)
		return t
	default: // filler
		ask := z.subAsk(b, sub, v)
		if r.chance(0.5) {
			ask = pick(r, userContext) + " " + ask
		}
		t.user = z.userLine(ask, r.expand(pick(r, userTail), v))
		if op := r.expand(z.opens.draw(r), v); op != "" {
			head = append(head, op)
		}
		minBody, maxBody, o.checklist = 5, 38, 0.35
	}
	o.min, o.max = minBody, maxBody
	t.assistant = z.body(i, b, sub, t.user, head, o)
	return t
}

// withoutAnchor keeps the templates that name neither the branch nor its
// owner, plus the generic one that names neither.
func withoutAnchor(ts []string) []string {
	var out []string
	for _, t := range ts {
		if !strings.Contains(t, "{short}") && !strings.Contains(t, "{title}") && !strings.Contains(t, "{poss}") {
			out = append(out, t)
		}
	}
	return append(out, setGeneric[1])
}

// userLine joins a lead-in, the message and a tail.
func (z *realizer) userLine(msg, tail string) string {
	parts := []string{}
	first, _, _ := strings.Cut(msg, " ")
	if lead := pick(z.r, userLead); lead != "" && !leadWords[strings.TrimRight(first, ",:")] {
		parts = append(parts, lead)
		msg = lowerFirstIfLead(lead, msg)
	}
	parts = append(parts, msg)
	if tail != "" {
		parts = append(parts, tail)
	}
	return strings.Join(parts, " ")
}

// leadWords open messages that already carry their own lead-in.
var leadWords = map[string]bool{
	"Okay": true, "Quick": true, "Logging": true, "So": true, "Right": true, "Good": true, "Update": true,
	"Correction": true, "Scratch": true, "Actually": true, "Change": true, "Heads": true, "Small": true,
	"Also": true, "Another": true, "Hmm.": true, "For": true,
}

// lowerFirstIfLead keeps "Also, we booked" rather than "Also, We booked".
func lowerFirstIfLead(lead, msg string) string {
	if (strings.HasSuffix(lead, ",") || strings.HasSuffix(lead, ":")) && len(msg) > 1 && msg[0] >= 'A' && msg[0] <= 'Z' && msg[1] >= 'a' && msg[1] <= 'z' {
		w, _, _ := strings.Cut(msg, " ")
		switch w {
		case "I", "I'm", "I've", "I'd", "I'll":
			return msg
		}
		// Names and places stay capitalised; only common openers are lowered.
		switch w {
		case "We", "We're", "We've", "The", "Our", "My", "Quick", "Okay", "So", "Right", "Good", "Budget-wise", "For", "It's", "Work", "Moving", "Class", "Coach", "They", "It", "Booked", "Seating", "Schedule", "Itinerary", "Actually", "Change", "Heads", "Small", "Update", "Correction", "Scratch", "Logging", "There's", "If", "Big", "New":
			return strings.ToLower(msg[:1]) + msg[1:]
		}
	}
	return msg
}

// subAsk phrases a request about subtopic sub: each of its own phrasings
// once, then general follow-ups, so a branch never asks the same question
// twice in the same words.
func (z *realizer) subAsk(b *branchPlan, sub int, v vars) string {
	bd := z.decks[b]
	bd.used[sub]++
	if bd.used[sub] <= len(b.dom.subs[sub].ask) {
		return z.r.expand(bd.asks[sub].draw(z.r), v)
	}
	return z.r.expand(z.follow.draw(z.r), v)
}

func (z *realizer) nextSub(b *branchPlan) int {
	var i int
	fmt.Sscan(z.decks[b].subs.draw(z.r), &i)
	return i
}

// body pads the assistant reply toward the session's length target with
// sentences from the branch's current subtopic, branch-specific links and
// general advice, in paragraphs of two to four sentences.
// bodyOpts shape one assistant reply.
type bodyOpts struct {
	min, max   int
	sub        bool    // draw from the branch's current subtopic first
	transition bool    // open the body with a transition sentence
	checklist  float64 // chance of a short to-do list paragraph
}

func (z *realizer) body(i int, b *branchPlan, sub int, user string, head []string, o bodyOpts) string {
	r := z.r
	v := b.vars(r)
	z.words += words(user)
	for _, h := range head {
		z.words += words(h)
	}
	want := z.target * (i + 1) / z.sp.turns
	if z.words < want-250 {
		o.max += 8 // behind the length target: let short acts run longer
	}
	bd := z.decks[b]
	var sents []string
	if o.transition && z.words < want {
		s := r.expand(pick(r, bodyTransition), v)
		sents = append(sents, s)
		z.words += words(s)
	}
	for k := 0; k < o.max; k++ {
		if k >= o.min && z.words >= want {
			break
		}
		var s string
		switch {
		case o.sub && k < 5 && k < len(b.dom.subs[sub].say):
			s = bd.says[sub].draw(r)
		case k == 5 || (k > 5 && r.chance(0.12)):
			s = r.expand(bd.specific.draw(r), v)
		case r.chance(0.5):
			s = z.tip(bd, sents)
		default:
			s = r.expand(z.generic.draw(r), v)
		}
		if contains(sents, s) {
			continue
		}
		sents = append(sents, s)
		z.words += words(s)
	}
	var paras []string
	paras = append(paras, head...)
	for len(sents) > 0 {
		n := min(r.between(2, 4), len(sents))
		paras = append(paras, strings.Join(sents[:n], " "))
		sents = sents[n:]
	}
	if o.checklist > 0 && z.words < want+40 && r.chance(o.checklist) {
		lines := []string{r.expand(pick(r, checklistIntro), v)}
		var seen []string
		for k := r.between(3, 5); k > 0; k-- {
			task := bd.tasks.draw(r)
			if !contains(seen, task) {
				seen = append(seen, task)
				lines = append(lines, "- "+capFirst(task))
			}
		}
		list := strings.Join(lines, "\n")
		// Keep the list before the closing question, after the advice.
		paras = append(paras, list)
		z.words += words(list)
	}
	if c := r.expand(z.closes.draw(r), v); c != "" && r.chance(0.6) {
		paras = append(paras, c)
		z.words += words(c)
	}
	return strings.Join(paras, "\n\n")
}

// tip renders a tip frame with one of the branch's tasks.
// Neither the task nor the frame repeats one already in the reply.
func (z *realizer) tip(bd *branchDecks, reply []string) string {
	r := z.r
	task := bd.tasks.draw(r)
	for k := 0; k < 4 && anyContains(reply, task); k++ {
		task = bd.tasks.draw(r)
	}
	frame := pick(r, tipFrames)
	for k := 0; k < 4 && anyHasPrefix(reply, frame[:strings.IndexByte(frame, '{')]); k++ {
		frame = pick(r, tipFrames)
	}
	return r.expand(frame, func(name string) (string, bool) {
		switch name {
		case "task":
			return task, true
		case "when":
			return pick(r, tipWhen), true
		case "why":
			return pick(r, tipWhy), true
		case "whyAlone":
			return pick(r, tipWhyAlone), true
		}
		return "", false
	})
}

func anyContains(xs []string, sub string) bool {
	for _, x := range xs {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}

func anyHasPrefix(xs []string, prefix string) bool {
	for _, x := range xs {
		if strings.HasPrefix(x, prefix) {
			return true
		}
	}
	return false
}

func words(s string) int { return len(strings.Fields(s)) }
