package rules

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/arbor-eval/arbor/pkg/arbormem/ops"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/rxscan"
	"github.com/arbor-eval/arbor/pkg/text"
)

// Ops implements ops.Extractor, ops.Auditor and ops.TagPredictor with rules only, so
// that ArborMem runs with no chat model (the offline default). Results are
// labelled heuristic wherever they are reported.
type Ops struct {
	// Limits are the caps the paper does not state (zero: the defaults).
	Limits ops.Limits
}

var (
	_ ops.Extractor    = Ops{}
	_ ops.Auditor      = Ops{}
	_ ops.TagPredictor = Ops{}
)

// Name labels the rule-based operations.
func (Ops) Name() string { return "heuristic" }

// Heuristic is true: results come from rules.
func (Ops) Heuristic() bool { return true }

// turnSource is one turn a rule reads, with the name facts about its author
// are written with ("User" for the user side; a corpus speaker's name when
// the corpus gives one, as LoCoMo does for both speakers).
// to is the one other named speaker of the interaction, whom "you" in
// the turn addresses ("" when the speakers are unnamed or more than two).
type turnSource struct {
	who   string
	to    string
	text  string
	human bool
}

func sourcesOf(in dialog.Interaction) []turnSource {
	var out []turnSource
	names := map[string]bool{}
	for _, t := range in.Turns {
		who := "User"
		human := t.Role == dialog.RoleUser
		if t.Speaker != "" {
			who, human = t.Speaker, true
			names[t.Speaker] = true
		}
		out = append(out, turnSource{who: who, text: t.Content, human: human})
	}
	if len(names) == 2 {
		for i := range out {
			for n := range names {
				if n != out[i].who {
					out[i].to = n
				}
			}
		}
	}
	return out
}

// NodeMetadata summarises an interaction by its most informative sentences
// within node_metadata's 50-word limit: the human side's sentences that
// carry concrete detail first, then its remaining statements, then
// assistant sentences that add details not yet covered; discourse fillers
// ("One more thing on this.") and generic advice are left out.
func (o Ops) NodeMetadata(_ context.Context, in dialog.Interaction) (ops.NodeMeta, error) {
	// A candidate's third-person text and its entities are worked out
	// only if the choice below reaches it: once the 50 words are nearly
	// spent, most candidates are passed over by their length alone.
	type cand struct {
		sent      string
		words     int // fieldCount(sent)
		src       *turnSource
		prio      int
		order     int
		text      string
		textDone  bool
		terms     []string
		termsDone bool
	}
	textOf := func(c *cand) string {
		if !c.textDone {
			c.text, c.textDone = c.sent, true
			switch {
			case c.src.human && c.src.who != "User":
				c.text = personalizeNamed(c.sent, c.src.who, c.src.to)
			case c.src.human:
				c.text = personalize(c.sent, c.src.who)
			}
		}
		return c.text
	}
	Terms := func(c *cand) []string {
		if !c.termsDone {
			for _, e := range Entities(c.sent, 8) {
				c.terms = append(c.terms, strings.ToLower(e))
			}
			c.termsDone = true
		}
		return c.terms
	}
	var cands []cand
	srcs := sourcesOf(in)
	for i := range srcs {
		src := &srcs[i]
		for _, sent := range Sentences(stripMarkdown(src.text)) {
			words := fieldCount(sent)
			if words < 3 {
				continue
			}
			// A sentence with detail is no filler, whatever cue opens it;
			// the cue's regexp runs only on the others.
			detail := hasDetail(sent)
			if !detail && isFiller(sent) {
				continue
			}
			prio := 0
			switch {
			case src.human && detail:
				prio = 0
			case src.human:
				prio = 1
			case detail:
				prio = 2
			default:
				continue
			}
			cands = append(cands, cand{sent: sent, words: words, src: src, prio: prio, order: len(cands)})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(a.prio, b.prio) })
	budget := ops.MaxSummaryWords
	covered := map[string]bool{}
	var picked []cand
	for i := range cands {
		c := &cands[i]
		if budget <= 0 {
			break
		}
		n := c.words // the sentence's, unless the third person changed it
		if t := textOf(c); t != c.sent {
			n = fieldCount(t)
		}
		if n > budget && len(picked) > 0 && c.prio > 0 {
			continue // too long, whatever its terms
		}
		if c.prio == 2 {
			fresh := false
			for _, t := range Terms(c) {
				if !covered[t] {
					fresh = true
				}
			}
			if !fresh {
				continue
			}
		}
		p := *c
		if n > budget {
			p.text = text.ClipWords(p.text, budget)
			n = budget
		}
		budget -= n
		for _, t := range Terms(c) {
			covered[t] = true
		}
		picked = append(picked, p)
	}
	slices.SortStableFunc(picked, func(a, b cand) int { return cmp.Compare(a.order, b.order) })
	parts := make([]string, len(picked))
	for i, c := range picked {
		parts[i] = c.text
	}
	all := strings.TrimSpace(in.Text())
	// The whole interaction's entities are asked for only here: computed
	// directly, not through the memo, whose key would copy the text and
	// whose slot would evict a sentence's (Entities(t, max) is
	// entitiesOf(t, max); see Entities).
	return ops.SanitizeMeta(ops.NodeMeta{Summary: strings.Join(parts, " "), Entities: entitiesOf(stripMarkdown(all), 12)}, o.Limits), nil
}

// isFiller reports whether a sentence without detail (!hasDetail) is only
// a discourse cue ("One more thing on this.", "Okay, another thing:").
func isFiller(sent string) bool {
	loc := rxscan.FindStringIndex(reContinuation, sent)
	if loc == nil {
		return false
	}
	return fieldCount(strings.Trim(sent[loc[1]:], " .,:;!-—")) < 3
}

// personalize rewrites first-person words with the author's name.
func personalize(s, who string) string {
	out := firstPersonToUser(s)
	if who != "User" {
		out = strings.ReplaceAll(out, "User's", who+"'s")
		out = strings.ReplaceAll(out, "User", who)
	}
	return out
}

// personalizeNamed writes a named speaker's sentence in the third person,
// as a question about the conversation names them ("What does Caroline
// collect?" for "I collect classic children's books"): first-person words
// become the speaker's name, "you" the one other speaker's (to, when
// known), and a common verb after either agrees ("Caroline collects").
// Unnamed speakers (the user of an assistant dialogue) keep personalize.
func personalizeNamed(s, who, to string) string {
	f := strings.Fields(s)
	for i, w := range f {
		core := strings.TrimRight(w, ".,;:!?")
		tail := w[len(core):]
		lc := strings.ToLower(strings.ReplaceAll(core, "’", "'"))
		name, rest := "", ""
		switch lc {
		case "i", "me", "myself":
			name = who
		case "i'm":
			name, rest = who, " is"
		case "i've":
			name, rest = who, " has"
		case "i'd":
			name, rest = who, " would"
		case "i'll":
			name, rest = who, " will"
		case "my", "mine":
			name = who + "'s"
		case "you", "yourself":
			if lc == "you" && tail == "" && i+1 < len(f) && pluralYou[strings.ToLower(strings.TrimRight(f[i+1], ".,;:!?"))] {
				continue // "you all", "you both": both or all of them, not one name
			}
			name = to
		case "you're":
			name, rest = to, " is"
		case "you've":
			name, rest = to, " has"
		case "your", "yours":
			if to != "" {
				name = to + "'s"
			}
		}
		if name == "" {
			continue
		}
		f[i] = name + rest + tail
		if rest == "" && tail == "" && (lc == "i" || lc == "you") {
			agreeVerb(f, i+1)
		}
		if lc == "you" && i > 0 {
			// An auxiliary before its subject: "How have you been?"
			agreeAux(f, i-1)
		}
	}
	return strings.Join(f, " ")
}

// agreeVerb puts the verb at f[i] (after adverbs like "really") in the
// third person singular, for a small set of common verbs only, so that a
// past tense or a noun is never changed.
func agreeVerb(f []string, i int) {
	for i < len(f) && agreeSkip[strings.ToLower(f[i])] {
		i++
	}
	if i >= len(f) {
		return
	}
	core := strings.TrimRight(f[i], ".,;:!?")
	tail := f[i][len(core):]
	if v, ok := agreeVerbs[core]; ok {
		f[i] = v + tail
	}
}

// agreeAux puts an auxiliary that precedes "you" (a question's inverted
// subject, now a name) in the third person singular: "have you" → "has
// Melanie". Only the auxiliaries, so "thank you" or "see you" stay.
func agreeAux(f []string, i int) {
	core := f[i]
	low := strings.ToLower(core)
	v, ok := auxAgree[low]
	if !ok {
		return
	}
	if core != low { // sentence-initial capital
		v = strings.ToUpper(v[:1]) + v[1:]
	}
	f[i] = v
}

var auxAgree = map[string]string{"have": "has", "are": "is", "were": "was", "do": "does", "don't": "doesn't", "aren't": "isn't", "weren't": "wasn't", "haven't": "hasn't"}

// pluralYou are the words after which "you" addresses more than the other
// speaker ("you all", "you both", "you guys", "you two").
var pluralYou = text.WordSet("all both guys two three folks")

var agreeSkip = text.WordSet("really also just always still often usually sometimes never even actually totally definitely absolutely")

// agreeVerbs maps common present-tense verbs to their third-person form.
var agreeVerbs = func() map[string]string {
	m := map[string]string{"have": "has", "are": "is", "were": "was", "do": "does", "go": "goes", "am": "is", "don't": "doesn't", "do't": "doesn't", "try": "tries", "watch": "watches", "teach": "teaches", "wish": "wishes", "miss": "misses"}
	for _, v := range strings.Fields("love like enjoy collect want need think know feel hope work live read write paint play run make take use own volunteer prefer hate plan keep find believe study practice dream cook bake swim dance sing draw visit help get see spend remember mean agree wonder") {
		m[v] = v + "s"
	}
	return m
}()

var reMarkdown = regexp.MustCompile(`\*\*|__|#+\s|` + "`")

// stripMarkdown is reMarkdown.ReplaceAllString(s, "") by hand (one pass,
// no regexp machine; TestStripMarkdownMatchesRegexp): it drops "**", "__",
// backquotes, and runs of '#' followed by one ASCII space character.
func stripMarkdown(s string) string {
	if !strings.ContainsAny(s, "*_#`") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case (c == '*' || c == '_') && i+1 < len(s) && s[i+1] == c:
			i += 2
			continue
		case c == '`':
			i++
			continue
		case c == '#':
			j := i
			for j < len(s) && s[j] == '#' {
				j++
			}
			if j < len(s) && rxscan.IsSpace(s[j]) {
				i = j + 1
				continue
			}
			// No match at any '#' of this run: keep them all.
			b.WriteString(s[i:j])
			i = j
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// hasValue reports whether a sentence states a recallable value: a number,
// a date, a quoted title, or a name that is not just the possessor of a
// topic ("Kofi's party" names a topic, "Gloria Abernathy" a value).
func hasValue(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	if scanQuoted.MatchString(s) || scanDateText.MatchString(s) {
		return true
	}
	for _, p := range properNouns(s) {
		end := p.pos + len(p.s)
		if end < len(s) && (strings.HasPrefix(s[end:], "'s") || strings.HasPrefix(s[end:], "’s")) {
			continue
		}
		return true
	}
	return false
}

// returnOnly reports a sentence that only announces a return to a topic
// ("Right, back to Kofi's party.").
func returnOnly(s string) bool {
	obj, ok := ResumeCue(s)
	return ok && fieldCount(s) <= fieldCount(obj)+5
}

// PathSummary keeps the branch's topic (inherited from the parent, or derived
// from a new root's own input) with the branch's accumulated key entities,
// and records the current node as progress, in path_evolution's
// "Topic: … | Progress: …" format.
func (o Ops) PathSummary(_ context.Context, prev string, cur ops.NodeMeta, in dialog.Interaction) (string, error) {
	topic, ents := parsePathTopic(prev)
	if topic == "" {
		topic = DeriveTopic(in, cur)
	}
	seen := map[string]bool{strings.ToLower(topic): true}
	for _, e := range ents {
		seen[strings.ToLower(e)] = true
	}
	for _, e := range cur.Entities {
		if len(ents) >= 10 {
			break
		}
		if k := strings.ToLower(e); !seen[k] && IsNameLike(e) {
			seen[k] = true
			ents = append(ents, e)
		}
	}
	t := topic
	if len(ents) > 0 {
		t += " (" + strings.Join(ents, ", ") + ")"
	}
	return o.Limits.ClipPathSummary("Topic: " + t + " | Progress: " + text.ClipWords(cur.Summary, 30)), nil
}

// IsNameLike keeps names and titles in the path's entity list, not numbers
// or dates ("June 14").
func IsNameLike(e string) bool {
	r := []rune(e)
	if len(r) < 2 || !unicode.IsUpper(r[0]) {
		return false
	}
	f := strings.Fields(strings.ToLower(e))
	return !calendarWords[strings.Trim(f[0], ".,")]
}

// parsePathTopic splits "Topic: T (e1, e2) | Progress: …" into T and [e1 e2].
func parsePathTopic(p string) (string, []string) {
	if p == "" {
		return "", nil
	}
	t := p
	if i := strings.Index(strings.ToLower(t), "topic:"); i >= 0 {
		t = t[i+len("topic:"):]
	}
	if i := strings.Index(t, "|"); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	var ents []string
	if i := strings.Index(t, " ("); i >= 0 && strings.HasSuffix(t, ")") {
		for _, e := range strings.Split(t[i+2:len(t)-1], ",") {
			if e = strings.TrimSpace(e); e != "" {
				ents = append(ents, e)
			}
		}
		t = strings.TrimSpace(t[:i])
	}
	return t, ents
}

// TopicKeyOf extracts the core subject of a path summary ("Topic: X | …").
func TopicKeyOf(pathSummary string) string {
	t, _ := parsePathTopic(pathSummary)
	return text.ClipRunes(t, 100)
}

// DeriveTopic names a new branch from its first interaction: an explicit
// anchor of the user's input, else its first names, else its first content
// words.
func DeriveTopic(in dialog.Interaction, meta ops.NodeMeta) string {
	u := in.User()
	if u == "" {
		u = in.Text()
	}
	if as := DetectAnchors(u); len(as) > 0 {
		return as[0].Text
	}
	speakers := speakerNames(in)
	var names []string
	for _, e := range Entities(u, 6) {
		if IsNameLike(e) && !speakers.names(e) {
			names = append(names, e)
			if len(names) == 3 {
				break
			}
		}
	}
	var cw []string
	inName := map[string]bool{}
	for _, n := range names {
		for _, w := range strings.Fields(strings.ToLower(n)) {
			inName[w] = true
		}
	}
	topicWords := func(text string, n int) {
		for _, w := range contentWords(text, n) {
			if !inName[w] && !speakers.chat(w) && len(cw) < 4 {
				cw = append(cw, w)
			}
		}
	}
	topicWords(u, 8)
	if len(names) == 0 && len(cw) == 0 && len(speakers) > 0 {
		// A named speaker's greeting says nothing of the topic; the reply
		// in the same interaction usually does ("Hey Mel!" — "I'm swamped
		// with the kids & work"). inName is empty here.
		topicWords(in.Text(), 12)
	}
	switch {
	case len(names) > 0 && len(cw) > 0:
		return strings.Join(names, ", ") + ": " + strings.Join(cw, " ")
	case len(names) > 0:
		return strings.Join(names, ", ")
	case len(cw) > 0:
		return strings.Join(cw, " ")
	}
	return text.ClipWords(meta.Summary, 6)
}

// speakerSet holds the lower-cased names of an interaction's named
// speakers (LoCoMo gives both); empty for an assistant dialogue.
type speakerSet map[string]bool

func speakerNames(in dialog.Interaction) speakerSet {
	out := speakerSet{}
	for _, t := range in.Turns {
		if t.Speaker != "" {
			out[strings.ToLower(t.Speaker)] = true
		}
	}
	return out
}

// names reports whether e holds a speaker's name or a short form of it
// ("Mel" for Melanie, "Woohoo Melanie"): in a conversation between named people the speakers'
// names say who talks, not what about, so they never name a branch.
func (sp speakerSet) names(e string) bool {
	for _, w := range strings.Fields(strings.ToLower(e)) {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if len(w) < 3 {
			continue
		}
		for n := range sp {
			if strings.HasPrefix(n, w) {
				return true
			}
		}
	}
	return false
}

// chat reports a word that names no topic in a conversation between
// named people: a speaker's name or a chat word. An assistant dialogue
// (no named speakers) keeps every content word.
func (sp speakerSet) chat(w string) bool {
	return len(sp) > 0 && (sp.names(w) || chatWords[w])
}

// chatWords are the greetings and reactions of casual conversation
// between people ("long time no talk", "congrats", "sorry to hear"), which
// never name what a branch is about.
var chatWords = text.WordSet(`see seeing chat chatted talk talked spoke speak catch caught hear heard happened happening wanted say said
hope hoping doing guess whoa wow woohoo yay oops omg congrats congratulations sorry awesome amazing wonderful cool
glad happy lately hectic news gotta gonna wanna long since last you're what's how's that's there's here's it's`)

// genericWords are frequent chat words that never name a topic.
var genericWords = text.WordSet(`want need like love think know help please thanks thank hi hello hey could would should can will just really
get got make made go going tell let give find look looking good great nice sure okay ok yes no also well much many lot lots
something anything thing things way idea ideas question questions maybe pretty quite bit little kind sort plan planning
today tomorrow yesterday week day time now still already again actually currently start started starting trying try
his her hers their theirs them him its mine yours ours`)

// contentWords returns the first n non-stop, non-generic words of s,
// lower-cased, in order.
func contentWords(s string, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(s) {
		lw := strings.ToLower(strings.Trim(w, "'’-"))
		if len(lw) < 3 || anchorStop[lw] || sentenceStarters[lw] || genericWords[lw] || seen[lw] {
			continue
		}
		if _, err := strconv.Atoi(lw); err == nil {
			continue
		}
		seen[lw] = true
		out = append(out, lw)
		if len(out) == n {
			break
		}
	}
	return out
}

var (
	// reSharedImage is an image caption as the LoCoMo loader renders it.
	reSharedImage = regexp.MustCompile(`(?i)(?:^|\s)and shared ((?:a|an|the)\s+(?:photo|photograph|photography|picture|image|pic)\b.*)$`)
	// reSelfStatement is a first-person statement of what the speaker has,
	// does or is: "I collect …", "I've been volunteering …", "We adopted …",
	// "I'm a counselor", "My kids love …".
	reSelfStatement = regexp.MustCompile(`(?i)\b(?:(?:i|we)(?:'ve| have)?\s+(?:(?:really|also|just|always|still|often|usually|recently|finally|been)\s+)*(?:collect|have|own|play|practice|volunteer|work|live|started|start|joined|adopted|learned|learning|teach|study|run|paint|read|write|bake|cook|take|took|went|go|got|made|make|bought|love|enjoy|signed)\w*|i'm (?:a|an|into|learning|taking|working|volunteering|studying|training|planning)|my (?:kids|son|daughter|husband|wife|partner|family|mom|dad|parents|brother|sister|dog|cat|pet)\b)`)
)

var (
	reFirstPerson = regexp.MustCompile(`(?i)\b(?:i|i'm|i've|i'd|i'll|my|mine|me|we|our|we're|we've|us)\b`)
	rePreferVerb  = regexp.MustCompile(`(?i)\b(?:love|loves|like|likes|prefer|prefers|favou?rite|hate|hates|enjoy|enjoys|allergic|vegetarian|vegan|pescatarian|gluten-free|can't stand|dislike)\b`)
	reUpdateCue   = regexp.MustCompile(`(?i)\b(?:now|actually|changed|change(?:d)? to|switched|moved|no longer|instead|updated?|raised|lowered|increased|decreased|renamed|new|anymore|correction|revised|bumped|cut)\b`)
)

// Facts keeps self-contained statements with concrete detail from the human
// side of the interaction, rewritten in the third person ("User …"), each
// tagged with the best-matching ontology category.
func (o Ops) Facts(_ context.Context, in dialog.Interaction) ([]ops.FactDraft, error) {
	var out []ops.FactDraft
	for _, src := range sourcesOf(in) {
		if !src.human {
			continue
		}
		named := src.who != "User"
		for _, sent := range Sentences(src.text) {
			sent = strings.TrimSpace(stripMarkdown(sent))
			if named {
				// An image the speaker shared (the loader appends its
				// caption as "… and shared a photo of …").
				if m := reSharedImage.FindStringSubmatch(sent); m != nil {
					out = append(out, ops.FactDraft{Fact: text.ClipRunes(src.who+" shared "+strings.TrimRight(m[1], " .!"), 300), Entities: Entities(m[1], 6)})
					sent = strings.TrimSpace(sent[:len(sent)-len(m[0])])
				}
			}
			if strings.HasSuffix(sent, "?") || fieldCount(sent) < 4 {
				continue
			}
			// A statement with a concrete value, or a first-person
			// preference; in a conversation between named people, also
			// what the speaker has, does or is ("I collect …").
			if returnOnly(sent) || !hasValue(sent) && !(rxscan.MatchString(reFirstPerson, sent) && rxscan.MatchString(rePreferVerb, sent)) && !(named && rxscan.MatchString(reSelfStatement, sent)) {
				continue
			}
			fact := personalize(sent, src.who)
			if named {
				fact = personalizeNamed(sent, src.who, src.to)
			}
			fact = text.ClipRunes(fact, 300)
			tags := ruleTags(sent, 1)
			tag := ""
			if len(tags) > 0 {
				tag = tags[0]
			}
			out = append(out, ops.FactDraft{Fact: fact, Tag: tag, Entities: Entities(sent, 6)})
		}
	}
	return ops.SanitizeFacts(out, o.Limits), nil
}

var (
	reNumbered = regexp.MustCompile(`^\s*(?:\(?(\d{1,2})[.)]|#(\d{1,2}))\s+(.+)$`)
	reBullet   = regexp.MustCompile(`^\s*[-*•]\s+(.+)$`)
	reItemCut  = regexp.MustCompile(`\s+[–—]\s+|\s+-\s+|:\s+|\s+\(`)
	reAskList  = regexp.MustCompile(`(?i)\b(?:suggest|recommend|list|give me|share|find|ideas? for|options? for|what are some|name|pick|draft|write|plan)\b\s*(.*)`)
	reInline   = regexp.MustCompile(`\((\d{1,2})\)\s*([^();]+?)(?:[,;]|\s+and\s+|$)`)
)

// Artifacts reads list items, links and quoted titles from the assistant's
// answer (assistant_artifact_miner's limits: at most 8 items, short fields).
func (Ops) Artifacts(_ context.Context, in dialog.Interaction) ([]ops.Artifact, error) {
	var asst []string
	for _, t := range in.Turns {
		if t.Role == dialog.RoleAssistant && t.Speaker == "" {
			asst = append(asst, t.Content)
		}
	}
	text := strings.Join(asst, "\n")
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	topic := artifactTopic(in.User())
	kind := "list_item"
	lu := strings.ToLower(in.User())
	switch {
	case strings.Contains(lu, "recipe"):
		kind = "recipe"
	case strings.Contains(lu, "step"):
		kind = "step"
	case rxscan.MatchString(rePreference, lu):
		kind = "recommendation"
	}
	var out []ops.Artifact
	add := func(item string, ord int, typ string) {
		item = strings.TrimSpace(stripMarkdown(item))
		if item == "" {
			return
		}
		ev := item
		if loc := reItemCut.FindStringIndex(item); loc != nil && loc[0] >= 3 {
			item = item[:loc[0]]
		}
		item = strings.Trim(item, " .,;:*\"")
		if item == "" {
			return
		}
		out = append(out, ops.Artifact{Type: typ, Topic: topic, Item: item, Ordinal: ord, Entities: Entities(ev, 4), Evidence: ev})
	}
	bullet := 0
	for _, line := range strings.Split(text, "\n") {
		if m := reNumbered.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1] + m[2])
			add(m[3], n, kind)
			continue
		}
		if m := reBullet.FindStringSubmatch(line); m != nil {
			bullet++
			add(m[1], bullet, kind)
			continue
		}
		bullet = 0
		for _, m := range reInline.FindAllStringSubmatch(line, -1) {
			n, _ := strconv.Atoi(m[1])
			add(m[2], n, kind)
		}
	}
	for _, u := range scanURL.FindAllString(text, -1) {
		add(u, 0, "link")
	}
	if len(out) == 0 {
		for _, m := range scanQuoted.FindAllStringSubmatch(text, -1) {
			for _, g := range m[1:] {
				if g != "" {
					add(g, 0, "title")
				}
			}
		}
	}
	return ops.SanitizeArtifacts(out), nil
}

// artifactTopic names what the user asked the assistant to produce.
func artifactTopic(user string) string {
	if as := DetectAnchors(user); len(as) > 0 {
		return as[0].Text
	}
	first := user
	if ss := Sentences(user); len(ss) > 0 {
		first = ss[len(ss)-1]
		for _, s := range ss {
			if rxscan.MatchString(reAskList, s) {
				first = s
				break
			}
		}
	}
	if m := rxscan.FindStringSubmatch(reAskList, first); m != nil && strings.TrimSpace(m[1]) != "" {
		first = m[1]
	}
	return text.ClipWords(strings.Trim(text.OneLine(first), " ?.!"), 8)
}

// eventVerbs maps verb forms to canonical actions for the event rules.
var eventVerbs = map[string]string{
	"visited": "visit", "visit": "visit", "toured": "visit", "went": "go", "go": "go",
	"bought": "buy", "buy": "buy", "purchased": "buy", "ordered": "buy", "picked": "buy", "got": "get",
	"ate": "eat", "eat": "eat", "had": "have", "tried": "try", "cooked": "cook", "baked": "bake", "made": "make",
	"watched": "watch", "watch": "watch", "saw": "watch", "read": "read", "finished": "finish", "listened": "listen",
	"ran": "run", "run": "run", "jogged": "run", "hiked": "hike", "cycled": "cycle", "biked": "cycle", "swam": "swim", "walked": "walk",
	"met": "meet", "meet": "meet", "attended": "attend", "attend": "attend", "joined": "join",
	"scheduled": "schedule", "booked": "book", "book": "book", "reserved": "book",
	"spent": "spend", "spend": "spend", "paid": "pay", "pay": "pay", "donated": "donate", "raised": "raise", "saved": "save", "earned": "earn",
	"traveled": "travel", "travelled": "travel", "flew": "fly", "drove": "drive", "moved": "move",
	"played": "play", "won": "win", "lost": "lose", "completed": "complete", "started": "start", "adopted": "adopt",
	"volunteered": "volunteer", "planted": "plant", "painted": "paint", "wrote": "write", "sold": "sell", "returned": "return",
}

// genericVerbs make an event only with a quantity, a date or a detail.
var genericVerbs = text.WordSet("have get go make try start finish")

// measureNouns head "N <measure> of <object>" phrases ("2 cups of coffee"),
// whose object is what follows "of".
var measureNouns = text.WordSet("cup cups glass glasses bottle bottles slice slices piece pieces bag bags box boxes pack packs pair pairs pound pounds kilo kilos kg liter liters litre litres bowl bowls plate plates serving servings loaf loaves jar jars can cans dozen")

var (
	reNegation = regexp.MustCompile(`(?i)\b(?:didn't|did not|never|cancel(?:l)?ed|skipped|couldn't|could not|wasn't able|haven't|have not)\b`)
	rePlan     = regexp.MustCompile(`(?i)\b(?:will|going to|plan(?:ning)? to|want to|would like|hope to|might|next (?:week|month|year)|tomorrow)\b`)
	reNumber   = regexp.MustCompile(`[$€£]?\d[\d,]*(?:\.\d+)?`)
)

// Events reads completed or scheduled actions with an object, a quantity or a
// date from the human side (event_miner's limits).
func (Ops) Events(_ context.Context, in dialog.Interaction) ([]ops.Event, error) {
	var out []ops.Event
	for _, src := range sourcesOf(in) {
		if !src.human {
			continue
		}
		for _, sent := range Sentences(src.text) {
			if strings.HasSuffix(strings.TrimSpace(sent), "?") {
				continue
			}
			ws := words(sent)
			for i, w := range ws {
				action, ok := eventVerbs[strings.ToLower(w)]
				if !ok || i == 0 && !rxscan.MatchString(reFirstPerson, sent) {
					continue
				}
				obj := eventObject(ws[i+1:])
				if obj == "" {
					continue
				}
				e := ops.Event{Type: strings.ToLower(w), Subject: src.who, Object: obj, CanonicalAction: action,
					CanonicalObject: strings.ToLower(obj), Evidence: ops.Under(sent, ops.MaxEventField)}
				if q, unit, ok := quantityIn(sent); ok {
					e.Quantity, e.Unit = &q, unit
				}
				if dt, t, ok := resolveDate(sent, in.Time); ok {
					e.DateText = dt
					e.NormalizedDate = t.Format("2006-01-02")
				}
				e.Negated = rxscan.MatchString(reNegation, sent)
				e.Countable = !e.Negated && !rxscan.MatchString(rePlan, sent)
				if e.Quantity == nil && e.DateText == "" && !hasDetail(sent) && genericVerbs[action] {
					continue // "I had a thought", "we got going"
				}
				e.Entities = Entities(sent, 4)
				out = append(out, e)
				break // one event per sentence
			}
		}
	}
	return ops.SanitizeEvents(out), nil
}

// eventObject takes up to three content words after the verb, skipping
// determiners and stopping at a preposition or punctuation.
func eventObject(ws []string) string {
	for i := 0; i+2 < len(ws) && i < 3; i++ {
		if measureNouns[strings.ToLower(ws[i])] && strings.ToLower(ws[i+1]) == "of" {
			ws = ws[i+2:]
			break
		}
	}
	var keep []string
	for _, w := range ws {
		lw := strings.ToLower(w)
		if lw == "a" || lw == "an" || lw == "the" || lw == "my" || lw == "our" || lw == "some" || lw == "to" && len(keep) == 0 || lw == "up" || lw == "out" {
			continue
		}
		if anchorStop[lw] || lw == "to" || lw == "after" || lw == "before" || lw == "last" || lw == "yesterday" || lw == "today" || lw == "tonight" {
			if len(keep) > 0 {
				break
			}
			continue
		}
		if _, err := strconv.Atoi(strings.ReplaceAll(lw, ",", "")); err == nil {
			continue
		}
		keep = append(keep, lw)
		if len(keep) == 3 {
			break
		}
	}
	return strings.Join(keep, " ")
}

// quantityIn finds the first amount in a sentence that is not part of a date
// or clock time, with the word after it as unit.
func quantityIn(sent string) (float64, string, bool) {
	skip := map[int]bool{}
	for _, sc := range []*rxscan.StartScan{scanDateISO, scanDateText, scanClock} {
		for _, m := range sc.FindAllStringIndex(sent, -1) {
			for i := m[0]; i < m[1]; i++ {
				skip[i] = true
			}
		}
	}
	for _, m := range reNumber.FindAllStringIndex(sent, -1) {
		if skip[m[0]] {
			continue
		}
		raw := sent[m[0]:m[1]]
		x, ok := ops.ParseNumber(raw)
		if !ok {
			continue
		}
		unit := ""
		if strings.ContainsAny(raw, "$€£") {
			unit = map[byte]string{'$': "dollars"}[raw[0]]
			if unit == "" {
				unit = "currency"
			}
		} else if f := strings.Fields(sent[m[1]:]); len(f) > 0 {
			unit = strings.ToLower(strings.Trim(f[0], ".,;:!?)"))
			if anchorStop[unit] {
				unit = ""
			}
		}
		return x, unit, true
	}
	return 0, "", false
}

// stateRule maps a pattern to a canonical state key; the value is the first
// capture group.
type stateRule struct {
	key string
	tag string
	re  *regexp.Regexp
}

const valueRe = `([A-Z][\p{L}'’.-]*(?:\s+(?:[A-Z][\p{L}'’.-]*|(?:of|de|la)\b))*)`

var stateRules = []stateRule{
	{"home_city", "1.0", regexp.MustCompile(`(?:\b[Ii] (?:now )?live in|\b[Ii]'m (?:now )?(?:living|based) in|\b[Ii] (?:just )?moved to|\b[Ii] relocated to|\bliving in)\s+` + valueRe)},
	{"hometown", "1.0", regexp.MustCompile(`(?:grew up in|growing up in|\b[Ii]'m (?:originally )?from|originally from|my hometown is)\s+` + valueRe)},
	{"pet_name", "5.0", regexp.MustCompile(`(?i:my (?:dog|cat|puppy|kitten|pet|parrot|hamster|rabbit|bird|fish|horse))(?:,)?\s+(?:(?i:is )?(?i:named|called)\s+)?` + valueRe)},
	{"pet_name", "5.0", regexp.MustCompile(`(?i:renamed (?:him|her|it|my \w+|the \w+) to)\s+` + valueRe)},
	{"workplace", "1.0", regexp.MustCompile(`(?:\b[Ii] work (?:at|for)|\bjob (?:at|with)|\b[Ii] joined|\b[Ii]'m (?:now )?working (?:at|for)|\bstarted (?:working )?at)\s+` + valueRe)},
	{"job", "1.0", regexp.MustCompile(`(?i)\b(?:i work as|i'm working as|job as|i am|i'm) (?:an? )((?:senior |junior |lead |head )?(?:[a-z]+ )?(?:engineer|developer|analyst|teacher|nurse|designer|manager|doctor|lawyer|writer|consultant|scientist|architect|accountant|chef|student|researcher))\b`)},
	{"dietary_pref", "2.7", regexp.MustCompile(`(?i)\b(?:i'm|i am|i've gone|i went|i became|became)\s+(?:now\s+|fully\s+|a\s+)?(vegetarian|vegan|pescatarian|gluten-free|keto|dairy-free)\b`)},
	{"birthday_month", "1.0", regexp.MustCompile(`(?i)\bmy birthday is (?:in |on )?(january|february|march|april|may|june|july|august|september|october|november|december)\b`)},
}

var reFavorite = regexp.MustCompile(`(?i)\bmy (?:new )?favou?rite ([a-z]+(?: [a-z]+)?) (?:is|are|has become|is now) ([^.,;!?]{2,60})`)

var reHobby = regexp.MustCompile(`(?i)\b(?:my (?:new )?hobby is|i(?:'ve| have)? (?:recently )?(?:taken up|picked up|started)|i'm into)\s+([a-z][a-z -]{2,40}?)(?:[.,;!?]|\s+(?:and|but|because|since|lately|recently)\b|$)`)

// States reads mutable user attributes and preferences with fixed patterns
// (state_slot_miner's canonical keys, at most 6 slots).
func (Ops) States(_ context.Context, in dialog.Interaction) ([]ops.State, error) {
	var out []ops.State
	for _, src := range sourcesOf(in) {
		if !src.human {
			continue
		}
		// A named speaker's states are keyed by name, so two speakers'
		// home cities never revise each other.
		prefix := ""
		if src.who != "User" {
			prefix = ops.SnakeKey(src.who) + "_"
		}
		for _, sent := range Sentences(src.text) {
			if strings.HasSuffix(strings.TrimSpace(sent), "?") {
				continue
			}
			for _, r := range stateRules {
				if m := rxscan.FindStringSubmatch(r.re, sent); m != nil {
					v := strings.TrimSpace(m[1])
					out = append(out, ops.State{Key: prefix + r.key, Value: v, Tag: r.tag, Entities: []string{v}, Evidence: ops.Under(sent, ops.MaxStateField)})
				}
			}
			if m := rxscan.FindStringSubmatch(reFavorite, sent); m != nil {
				out = append(out, ops.State{Key: prefix + "favorite_" + ops.SnakeKey(m[1]), Value: strings.TrimSpace(m[2]), Tag: firstTag(sent),
					Entities: Entities(m[2], 3), Evidence: ops.Under(sent, ops.MaxStateField)})
			}
			if m := rxscan.FindStringSubmatch(reHobby, sent); m != nil {
				out = append(out, ops.State{Key: prefix + "hobby", Value: strings.TrimSpace(m[1]), Tag: "2.6", Evidence: ops.Under(sent, ops.MaxStateField)})
			}
		}
	}
	return ops.SanitizeStates(out), nil
}

func firstTag(s string) string {
	if t := ruleTags(s, 1); len(t) > 0 {
		return t[0]
	}
	return ""
}

// Audit marks a pair CONFLICT when the new fact restates the old fact's
// attribute with a different value: the two facts share most of their
// non-value words and differ in their values (numbers, names, dates), or the
// new fact carries an update cue and they share the slot's words.
func (Ops) Audit(_ context.Context, pairs []ops.AuditPair) ([]bool, error) {
	out := make([]bool, len(pairs))
	for i, p := range pairs {
		// A mutable state holds one current value per key: offline, a new
		// value of the same key supersedes the old one.
		out[i] = p.State || ruleConflict(p.Old, p.New)
	}
	return out, nil
}

func ruleConflict(oldF, newF string) bool {
	ov, ow := splitValues(oldF)
	nv, nw := splitValues(newF)
	if len(ow) == 0 || len(nw) == 0 {
		return false
	}
	shared := 0
	for t := range nw {
		if ow.Has(t) {
			shared++
		}
	}
	small := len(ow)
	if len(nw) < small {
		small = len(nw)
	}
	overlap := float64(shared) / float64(small)
	sameValues := len(ov) > 0 && len(nv) > 0
	if sameValues {
		for v := range nv {
			if !ov.Has(v) {
				sameValues = false
				break
			}
		}
	}
	valuesDiffer := len(nv) > 0 && !sameValues
	switch {
	case overlap >= 0.6 && valuesDiffer:
		return true
	case rxscan.MatchString(reUpdateCue, newF) && overlap >= 0.4 && (valuesDiffer || len(nv) == 0):
		return true
	}
	return false
}

// splitValues separates a fact's value terms (numbers, names, dates) from
// its slot words.
func splitValues(f string) (values, slot TermSet) {
	values, slot = TermSet{}, TermSet{}
	vals := map[string]bool{}
	for _, e := range Entities(f, 12) {
		for _, t := range Terms(e) {
			vals[t] = true
		}
	}
	for _, t := range Terms(f) {
		if t == "user" {
			continue
		}
		if vals[t] {
			values[t] = struct{}{}
		} else {
			slot[t] = struct{}{}
		}
	}
	return values, slot
}

// PredictTags picks the ontology categories whose cue words the question
// contains (at most 3).
func (Ops) PredictTags(_ context.Context, query string) ([]string, error) {
	return ruleTags(query, ops.MaxPredictedTags), nil
}
