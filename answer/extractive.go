package answer

import (
	"context"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/answer/spans"
	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// Extractive is the offline answerer (a heuristic, labelled as such): it
// returns the evidence span — a sentence, clause or list entry — that best
// matches the question. It exists so that the whole pipeline runs, and
// memory systems can be compared by what they recall, without a chat model;
// its accuracy is not the paper's.
type Extractive struct{}

// Heuristic reports true: the extractive answerer stands in for a model.
func (Extractive) Heuristic() bool { return true }

// Answer extracts the answer from b; r is ignored because the heuristic
// reads evidence, not messages.
func (Extractive) Answer(_ context.Context, q memory.Query, b memory.Bundle, _ memory.Renderer) (Result, error) {
	start := time.Now()
	text := Extract(q.Text, b.Items)
	lat := time.Since(start)
	return Result{Text: text, TTFT: lat, Latency: lat}, nil
}

// intent is what the question's wording says about the answer it wants.
type intent struct {
	terms              []string
	number, date, name bool
	current, previous  bool
	ordinal            int // list position asked for; -1 the last; 0 none
}

var (
	numberQ   = regexp.MustCompile(`\bhow (many|much|long|far|old|often|tall|big|fast)\b|\bwhat (number|percentage|amount|price|score|size|distance)\b|\b(cost|price|count|total)\b`)
	dateQ     = regexp.MustCompile(`\bwhen\b|\bwhat (date|day|time|year|month)\b|\bwhich (date|day|year|month)\b|\bhow long ago\b`)
	nameQ     = regexp.MustCompile(`\b(who|whom|whose|where|which)\b|\bwhat(?:'s| is| was)? (?:the |my |his |her |their )?name\b|\bwhat (city|country|place|restaurant|hotel|book|novel|company|brand|store|shop|school|team|movie|film|song|band|app|game|dog|cat|pet)\b`)
	currentQ  = regexp.MustCompile(`\b(current|currently|now|latest|most recent|newest|these days|at the moment|at present|still|anymore|today|updated)\b`)
	previousQ = regexp.MustCompile(`\b(previous|previously|original|originally|initial|initially|before|former|formerly|used to|earlier|first)\b`)
	// changeRe marks sentences that report a new value.
	changeRe = regexp.MustCompile(`(?i)\b(now|new|raised|lowered|changed|switched|moved|updated|increased|decreased|instead|anymore|no longer|accepted|upgraded)\b`)
	// changeScan is changeRe as a word scan (the regexp's unanchored
	// search ran at every byte of every evidence sentence).
	changeScan = spans.NewKeywords(changeRe, "now", "new", "raised", "lowered", "changed", "switched", "moved", "updated", "increased", "decreased", "instead", "anymore", "no longer", "accepted", "upgraded")

	ordinalWords = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "last": -1, "final": -1}
	ordinalQ     = regexp.MustCompile(`\bthe (first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final|\d{1,2}(?:st|nd|rd|th))\b(?:\s+(\w+))?`)
	numberedQ    = regexp.MustCompile(`(?:#|\bnumber |\bno\. ?|\bitem |\boption |\bstep )(\d{1,2})\b`)
	// notListNoun follows "the first"/"the last" when the question is about
	// time ("the first time", "the last week"), not a list.
	notListNoun = map[string]bool{"time": true, "times": true, "day": true, "days": true, "week": true, "weeks": true, "month": true, "months": true, "year": true, "years": true, "session": true, "conversation": true, "chat": true, "visit": true, "trip": true, "meeting": true, "weekend": true, "night": true, "morning": true, "evening": true, "person": true}

	// generic words say how to look, not what to look for.
	generic = termSet("current currently now latest recent newest previous previously original originally initial initially first second third fourth fifth last final before former formerly earlier old new update updated mention mentioned tell told say said remember recall ask asked talk talked discuss discussed chat conversation name called know")
)

func parseIntent(question string) intent {
	lq := strings.ToLower(question)
	in := intent{
		number:  numberQ.MatchString(lq),
		date:    dateQ.MatchString(lq),
		current: currentQ.MatchString(lq),
	}
	in.name = nameQ.MatchString(lq) && !in.number && !in.date
	if m := ordinalQ.FindStringSubmatch(lq); m != nil && !notListNoun[m[2]] {
		if n, ok := ordinalWords[m[1]]; ok {
			in.ordinal = n
		} else if n, err := strconv.Atoi(strings.TrimRight(m[1], "stndrh")); err == nil {
			in.ordinal = n
		}
	} else if m := numberedQ.FindStringSubmatch(lq); m != nil {
		in.ordinal, _ = strconv.Atoi(m[1])
	}
	// "first" asks for a list position when it is an ordinal, and for the
	// earliest value otherwise.
	in.previous = previousQ.MatchString(strings.Replace(lq, "the first", "", boolInt(in.ordinal == 1)))
	if in.current && in.previous {
		in.current, in.previous = false, false // "what changed": no side to prefer
	}
	all := index.Analyze(question)
	for _, t := range all {
		if !generic[t] {
			in.terms = append(in.terms, t)
		}
	}
	if len(in.terms) == 0 {
		in.terms = all
	}
	return in
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cand is one candidate span.
type cand struct {
	span  spans.Span
	item  int
	pos   float64   // 0 = oldest evidence, 1 = newest
	terms spanTerms // shared with the analysis cache: read only
	typed spans.Values
	// change: the span reports a new value (changeRe).
	change bool
}

// itemAnalysis is what Extract reads from one evidence text: its spans and,
// per span, its terms, typed values and change marker. Questions of one
// episode see the same evidence again and again (a full-context bundle
// grows by a turn per question), so each text is analysed once and kept.
type itemAnalysis struct {
	spans  []spans.Span
	terms  []spanTerms
	typed  []spans.Values
	change []bool
	// vocab holds the distinct terms of all the spans, sorted, and df[i]
	// the number of spans that hold vocab[i]: a question's document
	// frequencies are summed over items, and an item holding none of its
	// terms is passed over, instead of every span being searched.
	vocab []string
	df    []int32
}

// count is the number of a's spans that hold t.
func (a *itemAnalysis) count(t string) int {
	if i, ok := slices.BinarySearch(a.vocab, t); ok {
		return int(a.df[i])
	}
	return 0
}

// index fills vocab and df from the spans' terms, sorted together in a
// reused buffer; vocab and df, which the cache keeps, are made at their
// size.
func (a *itemAnalysis) index() {
	bp := termBufs.Get().(*[]string)
	all := (*bp)[:0]
	for _, ts := range a.terms {
		all = append(all, ts...) // each span's terms are distinct
	}
	slices.Sort(all)
	d := 0
	for i := range all {
		if i == 0 || all[i] != all[i-1] {
			d++
		}
	}
	a.vocab, a.df = make([]string, 0, d), make([]int32, 0, d)
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j] == all[i] {
			j++
		}
		a.vocab = append(a.vocab, all[i])
		a.df = append(a.df, int32(j-i))
		i = j
	}
	clear(all) // the pool must not keep the terms alive
	*bp = all[:0]
	termBufs.Put(bp)
}

// termBufs are index's sort buffers.
var termBufs = sync.Pool{New: func() any { return new([]string) }}

// analysisCacheMax bounds the cache; a full cache is dropped whole (a cold
// cache costs time, never correctness).
const analysisCacheMax = 1 << 14

var analysisCache = struct {
	sync.Mutex
	m map[string]*itemAnalysis
}{m: map[string]*itemAnalysis{}}

// Benchmarks empty the cache with the other text memos (textmemo.ResetAll),
// so that each run sees its evidence for the first time, as a process does.
func init() {
	textmemo.OnReset(func() {
		analysisCache.Lock()
		clear(analysisCache.m)
		analysisCache.Unlock()
	})
}

// analyse returns text's analysis, from the cache when it has been seen.
func analyse(text string) *itemAnalysis {
	analysisCache.Lock()
	a, ok := analysisCache.m[text]
	analysisCache.Unlock()
	if ok {
		return a
	}
	a = &itemAnalysis{spans: spans.Split(text)}
	a.terms = make([]spanTerms, len(a.spans))
	a.typed = make([]spans.Values, len(a.spans))
	a.change = make([]bool, len(a.spans))
	analyseSpans(a)
	a.index()
	analysisCache.Lock()
	if len(analysisCache.m) >= analysisCacheMax {
		clear(analysisCache.m)
	}
	analysisCache.m[text] = a
	analysisCache.Unlock()
	return a
}

// spanAnalysis is what analyse reads from one span's text.
type spanAnalysis struct {
	terms  spanTerms // shared by every analysis holding the span: read only
	typed  spans.Values
	change bool
}

// spanMemoSlots bounds spanMemo (a direct-mapped textmemo: a new span
// evicts the one in its slot).
const spanMemoSlots = 1 << 16

// spanMemo holds the analyses of the span texts seen. Systems render the
// same interaction differently ("[time] User: …" in an ArborMem node,
// "[time] user: …" in a baseline's bundle), so the whole-text cache misses
// across them; the spans' texts, without the timestamp and speaker, are the
// same, and a span's analysis reads nothing but its text.
var spanMemo = textmemo.New(spanMemoSlots, func(t string) spanAnalysis {
	return spanAnalysis{terms: termsOf(t), typed: spans.Typed(t), change: changeScan.MatchString(t)}
})

// analyseSpans fills a's per-span terms, typed values and change markers
// (made at a's span count), from spanMemo where a span text has been seen.
func analyseSpans(a *itemAnalysis) {
	for j, sp := range a.spans {
		c := spanMemo.Get(sp.Text)
		a.terms[j], a.typed[j], a.change[j] = c.terms, c.typed, c.change
	}
}

// Extract returns the best-matching evidence span for question, or
// NotAvailable when no span shares a content word with it.
//
// The candidates are the items' spans in chronological order (candidates);
// only ordinal questions, which look for lists, gather them all. The
// others score the spans of the items that hold a term of the question
// where they lie in that order: a span without one scores 0 and is never
// the answer, so the best span, the first of the highest score, is the
// same.
func Extract(question string, items []memory.Item) string {
	in := parseIntent(question)
	as, order, n := analyses(items)
	if n == 0 || len(in.terms) == 0 {
		return NotAvailable
	}
	idf := idfOf(in.terms, as, n)
	if s, ok := exactArtifact(in, items); ok {
		return s
	}
	if in.ordinal != 0 {
		if s, ok := pickListEntry(in, candidates(as, order, n), idf); ok {
			return s
		}
	}
	var best cand
	found, bestScore := false, 0.0
	k := 0 // the candidate index of the item's first span
	for _, i := range order {
		a := as[i]
		if !holdsAny(a, in.terms) {
			k += len(a.spans)
			continue
		}
		for j, sp := range a.spans {
			c := cand{span: sp, item: i, pos: candPos(k, n), terms: a.terms[j], typed: a.typed[j], change: a.change[j]}
			k++
			if s := score(in, c, idf); s > bestScore {
				best, found, bestScore = c, true, s
			}
		}
	}
	if !found {
		return NotAvailable
	}
	if s, ok := updateSide(in, items[best.item], best.span.Text); ok {
		return narrow(in, s, idf)
	}
	return narrow(in, best.span.Text, idf)
}

// holdsAny reports whether one of a's spans holds one of terms.
func holdsAny(a *itemAnalysis, terms []string) bool {
	for _, t := range terms {
		if _, ok := slices.BinarySearch(a.vocab, t); ok {
			return true
		}
	}
	return false
}

// candPos is the position in time of the k-th of n candidates: 0 the
// oldest, 1 the newest.
func candPos(k, n int) float64 {
	if n > 1 {
		return float64(k) / float64(n-1)
	}
	return 0
}

// analyses returns each item's analysis, the items' chronological order
// (by time when every item has one, else bundle order) and the number of
// spans in all.
func analyses(items []memory.Item) (as []*itemAnalysis, order []int, n int) {
	order = make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	timed := true
	for _, it := range items {
		if it.Time.IsZero() {
			timed = false
			break
		}
	}
	if timed {
		sort.SliceStable(order, func(a, b int) bool { return items[order[a]].Time.Before(items[order[b]].Time) })
	}
	as = make([]*itemAnalysis, len(items))
	for i := range items {
		as[i] = analyse(items[i].Text)
		n += len(as[i].spans)
	}
	return as, order, n
}

// candidates are the n spans of the items' analyses as, in order.
func candidates(as []*itemAnalysis, order []int, n int) []cand {
	out := make([]cand, 0, n)
	for _, i := range order {
		a := as[i]
		for j, sp := range a.spans {
			out = append(out, cand{span: sp, item: i, pos: candPos(len(out), n), terms: a.terms[j], typed: a.typed[j], change: a.change[j]})
		}
	}
	return out
}

// spanTerms is the set of a span's index terms (index.Analyze), the form
// question and evidence words are compared in: distinct and sorted. A
// span has a few dozen at most, and the analysis cache keeps one set per
// span of every evidence text it has seen, so a sorted slice (one
// allocation, one pointer for the collector to follow per term) serves
// where a map would cost several times the memory and the collector's time.
type spanTerms []string

// has reports whether t is one of the terms.
func (ts spanTerms) has(t string) bool {
	_, ok := slices.BinarySearch(ts, t)
	return ok
}

// termsOf is the spanTerms of s.
func termsOf(s string) spanTerms {
	ts := slices.Clone(index.Analyze(s))
	slices.Sort(ts)
	return slices.Clip(slices.Compact(ts))
}

// termSet is the set of s's index terms (index.Analyze) as a map, for the
// fixed word lists.
func termSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range index.Analyze(s) {
		m[t] = true
	}
	return m
}

// idfOf is the inverse document frequency over the candidate spans of the
// question's terms, the only terms a score reads (overlap sums idf over
// in.terms): counting every term of every span, as it once did, cost a
// third of the extractive answerer's time on full-context bundles and gave
// the same scores; now each item's span counts (itemAnalysis.df) are
// summed. A term in no span has no entry, and reads as 0.
func idfOf(terms []string, as []*itemAnalysis, total int) map[string]float64 {
	idf := make(map[string]float64, len(terms))
	n := float64(total)
	for _, t := range terms {
		if _, done := idf[t]; done {
			continue
		}
		d := 0
		for _, a := range as {
			d += a.count(t)
		}
		if d > 0 {
			idf[t] = math.Log(1 + n/float64(d))
		}
	}
	return idf
}

func overlap(in intent, terms spanTerms, idf map[string]float64) float64 {
	s := 0.0
	for _, t := range in.terms {
		if terms.has(t) {
			s += idf[t]
		}
	}
	return s
}

// score weighs a span's word overlap with the question by whether it holds
// the kind of value asked for, whether it is itself a question, and where it
// sits in time when the question asks for the current or the previous value.
func score(in intent, c cand, idf map[string]float64) float64 {
	s := overlap(in, c.terms, idf)
	if s == 0 {
		return 0
	}
	v := c.typed
	switch {
	case (in.number && v.Number) || (in.date && v.Date) || (in.name && v.Name):
		s *= 1.6
	case !in.number && !in.date && !in.name && v.Any():
		s *= 1.1
	}
	if strings.HasSuffix(strings.TrimSpace(c.span.Text), "?") {
		s *= 0.3
	}
	change := c.change
	switch {
	case in.current:
		s *= 1 + c.pos
		if change {
			s *= 1.2
		}
	case in.previous:
		s *= 2 - c.pos
		if change {
			s *= 0.7
		}
	default:
		s *= 1 + 0.1*c.pos // among equals, the later mention is the up-to-date one
	}
	return s
}

// narrow shortens a long sentence to its best clause, so the answer is the
// value rather than the paragraph around it.
func narrow(in intent, sentence string, idf map[string]float64) string {
	if !spans.HasFields(sentence, 21) {
		return sentence
	}
	best, bestScore := sentence, 0.0
	for _, cl := range spans.Clauses(sentence) {
		s := overlap(in, termsOf(cl), idf)
		v := spans.Typed(cl)
		if (in.number && v.Number) || (in.date && v.Date) || (in.name && v.Name) {
			s += 0.5
		}
		if s > bestScore {
			best, bestScore = cl, s
		}
	}
	return best
}

// list is a run of consecutive list entries in one item.
type list struct {
	item    int
	entries []cand
	context float64
	pos     float64
}

// pickListEntry answers an ordinal question ("the second book you
// suggested") with the entry at that position of the list whose item best
// matches the question.
func pickListEntry(in intent, cands []cand, idf map[string]float64) (string, bool) {
	var lists []list
	// itemTerms holds, per item, the question's terms found in it: overlap
	// reads no other.
	itemTerms := map[int]spanTerms{}
	for i := 0; i < len(cands); i++ {
		c := cands[i]
		for _, t := range in.terms {
			if c.terms.has(t) && !slices.Contains(itemTerms[c.item], t) {
				itemTerms[c.item] = append(itemTerms[c.item], t)
			}
		}
		if c.span.ListPos == 0 && !c.span.Bullet {
			continue
		}
		if n := len(lists); n > 0 && lists[n-1].item == c.item && cands[i-1].item == c.item && (cands[i-1].span.ListPos > 0 || cands[i-1].span.Bullet) {
			lists[n-1].entries = append(lists[n-1].entries, c)
			continue
		}
		lists = append(lists, list{item: c.item, entries: []cand{c}, pos: c.pos})
	}
	best, bestScore := -1, 0.0
	for i := range lists {
		l := &lists[i]
		if in.ordinal > len(l.entries) && !numbered(l, in.ordinal) {
			continue
		}
		it := itemTerms[l.item]
		slices.Sort(it) // a spanTerms is sorted
		l.context = overlap(in, it, idf)
		s := l.context * (1 + 0.1*l.pos)
		if in.previous {
			s = l.context * (1.1 - 0.1*l.pos)
		}
		if s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		return "", false
	}
	l := lists[best]
	if in.ordinal < 0 {
		return l.entries[len(l.entries)-1].span.Text, true
	}
	for _, e := range l.entries {
		if e.span.ListPos == in.ordinal {
			return e.span.Text, true
		}
	}
	return l.entries[in.ordinal-1].span.Text, true
}

func numbered(l *list, n int) bool {
	for _, e := range l.entries {
		if e.span.ListPos == n {
			return true
		}
	}
	return false
}
