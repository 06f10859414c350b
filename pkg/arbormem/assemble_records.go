package arbormem

// Paper §4.3 and appendix A, structured evidence in the bundle: artifacts,
// events and states retrieved for a question, [UpdateEvidence] pairs,
// computations over events, and the topic-slot and bridge blocks of the
// answer directives (appendix D).

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/text"
)

// updateLine renders an old → new fact pair for [UpdateEvidence].
func updateLine(old, nw *Fact) string {
	tag := old.Tag
	if tag == "" {
		tag = "-"
	}
	return fmt.Sprintf("- [slot %s] old: %q (%s) -> new: %q (%s)", tag, text.OneLine(old.Text), dialog.FormatTime(old.Time),
		text.OneLine(nw.Text), dialog.FormatTime(nw.Time))
}

var (
	reListRequest = regexp.MustCompile(`(?i)\b(?:list|ranked|rank|shortlist|suggest|recommend|steps?|options|ideas|lay out|propose|give me (?:a|some|the)|name (?:a few|some|three|five)|top \d+|in order)\b`)
	reWhen        = regexp.MustCompile(`(?i)\b(?:when|what (?:day|date|time)|which (?:day|date)|how long|how often|last time|first time)\b`)
)

// recordItems retrieves structured records by semantic similarity and
// entity matching (§4.3: cross-branch evidence "is retrieved through
// semantic and entity-based matching under the remaining read budget"):
// up to record_candidates records nearest the question, plus records whose
// entities name an informative question term, ranked by similarity (entity
// overlaps add 0.1 each, as for facts). Records keep "their types, content,
// provenance, and revision status" in their blocks. Question-form cues only
// order the blocks (list and ordinal questions put artifacts first, "when"
// questions events, previous/current questions states), so under a tight
// budget the block the question asks about is kept first; no block is
// excluded by them. Count, sum, ordering and date questions also get the
// deterministic computation over matched events, and questions anchored to
// known topics the topic-slot and bridge blocks.
func (rc *recallCtx) recordItems() ([]memory.Item, error) {
	s := rc.s
	var out []memory.Item
	if rc.qt.Computes() && len(s.store.Events) > 0 {
		out = append(out, rc.computation()...)
	}
	if rc.fl.local && rc.dec != nil && len(rc.anchors()) > 0 {
		out = append(out, rc.topicSlot()...)
		if rc.qt.Bridge {
			out = append(out, rc.bridge()...)
		}
	}
	if len(s.store.records) == 0 {
		return out, nil
	}
	ids, err := rc.retrieveRecords()
	if err != nil {
		return nil, err
	}
	var arts, evs, sts []int
	for _, id := range ids {
		r := s.store.records[id]
		switch r.kind {
		case kindArtifact:
			arts = append(arts, r.idx)
		case kindEvent:
			evs = append(evs, r.idx)
		case kindState:
			sts = append(sts, r.idx)
		}
	}
	blocks := map[recordKind][]memory.Item{
		kindArtifact: rc.artifactItems(arts),
		kindEvent:    rc.eventItems(evs),
		kindState:    rc.stateItems(sts),
	}
	for _, k := range rc.blockPriority() {
		out = append(out, blocks[k]...)
	}
	return out, nil
}

// blockPriority orders the retrieved record blocks for the question: the
// block its form asks about first, then artifacts, states, events.
func (rc *recallCtx) blockPriority() []recordKind {
	first := kindArtifact
	switch {
	case rc.qt.Ordinal != 0 || rc.qt.Preference || reListRequest.MatchString(rc.q.Text):
		first = kindArtifact
	case reWhen.MatchString(rc.q.Text):
		first = kindEvent
	case rc.qt.Previous || rc.qt.Current:
		first = kindState
	}
	order := []recordKind{first}
	for _, k := range []recordKind{kindArtifact, kindState, kindEvent} {
		if k != first {
			order = append(order, k)
		}
	}
	return order
}

// retrieveRecords returns record ids (positions in store.records), best
// first: semantic candidates and entity matches.
func (rc *recallCtx) retrieveRecords() ([]int, error) {
	s := rc.s
	score := map[int]float64{}
	if s.cfg.RecordCandidates > 0 && s.recVec.Len() > 0 {
		v, err := rc.qvec()
		if err != nil {
			return nil, err
		}
		for _, h := range s.recVec.Search(v, s.cfg.RecordCandidates) {
			score[h.ID] = h.Score
		}
		n := float64(len(s.store.records))
		var terms [][]int
		for _, t := range rc.qterms {
			ids := s.recByEntity[t]
			if len(ids) == 0 || float64(len(ids)) > s.cfg.KeywordMaxDF*n && n >= 5 {
				continue // a term in most records matches nothing in particular
			}
			terms = append(terms, ids)
		}
		// An entity match not proposed by the search starts from its
		// cosine; all of them are computed in one pass over the index.
		var fresh []int
		for _, ids := range terms {
			for _, id := range ids {
				if _, ok := score[id]; !ok {
					score[id] = 0
					fresh = append(fresh, id)
				}
			}
		}
		cos := make([]float64, len(fresh))
		s.recVec.Cosines(v, fresh, cos)
		for i, id := range fresh {
			score[id] = cos[i]
		}
		for _, ids := range terms {
			for _, id := range ids {
				score[id] += 0.1
			}
		}
	}
	ids := make([]int, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if score[ids[i]] != score[ids[j]] {
			return score[ids[i]] > score[ids[j]]
		}
		return ids[i] > ids[j]
	})
	return ids, nil
}

// eventItems renders retrieved events for [EventEvidence], best first.
func (rc *recallCtx) eventItems(evs []int) []memory.Item {
	var out []memory.Item
	for _, e := range evs {
		if len(out) == rc.s.cfg.MaxRecordLines {
			break
		}
		ev := rc.s.store.Events[e]
		out = append(out, rc.recordItem(memory.BlockEvent, eventLine(ev), ev.Provenance))
	}
	return out
}

func (rc *recallCtx) recordItem(block, text string, p Provenance, more ...string) memory.Item {
	it := rc.item(memory.ChannelRecord, block, text, nil, append([]string{p.Source}, more...)...)
	it.Time = p.Time
	return it
}

// artifactItems renders lexical artifact hits, the item at the asked
// ordinal of the best-matching topic first and marked exact_match.
func (rc *recallCtx) artifactItems(hits []int) []memory.Item {
	s := rc.s
	if len(hits) == 0 && rc.qt.Ordinal == 0 {
		return nil
	}
	exact := -1
	if rc.qt.Ordinal != 0 {
		if group := rc.askedList(hits); len(group) > 0 {
			want := rc.qt.Ordinal
			if want == -1 {
				for _, i := range group {
					want = max(want, s.store.Artifacts[i].Ordinal)
				}
			}
			for _, i := range group {
				if s.store.Artifacts[i].Ordinal == want {
					exact = i
				}
			}
			if exact >= 0 {
				// The exact item first, then the rest of that list in order;
				// same-position items of other lists are left out.
				list := []int{exact}
				for _, i := range group {
					if i != exact {
						list = append(list, i)
					}
				}
				hits = list
			}
		}
	}
	var out []memory.Item
	for _, i := range hits {
		if len(out) == s.cfg.MaxRecordLines {
			break
		}
		a := s.store.Artifacts[i]
		out = append(out, rc.recordItem(memory.BlockArtifact, artifactLine(a, i == exact), a.Provenance))
	}
	return out
}

// askedList returns the ordered list an ordinal question refers to: the
// most recent ordered list produced on the localized trajectory, else the
// list of the best lexical hit. Items are in ordinal order.
func (rc *recallCtx) askedList(hits []int) []int {
	s := rc.s
	var group []int
	if rc.dec != nil && rc.dec.Parent >= 0 {
		path := s.forest.Path(rc.dec.Parent)
		// A list the user asked for beats a list that merely appears in a
		// reply; among either kind, the most recent one.
		for _, requested := range []bool{true, false} {
			for k := len(path) - 1; k >= 0 && len(group) == 0; k-- {
				n := s.forest.Nodes[path[k]]
				if requested && !reListRequest.MatchString(n.Interaction.User()) {
					continue
				}
				for _, i := range s.nodeArtifacts[path[k]] {
					if s.store.Artifacts[i].Ordinal > 0 {
						group = append(group, i)
					}
				}
			}
		}
	}
	if len(group) == 0 && len(hits) > 0 {
		src := s.store.Artifacts[hits[0]].Node
		for _, i := range s.nodeArtifacts[src] {
			if s.store.Artifacts[i].Ordinal > 0 {
				group = append(group, i)
			}
		}
	}
	sort.SliceStable(group, func(a, b int) bool { return s.store.Artifacts[group[a]].Ordinal < s.store.Artifacts[group[b]].Ordinal })
	return group
}

// stateItems renders the current values of each retrieved state key (with
// their revision history), preferences in their own block; for preference
// questions every current preference is added.
func (rc *recallCtx) stateItems(hits []int) []memory.Item {
	s := rc.s
	keys := map[string]bool{}
	var order []int
	add := func(key string) {
		if keys[key] {
			return
		}
		keys[key] = true
		order = append(order, s.store.stateByKey[key]...)
	}
	for _, i := range hits {
		add(s.store.States[i].Key)
	}
	if rc.qt.Preference {
		var prefs []string
		for k := range s.store.stateByKey {
			if isPreferenceKey(k) {
				prefs = append(prefs, k)
			}
		}
		sort.Strings(prefs)
		for _, k := range prefs {
			add(k)
		}
	}
	var out []memory.Item
	for _, i := range order {
		if len(out) == s.cfg.MaxRecordLines {
			break
		}
		st := s.store.States[i]
		block := memory.BlockState
		if isPreferenceKey(st.Key) {
			block = memory.BlockPreference
		}
		var more []string
		for j := st.Prev; j >= 0; j = s.store.States[j].Prev {
			more = append(more, s.store.States[j].Source)
		}
		out = append(out, rc.recordItem(block, s.store.stateLine(i), st.Provenance, more...))
	}
	return out
}

// eventTerms is what an event is matched on for computation.
func eventTerms(e *Event) rules.TermSet {
	return rules.NewTermSet(rules.Terms(strings.Join([]string{e.CanonicalObject, e.Object, e.CanonicalAction, e.Type, e.Value, strings.Join(e.Entities, " ")}, " ")))
}

// computeStop are question words that say nothing about which events
// count, as analysed terms (stemmed like the event terms they are compared
// with; words the analyzer drops as stop words need no entry).
var computeStop = sync.OnceValue(func() rules.TermSet {
	return rules.NewTermSet(rules.Terms("many much time times total number often day days week weeks month months year years ago long since between order first last latest earliest recent recently did do have has"))
})

// computation matches events to the question and computes count, sum,
// latest/earliest, ordering or date differences deterministically
// ([EventComputationEvidence], with the source turns as
// [CountSourceEvidence] for count and sum questions).
func (rc *recallCtx) computation() []memory.Item {
	s := rc.s
	var want []string
	for _, t := range rc.qterms {
		if !computeStop().Has(t) {
			want = append(want, t)
		}
	}
	if len(want) == 0 {
		return nil
	}
	// Count, per event, the question terms it matches (exactly, or as part
	// of a longer term: "museum" in "rijksmuseum"), through the event term
	// index rather than a scan of every event.
	hits := map[int]int{}
	for _, t := range want {
		seen := map[int]bool{}
		for _, x := range s.eventTermsMatching(t) {
			for _, ei := range s.eventIdx[x] {
				if !seen[ei] {
					seen[ei] = true
					hits[ei]++
				}
			}
		}
	}
	best := 0
	for _, k := range hits {
		best = max(best, k)
	}
	var matched []*Event
	for ei, k := range hits {
		if k == best {
			matched = append(matched, s.store.Events[ei])
		}
	}
	sort.SliceStable(matched, func(i, j int) bool {
		a, b := ops.EventDate(matched[i]), ops.EventDate(matched[j])
		if !a.Equal(b) {
			return a.Before(b)
		}
		return matched[i].Node < matched[j].Node
	})
	if len(matched) == 0 {
		return nil
	}
	sort.SliceStable(matched, func(i, j int) bool { return ops.EventDate(matched[i]).Before(ops.EventDate(matched[j])) })
	op, answer, list := computeOp(rc.qt, matched, rc.q.Time)
	if op == "" {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "operation=%s matched_events=%d computed_answer=%q", op, len(list), answer)
	var sources []string
	seen := map[string]bool{}
	for i, e := range list {
		if i < 12 {
			b.WriteString("\n")
			b.WriteString(eventLine(e))
		}
		if !seen[e.Source] {
			seen[e.Source] = true
			sources = append(sources, e.Source)
		}
	}
	last := list[len(list)-1]
	comp := rc.item(memory.ChannelRecord, memory.BlockComputation, b.String(), nil, sources...)
	comp.Time = last.Time
	out := []memory.Item{comp}
	if rc.qt.Count || rc.qt.Sum {
		for i, src := range sources {
			if i == s.cfg.CountSourceLines {
				break
			}
			n, ok := s.forest.Lookup(src)
			if !ok {
				continue
			}
			text := "- [" + dialog.FormatTime(n.Time()) + "] " + text.ClipRunes(text.OneLine(localizationText(n.Interaction)), 240)
			out = append(out, rc.item(memory.ChannelRecord, memory.BlockCountSource, text, n, src))
		}
	}
	return out
}

// eventTermsMatching returns the indexed event terms that t matches: t
// itself, and for a term of five or more letters every longer term that
// contains it ("museum" in "rijksmuseum").
func (s *System) eventTermsMatching(t string) []string {
	out := []string{t}
	if len(t) < 5 {
		return out
	}
	for x := range s.eventIdx {
		if x != t && strings.Contains(x, t) {
			out = append(out, x)
		}
	}
	return out
}

// computeOp performs the computation the question asks for over matched
// events (sorted by date) and returns the operation, the computed answer and
// the events it used.
func computeOp(qt rules.QueryType, matched []*Event, now time.Time) (string, string, []*Event) {
	var countable, happened []*Event
	for _, e := range matched {
		if !e.Negated {
			happened = append(happened, e)
		}
	}
	if len(happened) == 0 {
		return "", "", nil
	}
	matched = happened
	seen := map[string]bool{}
	for _, e := range matched {
		if e.Negated || !e.Countable {
			continue
		}
		k := e.CanonicalAction + "|" + e.CanonicalObject + "|" + e.NormalizedDate + "|" + e.Source
		if seen[k] {
			continue
		}
		seen[k] = true
		countable = append(countable, e)
	}
	switch {
	case qt.DateDiff:
		if len(matched) >= 2 {
			a, b := ops.EventDate(matched[0]), ops.EventDate(matched[len(matched)-1])
			return "date_difference", daysText(b.Sub(a)), []*Event{matched[0], matched[len(matched)-1]}
		}
		if !now.IsZero() {
			return "date_difference", daysText(now.Sub(ops.EventDate(matched[0]))) + " before the question", matched[:1]
		}
	case qt.Sum:
		units := map[string]int{}
		for _, e := range countable {
			if e.Quantity != nil {
				units[e.Unit]++
			}
		}
		unit, n := "", 0
		for u, c := range units {
			if c > n || (c == n && u < unit) {
				unit, n = u, c
			}
		}
		var sum float64
		var used []*Event
		for _, e := range countable {
			if e.Quantity != nil && e.Unit == unit {
				sum += *e.Quantity
				used = append(used, e)
			}
		}
		if len(used) > 0 {
			return "sum", strings.TrimSpace(strconv.FormatFloat(math.Round(sum*1000)/1000, 'f', -1, 64) + " " + unit), used
		}
	case qt.Count:
		if len(countable) > 0 {
			return "count", strconv.Itoa(len(countable)), countable
		}
	case qt.Ordering:
		parts := make([]string, len(matched))
		for i, e := range matched {
			parts[i] = fmt.Sprintf("%d) %s (%s)", i+1, eventLabel(e), ops.EventDate(e).Format("2006-01-02"))
		}
		return "ordering", strings.Join(parts, "; "), matched
	case qt.Latest:
		e := matched[len(matched)-1]
		return "latest", eventLabel(e) + " on " + ops.EventDate(e).Format("2006-01-02"), []*Event{e}
	case qt.Earliest:
		e := matched[0]
		return "earliest", eventLabel(e) + " on " + ops.EventDate(e).Format("2006-01-02"), []*Event{e}
	}
	return "", "", nil
}

func eventLabel(e *Event) string {
	s := strings.TrimSpace(e.CanonicalAction + " " + e.Object)
	if e.Value != "" {
		s += " (" + e.Value + ")"
	}
	return s
}

func daysText(d time.Duration) string {
	days := int(math.Round(d.Hours() / 24))
	if days < 0 {
		days = -days
	}
	if days == 1 {
		return "1 day"
	}
	return strconv.Itoa(days) + " days"
}

// anchorRoots returns the roots of trajectories whose nodes match anchor a
// (topic match above topic_match_min).
func (rc *recallCtx) anchorRoots(a rules.Anchor) []int {
	s := rc.s
	seen := map[int]bool{}
	var roots []int
	for _, seq := range s.topicCandidates(a, s.cfg.TopicCandidates) {
		n := s.forest.Nodes[seq]
		if topicMatch(a, n.topic) > s.cfg.TopicMatchMin && !seen[n.Root] {
			seen[n.Root] = true
			roots = append(roots, n.Root)
		}
	}
	return roots
}

// The anchor triggers of [TopicSlotEvidence] and [BridgeEvidence]
// (arbormem.anchor_trigger; "off" fills neither).
const (
	// AnchorAny: every anchor of the question that names a known trajectory.
	AnchorAny = "anchor"
	// AnchorTopic: every anchor but a possessive whose owner is a speaker of
	// the conversation: "Caroline's painting", asked about a conversation
	// Caroline took part in, is how a third-person question names a
	// participant, not a pointer to a topic thread ("Sam's trip", where Sam
	// is someone talked about, still is).
	AnchorTopic = "topic"
	// AnchorExplicit: quoted and "back to …" anchors only.
	AnchorExplicit = "explicit"
)

// anchors are the question's anchors that may fill the topic-slot and
// bridge blocks under arbormem.anchor_trigger.
func (rc *recallCtx) anchors() []rules.Anchor {
	rc.anchorOnce.Do(func() { rc.anchorList = rc.triggerAnchors() })
	return rc.anchorList
}

// triggerAnchors keeps the question's anchors that arbormem.anchor_trigger
// lets fire.
func (rc *recallCtx) triggerAnchors() []rules.Anchor {
	switch rc.s.cfg.AnchorTrigger {
	case "off":
		return nil
	case AnchorTopic:
		var out []rules.Anchor
		for _, a := range rc.dec.Anchors {
			if a.Kind != "possessive" || !rc.s.isSpeaker(possessor(a.Text)) {
				out = append(out, a)
			}
		}
		return out
	case AnchorExplicit:
		var out []rules.Anchor
		for _, a := range rc.dec.Anchors {
			if a.Kind == "quoted" || a.Kind == "return" {
				out = append(out, a)
			}
		}
		return out
	}
	return rc.dec.Anchors
}

// possessor is the owner of a possessive anchor ("Caroline" of
// "Caroline's painting").
func possessor(text string) string {
	for _, sep := range []string{"'s ", "’s "} {
		if i := strings.Index(text, sep); i > 0 {
			return text[:i]
		}
	}
	return ""
}

// isSpeaker reports whether name is a speaker of a committed turn.
func (s *System) isSpeaker(name string) bool {
	if name == "" {
		return false
	}
	for _, n := range s.forest.Nodes {
		for _, t := range n.Interaction.Turns {
			if strings.EqualFold(t.Speaker, name) {
				return true
			}
		}
	}
	return false
}

// branchFacts returns current facts committed in the given trajectories
// that share a question term and, when arbormem.anchor_fact_min_sim is set,
// reach that cosine against the question, ranked by query-term overlap
// (newest first among equals).
func (rc *recallCtx) branchFacts(roots []int, limit int) []*Fact {
	s := rc.s
	type fk struct {
		f *Fact
		k int
	}
	var ids []int
	for _, r := range roots {
		ids = append(ids, s.rootFacts[r]...)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ids)))
	var fs []fk
	for _, id := range ids {
		f := s.store.Facts[id]
		if !f.Current() {
			continue
		}
		k := 0
		for _, t := range rc.qterms {
			if f.terms.has(t) {
				k++
			}
		}
		if k > 0 && rc.anchorFactFloor(f) {
			fs = append(fs, fk{f, k})
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].k > fs[j].k })
	var out []*Fact
	for _, x := range fs {
		if len(out) == limit {
			break
		}
		out = append(out, x.f)
	}
	return out
}

// anchorFactFloor reports whether f reaches arbormem.anchor_fact_min_sim
// against the question (always, when the floor is 0 or the question has no
// vector).
func (rc *recallCtx) anchorFactFloor(f *Fact) bool {
	floor := rc.s.cfg.AnchorFactMinSim
	if floor <= 0 {
		return true
	}
	v, err := rc.qvec()
	if err != nil || v == nil {
		return true
	}
	return cosine(v, rc.s.factVec.Vector(f.ID)) >= floor
}

// topicSlot lists candidate facts from the trajectory the question is
// anchored to ([TopicSlotEvidence]; the answer-format rule tells the model to
// prefer them over similar facts of other topics).
func (rc *recallCtx) topicSlot() []memory.Item {
	if !rc.fl.facts {
		return nil
	}
	var out []memory.Item
	for _, a := range rc.anchors() {
		roots := rc.anchorRoots(a)
		if len(roots) == 0 {
			continue
		}
		for _, f := range rc.branchFacts(roots, rc.s.cfg.TopicSlotFacts) {
			text := fmt.Sprintf("- topic=%q fact=%q (%s)", a.Text, text.OneLine(f.Text), dialog.FormatTime(f.Time))
			it := rc.item(memory.ChannelRecord, memory.BlockTopicSlot, text, nil, f.Source)
			it.Time = f.Time
			out = append(out, it)
		}
		break // the first anchor that names a known trajectory
	}
	return out
}

// bridge joins evidence from two anchored trajectories for connect /
// alongside questions ([BridgeEvidence]): answer_topic is the anchor whose
// facts share more of the question's other words, link_topic the other.
func (rc *recallCtx) bridge() []memory.Item {
	if !rc.fl.facts {
		return nil
	}
	type side struct {
		a     rules.Anchor
		facts []*Fact
		score int
	}
	var sides []side
	for _, a := range rc.anchors() {
		roots := rc.anchorRoots(a)
		if len(roots) == 0 {
			continue
		}
		fs := rc.branchFacts(roots, rc.s.cfg.BridgeFacts)
		sc := 0
		at := rules.NewTermSet(a.Terms)
		for _, f := range fs {
			for _, t := range rc.qterms {
				if !at.Has(t) && f.terms.has(t) {
					sc++
				}
			}
		}
		sides = append(sides, side{a, fs, sc})
		if len(sides) == 2 {
			break
		}
	}
	if len(sides) < 2 {
		return nil
	}
	if sides[1].score > sides[0].score {
		sides[0], sides[1] = sides[1], sides[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "answer_topic=%q link_topic=%q", sides[0].a.Text, sides[1].a.Text)
	var sources []string
	var last time.Time
	for _, sd := range sides {
		for _, f := range sd.facts {
			fmt.Fprintf(&b, "\n- [%s] %s (%s)", sd.a.Text, text.OneLine(f.Text), dialog.FormatTime(f.Time))
			sources = append(sources, f.Source)
			if f.Time.After(last) {
				last = f.Time
			}
		}
	}
	if len(sources) == 0 {
		return nil
	}
	it := rc.item(memory.ChannelRecord, memory.BlockBridge, b.String(), nil, dedupe(sources)...)
	it.Time = last
	return []memory.Item{it}
}
