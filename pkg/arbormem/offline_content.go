package arbormem

import (
	"slices"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
)

// The offline profile's content routing (docs/FIDELITY.md, "Offline
// profile"; arbormem.shift_markers, content_returns): rules
// that read an input's content words against each trajectory's. A lexical
// cue says whether the speaker continues, and the implicit continuation
// assumes it when nothing says otherwise; in natural conversation people
// change the subject with a marker and nothing else ("completely different
// subject, but …"), or return to a thread with a bare follow-up ("So what's
// the deadline now?") whose only sign is a word said there. The paper's
// cascade has a model behind both; offline the words themselves decide.
// Left at "auto", none of this runs on the model path: offline() turns it
// off there (a key set to "on" applies on any path).

// The rules a content-routed Decision names (Decision.Rules).
const (
	ruleShiftBranch   = "offline routing: an explicit shift marker leaves the active state for the trajectory its content words match best"
	ruleShiftRoot     = "offline routing: an explicit shift marker, or a soft one before words the active trajectory does not share, starts a new root"
	ruleNovelBranch   = "offline routing: a long input sharing no content word with the active trajectory goes to the trajectory its words match far better"
	ruleNovelRoot     = "offline routing: a long input sharing no content word with the active trajectory, and matching no other, starts a new root"
	ruleLabelReturn   = "offline routing: a fronted label the active trajectory has not said and another has returns to that trajectory's latest node"
	ruleContentReturn = "offline routing: the input's content words match another trajectory far better than the active one: its latest node"
)

// Thresholds of the content routing. A trajectory's match is the sum over
// the input's content words it holds of 1/(trajectories holding the word)
// × min(1, contentRareDF/(nodes saying it)), so a word said once or twice
// in one thread only counts 1 and a word of every thread, or of every
// other turn, little.
const (
	// contentMin is the least match that names a trajectory: one word of
	// its own, or two shared with one other.
	contentMin = 1.0
	// contentCover is the share of the input's content words a trajectory
	// must match to take the input: a new subject, or the next step of the
	// active thread, may share a word or two with an old thread ("night",
	// "venue", "class"); a return to it shares much of what it says.
	contentCover = 0.3
	// softShiftWords are the content words an input needs for a soft
	// marker to start a new root: a short reply ("also, shorter?") shares
	// no word with anything and still continues.
	softShiftWords = 4
	// softShiftShare is the largest share of the input's content words the
	// active trajectory may have said for a soft marker still to leave it:
	// a new subject shares a word or two with anything ("prefer",
	// "assisted"), the next step of the thread much more.
	softShiftShare = 0.2
	// addOnShiftWords are the content words, none said by the active
	// trajectory, after which a bare additive cue ("also jonas asked me to
	// be best man…") opens a new subject: a short addition ("also, the
	// coordinator is our main contact") continues.
	addOnShiftWords = 6
	// novelShiftWords are the content words, none said by the active
	// trajectory, after which an input leaves it with no marker at all
	// (arbormem.novel_shift): a continuation that brings a new name and
	// its role ("My co-investigator is Dr. Helga Brandt … on the Elbe")
	// says up to 11 such words on the development set; a new subject told
	// at length says more.
	novelShiftWords = 12
	// contentAlike is the share of the active trajectory's content words
	// another must have said for the two to count as alike (alike).
	contentAlike = 0.25
	// contentRareDF is the number of nodes up to which a word counts in
	// full; one said in more counts contentRareDF/df.
	contentRareDF = 2.0
	// contentDFMin keeps a word however common in a small forest, where
	// keyword_max_df's share would drop every shared word.
	contentDFMin = 3
)

// indexContent adds a node's distinct content terms (contentTerms of its
// interaction's text) to the content match's indexes (rootTerms,
// termNodes, termRoots). Their order does not matter: each term's counts
// and holders are its own.
func (s *System) indexContent(n *Node, content []string) {
	rt := s.rootTerms[n.Root]
	if rt == nil {
		rt = map[string]int{}
		s.rootTerms[n.Root] = rt
	}
	for _, t := range content {
		c := rt[t]
		if c == 0 {
			s.termRoots[t] = append(s.termRoots[t], n.Root)
		}
		rt[t] = c + 1
		s.termNodes[t]++
	}
}

// contentTerms are text's distinct content terms (rules.ContentTerms),
// in order of first occurrence.
func contentTerms(text string) []string { return dedupe(rules.ContentTerms(text)) }

// dedupe removes repeats from ts in place (callers pass slices of their
// own), keeping first occurrences in order.
func dedupe(ts []string) []string {
	out := ts[:0]
	if len(ts) <= smallContent {
		// A short list is deduplicated by looking back, without a map.
		for _, t := range ts {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	}
	seen := make(map[string]struct{}, len(ts))
	for _, t := range ts {
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

// smallContent is the longest list dedupe deduplicates without a map
// (an input to localize is mostly a sentence or two, a bridge record's
// sources a few).
const smallContent = 48

// contentTermsOf is contentTerms of a text given its analysed terms
// (index.Analyze) each once, in order of first occurrence: rules.Terms
// before it drops terms under two bytes. The same terms in the same order.
func contentTermsOf(once []string) []string {
	out := once[:0]
	mapped := false
	for _, t := range once {
		if len(t) < 2 {
			continue // rules.Terms keeps terms of two bytes or more
		}
		c, ok := rules.ContentTerm(t)
		if !ok {
			continue
		}
		mapped = mapped || c != t
		out = append(out, c)
	}
	if !mapped {
		return out // distinct terms, none replaced: still distinct
	}
	// An irregular past read as its base form may repeat a term.
	return dedupe(out)
}

// contentMatch is an input's content words matched against the
// trajectories of the forest.
type contentMatch struct {
	// words is the number of distinct content words of the input, and
	// activeWords of those the active trajectory has said, however often.
	words, activeWords int
	// active is the active trajectory's match; best and bestRoot the best
	// other trajectory's last spoken of in the active node's session
	// (bestRoot -1 when none matches).
	active, best float64
	bestRoot     int
}

// matchContent scores text against every trajectory. A word in more than
// keyword_max_df of the nodes (and more than contentDFMin) says nothing
// about where the input belongs and is skipped.
func (s *System) matchContent(text string) contentMatch {
	f := s.forest
	activeRoot := f.Nodes[f.Active].Root
	maxDF := s.cfg.KeywordMaxDF * float64(f.Len())
	m := contentMatch{bestRoot: -1}
	score := map[int]float64{}
	for _, t := range contentTerms(text) {
		m.words++
		if s.rootTerms[activeRoot][t] > 0 {
			m.activeWords++
		}
		df := s.termNodes[t]
		if df == 0 || df > contentDFMin && float64(df) > maxDF {
			continue
		}
		holders := s.termRoots[t]
		// A word said in many places ("agreed", "budget" in a
		// conversation full of plans) counts less than one said once or
		// twice ("MySQL", "physio").
		w := 1 / float64(len(holders)) * min(1, contentRareDF/float64(df))
		for _, root := range holders {
			score[root] += w
		}
	}
	m.active = score[activeRoot]
	session := f.Nodes[f.Active].Interaction.Session
	for root, sc := range score {
		if root == activeRoot {
			continue
		}
		// A bare follow-up refers to what was said in this sitting; a
		// thread last spoken of in an earlier session needs a cue that
		// names it (the return rule).
		if latest := f.Nodes[s.rootLatest[root]].Interaction.Session; session != "" && latest != "" && latest != session {
			continue
		}
		// Ties go to the more recent trajectory.
		if sc > m.best || sc == m.best && m.bestRoot >= 0 && s.rootLatest[root] > s.rootLatest[m.bestRoot] {
			m.best, m.bestRoot = sc, root
		}
	}
	return m
}

// farBetter reports whether another trajectory matches far better than
// the active one: the active one has said none of the input's content words
// (a thread that goes on shares its words with twins and older threads of
// the same kind, and still goes on), and another matches at least one
// word of its own and contentCover of the input's.
func (m contentMatch) farBetter() bool {
	return m.bestRoot >= 0 && m.activeWords == 0 && m.best >= contentMin && m.best >= contentCover*float64(m.words)
}

// shiftRoute applies the shift markers (arbormem.shift_markers) to an
// input: an explicit marker leaves the active state for the trajectory the
// input's words match best, if any matches better than the active one, or
// for a new root; a soft marker does so only when the active trajectory
// shares none of at least softShiftWords content words.
func (s *System) shiftRoute(d *Decision, text string, m *contentMatch) bool {
	if _, ret := rules.DetectResume(text); ret {
		// "Switching back to the move": the return cue and its topic
		// decide (reroute), not the words around them.
		return false
	}
	switch {
	case rules.ShiftMarker(text):
		if m.bestRoot >= 0 && m.best >= contentMin && m.best > m.active && m.best >= contentCover*float64(m.words) {
			d.Parent, d.Path, d.Rules = s.rootLatest[m.bestRoot], "shift", []string{ruleShiftBranch}
		} else {
			d.Parent, d.Path, d.Rules = -1, "shift", []string{ruleShiftRoot}
		}
		return true
	case m.words >= softShiftWords && float64(m.activeWords) <= softShiftShare*float64(m.words) && rules.SoftShift(text),
		m.words >= addOnShiftWords && m.activeWords == 0 && rules.AddOn(text):
		if m.farBetter() {
			d.Parent, d.Path, d.Rules = s.rootLatest[m.bestRoot], "shift", []string{ruleShiftBranch}
		} else {
			d.Parent, d.Path, d.Rules = -1, "shift", []string{ruleShiftRoot}
		}
		return true
	}
	return false
}

// labelRoute applies the fronted labels (arbormem.label_returns): an input
// that opens with a label ("ok, tax again.", "biscuit update:") whose
// content words the active trajectory has not said, and another has, goes
// to the latest node of the trajectory they match best. A label of the
// active thread, or of nothing said yet, decides nothing.
func (s *System) labelRoute(d *Decision, text string) bool {
	label, ok := rules.FrontedLabel(text)
	if !ok {
		return false
	}
	m := s.matchContent(label)
	if m.words == 0 || m.activeWords > 0 || m.bestRoot < 0 || m.best <= m.active {
		return false
	}
	d.Parent, d.Path, d.Rules = s.rootLatest[m.bestRoot], "label", []string{ruleLabelReturn}
	return true
}

// novelRoute applies arbormem.novel_shift: an input of at least
// novelShiftWords content words, none of which the active trajectory has
// said, goes to a trajectory it matches far better, or starts a new root.
func (s *System) novelRoute(d *Decision, text string, m *contentMatch) bool {
	if m.words < novelShiftWords || m.activeWords > 0 {
		return false
	}
	if _, ret := rules.DetectResume(text); ret {
		return false // the return rule decides (reroute)
	}
	if m.farBetter() {
		d.Parent, d.Path, d.Rules = s.rootLatest[m.bestRoot], "shift", []string{ruleNovelBranch}
	} else {
		d.Parent, d.Path, d.Rules = -1, "shift", []string{ruleNovelRoot}
	}
	return true
}

// contentReturn sends an input the cascade would attach to the active
// state to the latest node of a trajectory it matches far better
// (arbormem.content_returns), unless the two trajectories are alike.
func (s *System) contentReturn(d *Decision, m *contentMatch) bool {
	if !m.farBetter() || s.alike(s.forest.Nodes[s.forest.Active].Root, m.bestRoot) {
		return false
	}
	d.Parent, d.Path, d.Rules = s.rootLatest[m.bestRoot], "content", []string{ruleContentReturn}
	return true
}

// alike reports whether trajectory a says much of what b does: twin
// threads (two friends' moves, two job searches) share their vocabulary,
// so a word one of them has not said yet ("truck", "venue") is no sign
// that the input belongs to the other.
func (s *System) alike(a, b int) bool {
	ta, tb := s.rootTerms[a], s.rootTerms[b]
	if len(ta) == 0 {
		return false
	}
	shared := 0
	for t := range ta {
		if tb[t] > 0 {
			shared++
		}
	}
	return float64(shared) >= contentAlike*float64(len(ta))
}
