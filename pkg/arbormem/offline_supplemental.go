package arbormem

// The offline profile's supplemental fill (arbormem.supplemental_fill;
// offline.go): a question that does not continue the conversation reads
// the turns that share its words and dates before the trajectory.

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem/rules"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// detached reports a question that does not continue the conversation:
// not asked within the hour after the last turn (LoCoMo dates its questions
// at the last session's start), and not routed by a conversational cue
// (continuation, temporal return, "back to …"), which marks an input that
// continues the dialogue.
func (rc *recallCtx) detached() bool {
	if rc.s.forest.Active < 0 || rc.s.sameConversation(rc.q.Time, "", true) {
		return false
	}
	if _, back := rules.DetectResume(rc.q.Text); back { // remembered: localization read it
		return false
	}
	return rc.dec == nil || rc.dec.Path == "scored"
}

// suppTurn is one turn proposed for [SupplementalEvidence], with the rule
// that selected it.
type suppTurn struct {
	seq, turn int
	score     float64
	rule      string
}

// turnTermsOf returns the analysed terms of each turn of node seq, cached.
func (s *System) turnTermsOf(seq int) []termList {
	s.cacheMu.Lock()
	tt, ok := s.turnTerms[seq]
	s.cacheMu.Unlock()
	if ok {
		return tt
	}
	n := s.forest.Nodes[seq]
	tt = make([]termList, len(n.Interaction.Turns))
	for i, t := range n.Interaction.Turns {
		tt[i] = s.termList(index.Analyze(t.Content))
	}
	s.cacheMu.Lock()
	s.turnTerms[seq] = tt
	s.cacheMu.Unlock()
	return tt
}

// supplementalRank ranks turns for the supplemental channel by the answer
// prompt's rule ("extra raw turns selected by strict time/entity matching",
// appendix D): nodes are proposed by lexical match of the question's terms
// and entities (raw turns, third-person summary, entities); each of their
// turns scores the inverse document frequency of the question terms it
// holds, more when its speaker is the person the question names.
func (rc *recallCtx) supplementalRank(k int) []suppTurn {
	s := rc.s
	q := rc.q.Text
	ents := rules.Entities(q, 8)
	for _, e := range ents {
		q += " " + e
	}
	qterms := dedupe(index.Analyze(q))
	N := float64(s.nodeLex.N())
	idf := map[string]float64{}
	for _, t := range qterms {
		df := float64(s.nodeLex.DocFreq(t))
		idf[t] = math.Log(1 + (N-df+0.5)/(df+0.5))
	}
	named := map[string]bool{}
	for _, e := range ents {
		for _, w := range strings.Fields(strings.ToLower(e)) {
			named[w] = true
		}
	}
	nodes := s.nodeLex.SearchTerms(qterms, k)
	// Time matching: the nodes of the dates the question names are
	// candidates whatever their words.
	inWindow := map[int]bool{}
	if s.cfg.SupplementalDates {
		proposed := map[int]bool{}
		for _, h := range nodes {
			proposed[h.ID] = true
		}
		for _, w := range questionDates(rc.q.Text, s.forest) {
			for _, seq := range s.forest.Window(w[0], w[1]) {
				inWindow[seq] = true
				if !proposed[seq] {
					proposed[seq] = true
					nodes = append(nodes, index.Hit{ID: seq})
				}
			}
		}
	}
	// A speaker's name in another speaker's turn is mostly an address
	// ("Thanks, Rosa!"), not a statement about them, while a speaker's own
	// first-person turn is about them: a speaker's name counts only through
	// the named-speaker factor. A turn must hold an informative content
	// term (one found in at most keyword_max_df of the nodes, as for s_key).
	speakerTerm := map[string]bool{}
	for _, h := range nodes {
		for _, t := range s.forest.Nodes[h.ID].Interaction.Turns {
			if t.Speaker != "" {
				for _, w := range index.Analyze(t.Speaker) {
					speakerTerm[w] = true
				}
			}
		}
	}
	var content []string
	for _, t := range qterms {
		if !speakerTerm[t] && float64(s.nodeLex.DocFreq(t)) <= s.cfg.KeywordMaxDF*N {
			content = append(content, t)
		}
	}
	rc.suppTerms = rules.NewTermSet(content)
	rc.suppIDF = make(map[string]float64, len(content))
	for _, t := range content {
		rc.suppIDF[t] = idf[t]
	}
	var out []suppTurn
	for _, h := range nodes {
		n := s.forest.Nodes[h.ID]
		for i, tt := range s.turnTermsOf(h.ID) {
			sc, hits := 0.0, 0
			for _, t := range content {
				if tt.has(t) {
					sc += idf[t]
					hits++
				}
			}
			who := speakerName(n.Interaction.Turns[i])
			isNamed := named[strings.ToLower(n.Interaction.Turns[i].Speaker)]
			rule := who + ": term match"
			switch {
			case hits > 0 && inWindow[h.ID]:
				sc *= suppDateBoost
				rule += ", date match"
			case hits == 0 && inWindow[h.ID] && isNamed:
				// A named speaker's turn on the date asked about, though
				// it holds no question term.
				sc = suppDateBase
				rule = who + ": date match"
			case hits == 0:
				continue
			}
			if isNamed {
				sc *= suppSpeakerBoost
				rule += ", named speaker"
			}
			out = append(out, suppTurn{seq: h.ID, turn: i, score: sc + suppNodeWeight*h.Score, rule: rule})
		}
	}
	out = rc.withReplies(out)
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		if out[i].seq != out[j].seq {
			return out[i].seq > out[j].seq
		}
		return out[i].turn < out[j].turn
	})
	return out
}

// withReplies adds, for each matched turn, the turn that answers it (the
// next turn of the same session, by another speaker), scored at
// suppReplyWeight of the matched turn's score: in conversation the answer
// or the detail often repeats none of the question's words ("What genre
// is your screenplay?" — "A mix of drama and romance!"). A turn matched on
// its own keeps the better of its two scores.
func (rc *recallCtx) withReplies(ranked []suppTurn) []suppTurn {
	if !rc.s.cfg.SupplementalReplies {
		return ranked
	}
	at := map[[2]int]int{}
	for i, t := range ranked {
		at[[2]int{t.seq, t.turn}] = i
	}
	out := append([]suppTurn(nil), ranked...)
	for _, q := range ranked {
		n := rc.s.forest.Nodes[q.seq]
		qt := n.Interaction.Turns[q.turn]
		seq, turn := q.seq, q.turn+1
		if turn == len(n.Interaction.Turns) {
			seq, turn = q.seq+1, 0
			if seq >= len(rc.s.forest.Nodes) || rc.s.forest.Nodes[seq].Interaction.Session != n.Interaction.Session {
				continue
			}
		}
		rt := rc.s.forest.Nodes[seq].Interaction.Turns
		if turn >= len(rt) || rt[turn].Speaker == qt.Speaker {
			continue
		}
		sc := suppReplyWeight * q.score
		rule := speakerName(rt[turn]) + ": reply to " + speakerName(qt) + "'s matching turn"
		key := [2]int{seq, turn}
		if i, ok := at[key]; ok {
			if out[i].score < sc {
				out[i].score, out[i].rule = sc, rule
			}
			continue
		}
		at[key] = len(out)
		out = append(out, suppTurn{seq: seq, turn: turn, score: sc, rule: rule})
	}
	return out
}

// Supplemental ranking constants (offline profile): nodes proposed by
// lexical match, the factor a turn gains when its speaker is the person the
// question names, and the weight of its node's BM25 score beside its own
// term matches.
const (
	suppNodes        = 200
	suppSpeakerBoost = 1.5
	suppNodeWeight   = 0.3
	suppReplyWeight  = 0.6
	suppDateBoost    = 2.0
	suppDateBase     = 1.0
)

// reQuestionDate finds a calendar date a question names: "25 May, 2022",
// "May 25, 2022", "May 2022", "in May" (a month alone is read only after
// a preposition, since "May" is also a verb).
var reQuestionDate = regexp.MustCompile(`\b(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(January|February|March|April|May|June|July|August|September|October|November|December),?\s*(\d{4})?|(January|February|March|April|June|July|August|September|October|November|December|(?:in|of|on|since|by|during|early|late|mid-)\s*May)\.?(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?,?\s*(\d{4})?)\b`)

// questionDates returns the time windows of the dates a question names
// (offline profile, supplemental_dates): a day with a day's slack either
// side, or a whole month; a date without a year matches it in every year
// the conversation spans.
func questionDates(text string, f *Forest) [][2]time.Time {
	if f.Len() == 0 {
		return nil
	}
	first, last := time.Time{}, f.Nodes[f.byTime[len(f.byTime)-1]].Time()
	for _, seq := range f.byTime {
		// Undated nodes sort first; a year range from year 1 would list
		// two thousand years for a question's yearless date.
		if t := f.Nodes[seq].Time(); !t.IsZero() {
			first = t
			break
		}
	}
	var out [][2]time.Time
	for _, m := range reQuestionDate.FindAllStringSubmatch(text, -1) {
		dayS, monS, yearS := m[1], m[2], m[3]
		if monS == "" {
			monS, dayS, yearS = m[4], m[5], m[6]
			if f := strings.Fields(strings.ReplaceAll(monS, "-", " ")); len(f) > 0 {
				monS = f[len(f)-1]
			}
		}
		mon, ok := rules.MonthNames[strings.ToLower(monS[:3])]
		if !ok {
			continue
		}
		years := []int{}
		if y, err := strconv.Atoi(yearS); err == nil {
			years = append(years, y)
		} else {
			for y := first.Year(); y <= last.Year(); y++ {
				years = append(years, y)
			}
		}
		day, _ := strconv.Atoi(dayS)
		if day > 31 {
			continue
		}
		for _, y := range years {
			if day > 0 {
				d := time.Date(y, mon, day, 0, 0, 0, 0, time.UTC)
				out = append(out, [2]time.Time{d.AddDate(0, 0, -1), d.AddDate(0, 0, 2)})
			} else {
				d := time.Date(y, mon, 1, 0, 0, 0, 0, time.UTC)
				out = append(out, [2]time.Time{d, d.AddDate(0, 1, 0)})
			}
		}
	}
	return out
}

// suppPick is a ranked turn chosen for the supplemental channel, rendered
// as an excerpt (its sentences that hold a question term) or in full.
type suppPick struct {
	suppTurn
	node     *Node
	line     string
	cost     int
	full     string
	fullCost int
}

// supplementalFill packs supplemental turns into capTokens, best first.
// It runs before the trajectory is packed, so no turn is already shown.
// The best-ranked turns enter whole up to supplemental_whole_share of the
// budget; each further turn first enters as an excerpt of the sentences
// that hold a question term, so a tight budget covers more matching turns;
// the budget left then restores whole turns in rank order. Turns of one session date share one item (one date
// line), in time order; the item cites every interaction it quotes.
func (rc *recallCtx) supplementalFill(capTokens int) []memory.Item {
	if capTokens <= 0 {
		return nil
	}
	var picks []*suppPick
	dated := map[string]bool{}
	used := 0
	ranked := rc.supplementalRank(suppNodes)
	for _, h := range ranked {
		n := rc.s.forest.Nodes[h.seq]
		t := n.Interaction.Turns[h.turn]
		p := &suppPick{suppTurn: h, node: n, full: speakerName(t) + ": " + strings.TrimSpace(t.Content)}
		p.fullCost = rc.s.countCtx(rc.ctx, p.full)
		p.line, p.cost = p.full, p.fullCost
		key := dialog.FormatTime(n.Time())
		dateCost := 0
		if !dated[key] {
			dateCost = rc.s.countCtx(rc.ctx, rc.suppHead(key))
		}
		// The best-ranked turns enter whole while they fit in
		// supplemental_whole_share of the budget: an excerpt keeps the
		// sentences that hold a question term, and the answer is often
		// the sentence after ("We took the kids to a pottery workshop.
		// We all made our own pots!").
		whole := used+dateCost+p.fullCost <= int(rc.s.cfg.SupplementalWholeShare*float64(capTokens))
		if rc.s.cfg.SupplementalExcerpt && !whole {
			// While the windows fit in supplemental_window_share of the
			// budget, the best-ranked turns show the sentences around
			// their best match instead of an excerpt. The window is tried
			// first, so the excerpt is built and counted only for a turn
			// that gets none, and once the share is spent (a line costs
			// at least a token) no window is built or counted.
			windowed := false
			if share := rc.s.cfg.SupplementalWindowShare; share > 0 && used+dateCost < int(share*float64(capTokens)) {
				if ex, ok := window(t.Content, rc.suppIDF); ok {
					line := speakerName(t) + ": " + ex
					if c := rc.s.countCtx(rc.ctx, line); used+dateCost+c <= int(share*float64(capTokens)) {
						p.line, p.cost = line, c
						p.rule += ", window"
						windowed = true
					}
				}
			}
			if !windowed {
				if ex, ok := excerpt(t.Content, rc.suppTerms); ok {
					p.line = speakerName(t) + ": " + ex
					p.cost = rc.s.countCtx(rc.ctx, p.line)
				}
			}
		}
		cost := p.cost + dateCost
		if used+cost > capTokens {
			continue
		}
		dated[key] = true
		used += cost
		picks = append(picks, p)
	}
	for _, p := range picks {
		if extra := p.fullCost - p.cost; extra > 0 && used+extra <= capTokens {
			used += extra
			p.line, p.cost = p.full, p.fullCost
		}
	}
	for len(picks) > 0 {
		out := renderSupplemental(rc, picks)
		if memory.TotalTokens(out) <= capTokens {
			rc.suppRule = map[string]string{}
			for _, p := range picks {
				r := p.rule
				if p.line != p.full {
					r += ", excerpt"
				}
				if prev, ok := rc.suppRule[p.node.ID()]; ok {
					r = prev + "; " + r
				}
				rc.suppRule[p.node.ID()] = r
			}
			return out
		}
		picks = picks[:len(picks)-1] // joining lines may cost a token more than the parts
	}
	return nil
}

// renderSupplemental groups picked turns by session date, in time order.
func renderSupplemental(rc *recallCtx, picks []*suppPick) []memory.Item {
	byDate := map[string][]*suppPick{}
	var dates []string
	for _, p := range picks {
		key := dialog.FormatTime(p.node.Time())
		if byDate[key] == nil {
			dates = append(dates, key)
		}
		byDate[key] = append(byDate[key], p)
	}
	var out []memory.Item
	for _, key := range dates {
		g := byDate[key]
		sort.Slice(g, func(i, j int) bool {
			if g[i].seq != g[j].seq {
				return g[i].seq < g[j].seq
			}
			return g[i].turn < g[j].turn
		})
		lines := []string{rc.suppHead(key)}
		var src []string
		for _, p := range g {
			lines = append(lines, p.line)
			if len(src) == 0 || src[len(src)-1] != p.node.ID() {
				src = append(src, p.node.ID())
			}
		}
		text := strings.Join(lines, "\n")
		out = append(out, memory.Item{Channel: memory.ChannelTurn, Block: memory.BlockSupplemental, Text: text, Tokens: rc.s.countCtx(rc.ctx, text),
			Sources: src, Time: g[0].node.Time()})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.Before(out[j].Time)
		}
		return out[i].Sources[0] < out[j].Sources[0]
	})
	return out
}

// suppHead is the header line of the supplemental turns of one session
// time (dialog.FormatTime): its day alone with supplemental_day_dates.
func (rc *recallCtx) suppHead(key string) string {
	if day, _, ok := strings.Cut(key, " "); ok && rc.s.cfg.SupplementalDayDates {
		key = day
	}
	return "[" + key + "]"
}

// window keeps, of a turn, the sentence whose question terms weigh most by
// idf (each that ties with it too) and the sentence either side of each,
// joined by " … " where sentences are skipped; ok is false when no
// sentence holds a question term or the window is the whole turn.
func window(content string, idf map[string]float64) (string, bool) {
	ss := rules.Sentences(strings.TrimSpace(content))
	score := make([]float64, len(ss))
	best := 0.0
	for i, sent := range ss {
		seen := map[string]bool{}
		for _, w := range index.Analyze(sent) {
			if v, ok := idf[w]; ok && !seen[w] {
				seen[w] = true
				score[i] += v
			}
		}
		best = max(best, score[i])
	}
	if best <= 0 {
		return "", false
	}
	kept := make([]bool, len(ss))
	for i := range ss {
		if score[i] == best {
			for j := max(0, i-1); j <= min(len(ss)-1, i+1); j++ {
				kept[j] = true
			}
		}
	}
	if !slices.Contains(kept, false) {
		return "", false
	}
	var b strings.Builder
	for i, sent := range ss {
		if !kept[i] {
			continue
		}
		switch {
		case b.Len() == 0:
		case kept[i-1]:
			b.WriteByte(' ')
		default:
			b.WriteString(" … ")
		}
		b.WriteString(sent)
	}
	return b.String(), true
}

// excerpt keeps the sentences of a turn that hold a question term, joined
// by " … "; ok is false when every sentence or none does.
func excerpt(content string, qterms rules.TermSet) (string, bool) {
	ss := rules.Sentences(strings.TrimSpace(content))
	var keep []string
	for _, sent := range ss {
		for _, w := range index.Analyze(sent) {
			if qterms.Has(w) {
				keep = append(keep, sent)
				break
			}
		}
	}
	if len(keep) == 0 || len(keep) == len(ss) {
		return "", false
	}
	return strings.Join(keep, " … "), true
}
