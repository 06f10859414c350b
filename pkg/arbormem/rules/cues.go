package rules

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/rxscan"
	"github.com/arbor-eval/arbor/pkg/text"
)

// This file holds the rule-based readers of an input: the cascade's cues
// (§4.2: explicit continuation and temporal-return cues), explicit topic
// anchors, and the query types that select dynamic answer-format lines
// (appendix D). They are rules, not models, in both the chat-backed and the
// offline configuration.

// reContinuation matches an explicit continuation cue at the start of an
// input, after an optional acknowledgement ("Thanks! Also, ..."). The cue
// must open the message: "also" in mid-sentence says nothing about which
// state is resumed.
var reContinuation = regexp.MustCompile(`(?i)^\s*(?:(?:ok(?:ay)?|great|thanks|thank you|perfect|cool|nice|sure|got it|awesome|sounds good|alright|right|yes|yeah|good|hmm+|so)[\s,.!:;-]+)*` +
	`(?:also\b|and\s+(?:what|how|when|where|which|who|can|could|should|would|is|are|do|does|did|if|also|then)\b|plus\b|additionally\b|what about\b|how about\b|and\s+the\b|` +
	`one more (?:thing|question)\b|another (?:thing|question|detail)\b|quick (?:one|follow[- ]up|question)\b|follow(?:ing)?[- ]up\b|continuing\b|to continue\b|in that case\b|on that note\b|building on (?:that|this)\b|` +
	`related to (?:that|this)\b|speaking of (?:that|which)\b|while we're (?:at it|on (?:it|this|that))\b|(?:can|could|would|should) (?:you|i|we) also\b|same (?:question|thing) for\b|then\s+(?:what|how|should|can)\b)`)

// ContinuationCue reports whether text opens with an explicit continuation cue.
func ContinuationCue(text string) bool { return rxscan.MatchString(reContinuation, text) }

// TemporalCue is a resolved explicit temporal-return cue: a time window
// relative to the input's time, and the topic phrase it names, if any
// ("last week when we discussed the garden" → last week, "the garden").
type TemporalCue struct {
	Phrase   string
	From, To time.Time
	Topic    string
}

var reTemporal = regexp.MustCompile(`(?i)\b(earlier today|this morning|this afternoon|this evening|earlier this (?:week|month)|yesterday|last night|` +
	`last (?:week|weekend|month|year|time)|the other day|(?:a|one|two|three|four|five|six|a few|a couple of|couple of|several) (?:days?|weeks?|months?) ago|` +
	`(?:on|last) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b`)

var reDiscussed = regexp.MustCompile(`(?i)\bwhen (?:we|i|you) (?:discussed|talked about|were discussing|were talking about|chatted about|spoke about|went over|covered|looked at|mentioned)\s+([^.?!,;]{2,80})`)

var numberWords = map[string]int{"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a few": 3, "a couple of": 2, "couple of": 2, "several": 4}

// reConversationRef marks a time phrase as a reference back to the
// conversation ("what you suggested yesterday", "when we discussed the
// garden last week"), not a report about the world ("I talked it over last
// night").
var reConversationRef = regexp.MustCompile(`(?i)\b(?:(?:we|you and i)\s+(?:discussed|talked about|were talking about|chatted about|went over|covered|spoke about)|you\s+(?:said|say|told|tell|mentioned|mention|suggested|suggest|recommended|recommend|gave|give|listed|list|proposed|propose|came up with)|i\s+(?:mentioned|told you|asked you|said to you|shared)|(?:our|that|the) (?:conversation|chat|discussion)\b)`)

// DetectTemporal finds an explicit temporal-return cue (a time phrase that
// refers back to the conversation) and resolves its window against now; ok
// is false without a cue or without a time.
func DetectTemporal(text string, now time.Time) (TemporalCue, bool) {
	// The reference back to the conversation is the rarer half and the
	// cheaper to rule out, so it is tested first.
	if now.IsZero() || !conversationRefBranches().MatchString(text) {
		return TemporalCue{}, false
	}
	m := rxscan.FindStringSubmatch(reTemporal, text)
	if m == nil {
		return TemporalCue{}, false
	}
	phrase := strings.ToLower(m[1])
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	c := TemporalCue{Phrase: phrase}
	switch {
	case phrase == "earlier today" || phrase == "this morning" || phrase == "this afternoon" || phrase == "this evening":
		c.From, c.To = day, now
	case phrase == "yesterday" || phrase == "last night":
		c.From, c.To = day.AddDate(0, 0, -1), day
	case phrase == "earlier this week":
		wd := (int(now.Weekday()) + 6) % 7 // Monday = 0
		c.From, c.To = day.AddDate(0, 0, -wd), now
	case phrase == "earlier this month":
		c.From, c.To = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location()), now
	case phrase == "last week" || phrase == "last weekend":
		c.From, c.To = day.AddDate(0, 0, -10), day.AddDate(0, 0, -3)
		if phrase == "last week" {
			c.From, c.To = day.AddDate(0, 0, -13), day.AddDate(0, 0, -1)
		}
	case phrase == "last month":
		c.From, c.To = day.AddDate(0, -2, 0), day.AddDate(0, 0, -14)
	case phrase == "last year":
		c.From, c.To = day.AddDate(-2, 0, 0), day.AddDate(0, -6, 0)
	case phrase == "last time" || phrase == "the other day":
		c.From, c.To = day.AddDate(0, 0, -30), now
	case strings.HasSuffix(phrase, " ago"):
		f := strings.Fields(phrase)
		unit := f[len(f)-2]
		n := numberWords[strings.Join(f[:len(f)-2], " ")]
		switch {
		case strings.HasPrefix(unit, "day"):
			c.From, c.To = day.AddDate(0, 0, -n-1), day.AddDate(0, 0, -n+2)
		case strings.HasPrefix(unit, "week"):
			c.From, c.To = day.AddDate(0, 0, -7*n-4), day.AddDate(0, 0, -7*n+4)
		default:
			c.From, c.To = day.AddDate(0, -n, -15), day.AddDate(0, -n, 15)
		}
	default: // "on monday", "last friday"
		f := strings.Fields(phrase)
		wd := weekdayIndex(f[len(f)-1])
		back := (int(now.Weekday()) - wd + 7) % 7
		if back == 0 {
			back = 7
		}
		d := day.AddDate(0, 0, -back)
		c.From, c.To = d, d.AddDate(0, 0, 1)
	}
	if d := reDiscussed.FindStringSubmatch(text); d != nil {
		c.Topic = strings.TrimSpace(d[1])
	}
	return c, true
}

func weekdayIndex(s string) int {
	for i, n := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		if n == s {
			return i
		}
	}
	return 0
}

// Anchor is an explicit topic anchor in an input: a named instance ("Sam's
// trip"), a quoted topic ('book club picks'), or the object of a return
// phrase ("back to the kitchen remodel").
type Anchor struct {
	Text string
	// Terms are the anchor's analyzed terms with weights: a name counts twice
	// as much as a common noun, so that "Sam's trip" matches Sam's branch
	// and not Alex's trip.
	Terms   []string
	Weights []float64
	Kind    string // "possessive", "quoted", "return", "named"
}

var (
	rePossessive = regexp.MustCompile(`\b([A-Z][\p{L}]+(?:\s+[A-Z][\p{L}]+)?)['’]s\s+((?:[\p{L}-]+\s*){1,3})`)
	reReturn     = regexp.MustCompile(`(?i)\b(?:back to|return(?:ing)? to|regarding|re:|about|on|for)\s+(?:the|my|our|that|this)\s+([\p{L}0-9'’ -]{3,50})`)
	reNamedThing = regexp.MustCompile(`\b(?:the|my|our)\s+((?:[A-Z][\p{L}]+\s+){1,2}(?:[a-z][\p{L}-]+))`)
)

// anchorStop ends a noun phrase in an anchor.
var anchorStop = text.WordSet(`is are was were be been being do does did has have had will would can could should may might must
to for of in on at by with from about into and or but so than then that which who whom whose what when where why how
if as again again? please now still also just yet there here we i you he she they it this these those again`)

// nounEndings are -ing/-ed words that end a topic phrase as nouns.
var nounEndings = text.WordSet("wedding wedding's meeting building painting training clothing housing booking planning landing ceiling seating catering shopping hiking camping cooking reading writing bedroom bed")

// topicNouns are the heads that make a "the/my/our X Y" phrase a topic
// anchor for return phrases ("back to the garden plan").
func cleanAnchorPhrase(p string) string {
	f := strings.Fields(strings.Trim(p, " ,.;:!?"))
	var keep []string
	for i, w := range f {
		lw := strings.ToLower(strings.Trim(w, ",.;:!?'\""))
		if anchorStop[lw] || i > 0 && len(lw) > 5 && (strings.HasSuffix(lw, "ing") || strings.HasSuffix(lw, "ed")) && !nounEndings[lw] {
			break
		}
		keep = append(keep, strings.Trim(w, ",.;:!?\""))
		if strings.ContainsAny(w, ",.;:!?") {
			break
		}
		if len(keep) == 4 {
			break
		}
	}
	return strings.Join(keep, " ")
}

// returnStrong are the verbs whose object is an anchor even without a
// capitalised word ("back to the kitchen remodel").
var returnStrong = regexp.MustCompile(`(?i)^(?:back to|return(?:ing)? to|regarding|re:)`)

// reReturnCue is an explicit return to an earlier topic ("back to the
// renovation", "let's pick up the move again", "switching back to Maya's
// party"); its capture is the topic returned to.
var reReturnCue = regexp.MustCompile(`(?i)\b(?:(?:get|go|going|come|coming|switch(?:ing)?|circl(?:e|ing)|head(?:ing)?)\s+back\s+(?:to|on)|back\s+(?:to|on)|return(?:ing)?\s+to|revisit(?:ing)?|regarding|re:|pick(?:ing)?\s+up|resum(?:e|ing))\s+(?:the\s+|my\s+|our\s+|that\s+|this\s+)?([\p{L}0-9'’ -]{3,60}?)(?:\s+again\b|\s+for\s+a\s+\w+|\s+while\b|\s+before\b|[.,;:!?—–(]|$)`)

// notReturnVerbs precede "back to/on" without making it a return.
var notReturnVerbs = text.WordSet("came comes got gets went goes sent send sends brought bring brings called call calls wrote write writes paid pay pays moved refer refers referring look looking")

// reFrontedTopic is a topic fronted at the start of an input and set off by
// a dash or colon ("Okay, about the move — which day was it?", "As for the
// party: who's coming?") or by "again" ("On the paper again, …"): the
// speaker names the topic the rest of the input is about, which in a
// branching dialogue is an earlier one. Its capture is the topic.
var reFrontedTopic = regexp.MustCompile(`(?i)^\s*(?:(?:okay|ok|so|right|anyway|hmm|alright|now|well|oh|and)[,.!]?\s+)*(?:(?:about|as\s+for|as\s+to)\s+(?:the\s+|my\s+|our\s+|that\s+|this\s+)?([\p{L}0-9'’ -]{3,60}?)(?:\s+again)?\s*[—–:]|on\s+(?:the\s+|my\s+|our\s+|that\s+|this\s+)?([\p{L}0-9'’ -]{3,60}?)\s+again\b)`)

// ResumeCue reports, for the offline routing, a return cue or a topic
// fronted at the start of the input, and the topic phrase it names. Only
// the explicit return cue makes a topic anchor (on every path).
func ResumeCue(text string) (string, bool) {
	obj, ok := returnCue(text)
	return resumeWith(text, obj, ok)
}

// resumeWith is ResumeCue(text) given returnCue(text).
func resumeWith(text, ret string, isRet bool) (string, bool) {
	if isRet {
		return ret, true
	}
	f := reFrontedTopic.FindStringSubmatch(text)
	if f == nil {
		return "", false
	}
	obj := cleanAnchorPhrase(f[1] + f[2])
	return obj, obj != ""
}

// returnCue reports an explicit return cue and the topic phrase it names.
// "pick up" counts only with "again" ("let's pick up the move again").
func returnCue(text string) (string, bool) {
	m := rxscan.FindStringSubmatchIndex(reReturnCue, text)
	if m == nil {
		return "", false
	}
	cue := strings.ToLower(text[m[0]:m[2]])
	if strings.HasPrefix(cue, "back") {
		// "The reviews came back on my paper" reports, it does not return.
		before := strings.Fields(strings.ToLower(text[:m[0]]))
		if len(before) > 0 && notReturnVerbs[strings.Trim(before[len(before)-1], ",.;:")] {
			return "", false
		}
	}
	if strings.Contains(cue, "pick") {
		rest := text[m[3]:]
		if i := strings.IndexAny(rest, ".!?"); i >= 0 {
			rest = rest[:i]
		}
		if !strings.Contains(strings.ToLower(rest), "again") {
			return "", false
		}
	}
	obj := cleanAnchorPhrase(text[m[2]:m[3]])
	return obj, obj != ""
}

// reNewTopic marks an input that opens a new agenda rather than continuing
// or resuming one: an announcement ("New project:", "Big news:"), a change
// of subject ("on another note", "separately"), or a first-person opening
// of a project ("I'm planning a trip…", "We're moving to…", "My sister asked
// me to help…", "Can you help me plan it?"). It is a routing heuristic of
// the offline configuration, not a rule of the paper.
var reNewTopic = regexp.MustCompile(`(?i)(?:^|[.!?]\s+)(?:(?:ok(?:ay)?|so|alright|right|anyway|also)[,.!]?\s+)?(?:` +
	`new (?:project|topic|thing)\b|big news\b|different (?:topic|question)\b|change of (?:subject|topic)\b|on (?:an)?other note\b|switching gears\b|unrelated(?: question)?[,:]|separately[,:]|` +
	`(?:i'm|i am|we're|we are)\s+(?:finally\s+|also\s+|now\s+|officially\s+)?(?:planning|organi[sz]ing|co-planning|throwing|hosting|renovating|redoing|moving|relocating|revising|coaching|helping|taking|starting|launching|preparing|training for|shopping for|looking for|enrolled)\b|` +
	`(?:i|we)\s+(?:just\s+|finally\s+|recently\s+)?(?:enrolled|signed up|decided to|got engaged|started planning|want to get fit|need to (?:buy|find|plan|organi[sz]e))\b|` +
	`(?:my|our|a|the)\s+(?:[\p{L}'’-]+\s+){0,3}(?:asked me to|is getting married|are getting married|is job hunting|is redoing|finally died|is getting (?:gutted|redone|renovated)|came back on)\b|` +
	`[\p{L} ]{0,30}\b(?:planning|search|hunt) (?:time|has officially started)\b)`)

// reNewTopicTail are closing requests typical of opening a project ("Can
// you help me plan it?", "I'll keep Luca's details with you.").
var reNewTopicTail = regexp.MustCompile(`(?i)\b(?:(?:can|could) you help me (?:plan|organi[sz]e|keep|build|run|think|do this|approach|stay)|(?:i'd like|i want|i need) a (?:sane |clear |proper |good |solid |realistic )?plan\b|help me (?:plan|organi[sz]e|keep it together|approach)|i'll (?:keep|track|note) [\p{L}'’ ]{0,40}(?:with you|here)|let's keep [\p{L}'’ ]{0,40}(?:here|organi[sz]ed|on track|straight)|where do i (?:even )?begin|starting from (?:zero|scratch)|keep track of decisions|let's start a plan)\b`)

// NewTopicCue reports whether text opens a new agenda (see reNewTopic).
func NewTopicCue(text string) bool {
	return newTopicBranches().MatchString(text) || newTopicTailBranches().MatchString(text)
}

// The cue regexps whose matches are only tested, split into their phrases
// (cuesplit.go).
var (
	newTopicBranches        = sync.OnceValue(func() *rxscan.BranchMatcher { return rxscan.NewBranchMatcher(reNewTopic) })
	newTopicTailBranches    = sync.OnceValue(func() *rxscan.BranchMatcher { return rxscan.NewBranchMatcher(reNewTopicTail) })
	conversationRefBranches = sync.OnceValue(func() *rxscan.BranchMatcher { return rxscan.NewBranchMatcher(reConversationRef) })
)

// anchorsWith finds explicit topic anchors in text (at most 3), given
// returnCue(text) (ret, isRet).
func anchorsWith(text, ret string, isRet bool) []Anchor {
	var out []Anchor
	seen := map[string]bool{}
	add := func(phrase, kind string, names map[string]bool) {
		phrase = strings.TrimSpace(phrase)
		if phrase == "" || len(out) == 3 {
			return
		}
		key := strings.ToLower(phrase)
		if seen[key] {
			return
		}
		terms := Terms(phrase)
		if len(terms) == 0 {
			return
		}
		seen[key] = true
		a := Anchor{Text: phrase, Kind: kind, Terms: terms, Weights: make([]float64, len(terms))}
		for i, t := range terms {
			a.Weights[i] = 1
			if names[t] {
				a.Weights[i] = 2
			}
		}
		out = append(out, a)
	}
	nameTerms := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			for _, t := range Terms(n) {
				m[t] = true
			}
		}
		return m
	}
	for _, m := range scanQuoted.FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if g != "" && len(strings.Fields(g)) <= 6 {
				add(g, "quoted", nameTerms(properNounStrings(g)...))
			}
		}
	}
	for _, m := range rxscan.FindAllStringSubmatch(rePossessive, text, -1) {
		owner := m[1]
		if sentenceStarters[strings.ToLower(owner)] {
			continue
		}
		head := cleanAnchorPhrase(m[2])
		if head == "" {
			continue
		}
		add(owner+"'s "+head, "possessive", nameTerms(owner))
	}
	if isRet && ret != "" {
		add(ret, "return", nameTerms(properNounStrings(ret)...))
	}
	for _, m := range rxscan.FindAllStringSubmatchIndex(reReturn, text, -1) {
		obj := cleanAnchorPhrase(text[m[2]:m[3]])
		if obj == "" {
			continue
		}
		names := properNounStrings(obj)
		if len(names) == 0 && !returnStrong.MatchString(text[m[0]:m[1]]) {
			continue // "about the weather" is not an explicit anchor
		}
		add(obj, "return", nameTerms(names...))
	}
	for _, m := range rxscan.FindAllStringSubmatch(reNamedThing, text, -1) {
		obj := cleanAnchorPhrase(m[1])
		names := properNounStrings(obj)
		if len(names) == 0 {
			continue
		}
		add(obj, "named", nameTerms(names...))
	}
	return out
}

// properNounStrings lists the capitalised words of a phrase.
func properNounStrings(p string) []string {
	var out []string
	for _, w := range words(p) {
		if w != "" && strings.ToUpper(w[:1]) == w[:1] && strings.ToLower(w[:1]) != w[:1] && !sentenceStarters[strings.ToLower(w)] {
			out = append(out, strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"))
		}
	}
	return out
}

// QueryType holds the query-type conditions of the dynamic answer-format
// instructions (appendix D) and of structured retrieval.
type QueryType struct {
	Preference bool `json:"preference,omitempty"`
	YesNo      bool `json:"yes_no,omitempty"`
	Previous   bool `json:"previous,omitempty"`
	Current    bool `json:"current,omitempty"`
	Count      bool `json:"count,omitempty"`
	Sum        bool `json:"sum,omitempty"`
	Latest     bool `json:"latest,omitempty"`
	Earliest   bool `json:"earliest,omitempty"`
	Ordering   bool `json:"ordering,omitempty"`
	DateDiff   bool `json:"date_diff,omitempty"`
	// Ordinal is the asked list position (1-based; -1 for "last"), 0 if none.
	Ordinal int  `json:"ordinal,omitempty"`
	Bridge  bool `json:"bridge,omitempty"`
	// Anchors are the explicit topic anchors of the question.
	Anchors []string `json:"anchors,omitempty"`
}

var (
	reYesNo      = regexp.MustCompile(`(?i)^\s*(?:(?:so|and|but|ok|okay|hey|quick question)[,:]?\s+)?(?:is|are|was|were|do|does|did|have|has|had|can|could|should|will|would|am|isn't|aren't|wasn't|didn't|doesn't|don't|haven't|hasn't)\b`)
	rePrevious   = regexp.MustCompile(`(?i)\b(?:previous(?:ly)?|before (?:the|that|it|i|we) (?:change|update|switch)|former(?:ly)?|original(?:ly)?|used to|old (?:value|one|name|address|plan|budget|number)|at first|initially|had been)\b`)
	reCurrent    = regexp.MustCompile(`(?i)\b(?:now|current(?:ly)?|latest|after (?:the )?(?:update|change)|these days|at the moment|most recent(?:ly)?|anymore|updated|still)\b`)
	rePreference = regexp.MustCompile(`(?i)\b(?:recommend|recommendation|suggest(?:ion)?s?|any ideas|ideas for|what should i|tips|advice|what would you suggest|could you suggest|can you suggest|help me (?:pick|choose|find|decide))\b`)
	reCount      = regexp.MustCompile(`(?i)\b(?:how many|number of|how often|count of|how many times)\b`)
	reSum        = regexp.MustCompile(`(?i)\b(?:in total|total|altogether|combined|in all|sum of|overall amount|how much (?:did|have) (?:i|we) (?:spend|spent|pay|paid|raise|raised|save|saved))\b`)
	reLatest     = regexp.MustCompile(`(?i)\b(?:most recent(?:ly)?|latest|last time|the last (?:time|one)|most recently)\b`)
	reEarliest   = regexp.MustCompile(`(?i)\b(?:earliest|first time|the first one|initially|at the very start)\b`)
	reOrdering   = regexp.MustCompile(`(?i)\b(?:in what order|what order|which came first|which (?:did|happened) (?:i|first)|chronolog\w*|sequence|before or after|order of)\b`)
	reDateDiff   = regexp.MustCompile(`(?i)\b(?:how many (?:days|weeks|months|years)|how long (?:ago|since|between|before|after)|days? (?:between|since|until|before|after)|weeks? (?:between|since|until))\b`)
	reBridge     = regexp.MustCompile(`(?i)\b(?:connect(?:s|ed|ion)?|alongside|link(?:s|ed)? (?:to|with|between)|tie[sd]? (?:in|together)|combine[sd]?|together with|both (?:the|of)|relate[sd]? to|in common|same as (?:the|my))\b`)
	reOrdinal    = regexp.MustCompile(`(?i)\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final|1st|2nd|3rd|[4-9]th|10th|number (?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)|#\d+|no\. ?\d+|item \d+)\b`)
)

var reDigits = regexp.MustCompile(`\d+`)

var ordinalWords = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
	"last": -1, "final": -1, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8, "9th": 9, "10th": 10}

// cardinalWords spell the positions "number three" names.
var cardinalWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}

// reListNoun marks an ordinal as a list position ("the second restaurant you
// suggested") rather than a time ("the first time").
var reListNoun = regexp.MustCompile(`(?i)\b(?:item|one|option|pick|choice|suggestion|recommendation|recommended|suggested|listed|list|step|book|novel|movie|film|song|restaurant|place|idea|title|name|dish|recipe|move|tip|point|entry|spot|hotel|activity|destination|exercise|podcast|show|track)s?\b`)

// ClassifyQuery derives a question's query type.
func ClassifyQuery(text string) QueryType {
	var q QueryType
	q.Preference = rePreference.MatchString(text)
	q.YesNo = reYesNo.MatchString(text) && !strings.Contains(strings.ToLower(text), " or ")
	q.Previous = rePrevious.MatchString(text)
	q.Current = reCurrent.MatchString(text)
	q.Count = reCount.MatchString(text)
	q.Sum = reSum.MatchString(text) || (strings.Contains(strings.ToLower(text), "how much") && reSum.MatchString(text))
	q.DateDiff = reDateDiff.MatchString(text)
	if q.DateDiff {
		q.Count = false
	}
	q.Ordering = reOrdering.MatchString(text)
	q.Latest = reLatest.MatchString(text)
	q.Earliest = reEarliest.MatchString(text)
	if m := reOrdinal.FindStringSubmatch(text); m != nil && reListNoun.MatchString(text) && !strings.Contains(strings.ToLower(text), m[1]+" time") {
		w := strings.ToLower(m[1])
		if n, ok := ordinalWords[w]; ok {
			q.Ordinal = n
		} else if n, ok := cardinalWords[strings.TrimPrefix(w, "number ")]; ok {
			q.Ordinal = n
		} else if d := reDigits.FindString(w); d != "" {
			q.Ordinal, _ = strconv.Atoi(d)
		}
		if q.Ordinal == 1 || q.Ordinal == -1 {
			// "the first/last one you suggested" is a list position, not the
			// earliest/latest event.
			q.Earliest, q.Latest = false, false
		}
	}
	for _, a := range DetectAnchors(text) {
		q.Anchors = append(q.Anchors, a.Text)
	}
	q.Bridge = reBridge.MatchString(text) && (len(q.Anchors) >= 1 || strings.Contains(strings.ToLower(text), " and "))
	return q
}

// Computes reports whether the question asks for a deterministic event
// computation (count, sum, latest/earliest, ordering, date difference).
func (q QueryType) Computes() bool {
	return q.Count || q.Sum || q.Latest || q.Earliest || q.Ordering || q.DateDiff
}

// reShiftMarker is an explicit change of subject at the start of a
// sentence ("completely different subject, but …", "switching gears:",
// "diff topic.", "On a completely unrelated matter, …", "Random thing
// while I have you: …"): the speaker says the input leaves what was being
// talked about. It is an offline routing rule (arbormem.shift_markers), not
// a rule of the paper. A bare "another question" or "one more thing" is a
// continuation cue, not a shift.
var reShiftMarker = regexp.MustCompile(`(?i)(?:^|[.!?]\s+)(?:(?:ok(?:ay)?|so|alright|right|anyway|also|oh|hey|um+|and|but|btw|by the way)[,.!:]?\s+)*(?:` +
	`(?:(?:on|in|for)\s+)?(?:an?\s+)?(?:(?:completely|totally|entirely|somewhat|slightly|kind of|kinda)\s+)?(?:different|unrelated|separate|random)\s+(?:topic|subject|question|matter|note|thing|issue)\b|` +
	`new (?:topic|subject)\b|diff topic\b|on (?:an)?other note\b|change of (?:subject|topic)\b|chang(?:e|ing) (?:the )?(?:subject|topic)\b|switch(?:ing)? (?:gears|topics?|subjects?)\b|` +
	`(?:totally|completely) (?:unrelated|random)\b|unrelated(?: question)?[,:]|separately[,:]|random(?:ly)?[,:]|while i have you\b|before i forget\b)`)

// ShiftMarker reports whether text announces a change of subject (see
// reShiftMarker).
func ShiftMarker(text string) bool { return shiftBranches().MatchString(text) }

// reSoftShift is a soft shift marker: an opening that often, not always,
// brings up something else ("oh, and my car broke down", "I also need
// advice about …", "by the way", "hold on", "and now …"). A bare "also"
// or "plus" is not one: it adds to the thread at least as often. The offline routing reads it as a change of subject only when
// the words after it share nothing with the active trajectory
// (arbormem.shift_markers).
var reSoftShift = regexp.MustCompile(`(?i)^\s*(?:(?:ok(?:ay)?|so|oh|ah|ugh|hey|great|well|wait|hmm+)[,.!:]?\s+)*(?:` +
	`(?:oh|ah|ugh)[,.!]?\s+and\b|and also\b|and now\b|btw\b|by the way\b|hold on\b|wait\b|` +
	`(?:i|we)\s+also\s+(?:need|want|have|got|wanted)\b)`)

// SoftShift reports whether text opens with a soft shift marker (see
// reSoftShift).
func SoftShift(text string) bool { return softShiftBranches().MatchString(text) }

// reLabel is a label fronted at the start of an input and closed by a
// stop, colon or dash: a topic with "again" or "update" ("ok, tax
// again.", "biscuit update: …") or an update on one ("update on the
// bread: …"). The speaker names what the rest is about before saying it,
// which in interleaved chat is mostly a thread said before. Its capture is
// the label's topic, of at most three words.
var reLabel = regexp.MustCompile(`(?i)^\s*(?:(?:ok(?:ay)?|so|right|oh|and|anyway|alright)[,.!]?\s+)*(?:(?:(?:an?|quick|small|little)\s+)?update\s+(?:on|about)\s+(?:the\s+|my\s+|our\s+|that\s+)?([\p{L}0-9'’ -]{2,40}?)|((?:[\p{L}0-9'’-]+\s+){0,2}[\p{L}0-9'’-]+)\s+(?:again|update))\s*[.:;!—–]`)

// FrontedLabel reports a label fronted at the start of text (see reLabel)
// and its topic phrase.
func FrontedLabel(text string) (string, bool) {
	m := rxscan.FindStringSubmatch(reLabel, text)
	if m == nil {
		return "", false
	}
	obj := strings.TrimSpace(m[1] + m[2])
	for _, w := range strings.Fields(strings.ToLower(obj)) {
		if labelNot[w] {
			// "I tried it again." reports; it labels nothing.
			return "", false
		}
	}
	return obj, obj != ""
}

// labelNot are words that make a fronted phrase a clause, not a label.
var labelNot = text.WordSet(`i we you he she it they me us them this that there here is was are were do did does have had has`)

// reAddOn is a bare additive opening ("also jonas asked me…", "Plus, the
// venue…", "Additionally"): a continuation cue (reContinuation) that adds
// to the thread as often as it brings up something new, so the offline
// routing reads it as a change of subject only before many words the active
// trajectory has not said (arbormem.shift_markers).
var reAddOn = regexp.MustCompile(`(?i)^\s*(?:(?:ok(?:ay)?|so|oh|and)[,.!]?\s+)*(?:also|plus|additionally)\b`)

// AddOn reports whether text opens with a bare additive cue (see reAddOn).
func AddOn(text string) bool { return rxscan.MatchString(reAddOn, text) }

var (
	shiftBranches     = sync.OnceValue(func() *rxscan.BranchMatcher { return rxscan.NewBranchMatcher(reShiftMarker) })
	softShiftBranches = sync.OnceValue(func() *rxscan.BranchMatcher { return rxscan.NewBranchMatcher(reSoftShift) })
)

// ContentTerms are the analysed terms of text that may say what it is
// about: Terms without the generic and chat words ("day", "getting",
// "last", "guess"), which any thread of a conversation says, and without
// numbers of one or two digits ("16 weeks", "16:40", "at 8"), which turn up
// in every thread with unrelated meanings; longer numbers (a rent of 1050,
// a year) stay.
// An irregular verb's past forms are read as its base form, so that a
// follow-up in another tense ("where did they meet again") shares its word
// with the turn that told it ("they met at a climbing gym").
func ContentTerms(text string) []string {
	ts := Terms(text)
	out := ts[:0]
	for _, t := range ts {
		if c, ok := ContentTerm(t); ok {
			out = append(out, c)
		}
	}
	return out
}

// ContentTerm is what ContentTerms makes of one of Terms' terms: false
// for a generic word or a short number, the base form of an irregular
// past, the term itself otherwise. Callers that hold a text's terms
// already (a commit has analysed its interaction) filter them with it.
func ContentTerm(t string) (string, bool) {
	if genericTerms()[t] || len(t) <= 2 && strings.Trim(t, "0123456789") == "" {
		return "", false
	}
	if base, ok := irregularTerms()[t]; ok {
		return base, true
	}
	return t, true
}

// irregularPast lists common irregular verbs as "base past participle"
// (the participle omitted where it is the past); verbs whose forms are
// generic or chat words ("go", "get", "make", "say") are left out.
var irregularPast = []string{
	"meet met", "fly flew flown", "buy bought", "pay paid", "sell sold", "build built", "spend spent",
	"leave left", "bring brought", "send sent", "lose lost", "choose chose chosen", "write wrote written",
	"run ran", "win won", "begin began begun", "break broke broken", "drive drove driven", "eat ate eaten",
	"take took taken", "teach taught", "fall fell fallen", "feel felt", "keep kept", "hold held",
	"ride rode ridden", "sing sang sung", "swim swam swum", "sleep slept", "steal stole stolen",
	"wear wore worn", "throw threw thrown", "grow grew grown", "draw drew drawn", "forget forgot forgotten",
	"hide hid hidden", "lend lent", "shake shook shaken", "stand stood", "understand understood",
	"freeze froze frozen", "hang hung", "feed fed", "lead led", "deal dealt", "mean meant", "sit sat",
	"wake woke woken", "fight fought", "seek sought", "sink sank sunk", "shoot shot", "bend bent",
}

// irregularTerms maps the analysed past forms of irregularPast to the
// analysed base form.
var irregularTerms = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, line := range irregularPast {
		forms := strings.Fields(line)
		base := Terms(forms[0])
		if len(base) != 1 {
			continue
		}
		for _, f := range forms[1:] {
			if t := Terms(f); len(t) == 1 && t[0] != base[0] {
				m[t[0]] = base[0]
			}
		}
	}
	return m
})

// pronounWords are words the analyser keeps that refer instead of naming:
// "one" ("the balcony one"; stemmed "on"), and question words written
// without their apostrophe ("whats the rent"), which the stop list misses.
var pronounWords = text.WordSet(`one ones whats hows thats theres heres whos wheres whens whys`)

// genericTerms are genericWords, chatWords and pronounWords as Terms
// analyses them, so that their inflections ("getting", "days") are dropped
// too.
var genericTerms = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, set := range []map[string]bool{genericWords, chatWords, pronounWords} {
		for w := range set {
			for _, t := range Terms(w) {
				m[t] = true
			}
		}
	}
	return m
})
