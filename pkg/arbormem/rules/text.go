package rules

import (
	"cmp"
	"iter"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/rxscan"
	"github.com/arbor-eval/arbor/pkg/text"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// words splits text into word tokens keeping case, inner apostrophes,
// hyphens, periods and commas between digits ("2,500", "6:30", "e-mail").
// It reads the runes in place: a word's runes are letters, digits, signs
// and inner punctuation, never U+FFFD, so each was decoded from valid
// UTF-8 and the word is the text's own bytes (the same string that
// converting its runes back gives; wordsRef in the tests converts).
func words(text string) []string {
	var out []string
	start := -1
	var prev rune // the rune before i
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		inner := false
		if (r == '\'' || r == '’' || r == '-' || r == '.' || r == ',' || r == ':') && start >= 0 && i+w < len(text) {
			next, _ := utf8.DecodeRuneInString(text[i+w:])
			inner = (unicode.IsLetter(next) || unicode.IsDigit(next)) &&
				((r != '.' && r != ',' && r != ':') || (unicode.IsDigit(prev) && unicode.IsDigit(next)))
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '$' || r == '€' || r == '£' || r == '%' || inner {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, text[start:i])
			start = -1
		}
		prev = r
		i += w
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

// sentenceEnd is where sentences end; nextSentenceEnd finds its matches
// without the regexp engine.
var sentenceEnd = regexp.MustCompile(`([.!?])\s+|\n+`)

// nextSentenceEnd returns the first match at or after from of what
// sentenceEnd.FindAllStringSubmatchIndex returns for text ([start, end,
// group start, group end], the group -1 for a run of newlines), or
// start -1, in one byte scan: sentence splitting runs on every text a
// rule-based memory operation reads, and the regexp engine costs far more
// than the pattern needs. \s is RE2's ASCII [\t\n\f\r ].
func nextSentenceEnd(text string, from int) [4]int {
	for i := from; i < len(text); {
		c := text[i]
		if (c == '.' || c == '!' || c == '?') && i+1 < len(text) && rxscan.IsSpace(text[i+1]) {
			j := i + 1
			for j < len(text) && rxscan.IsSpace(text[j]) {
				j++
			}
			return [4]int{i, j, i, i + 1}
		}
		if c == '\n' {
			j := i
			for j < len(text) && text[j] == '\n' {
				j++
			}
			return [4]int{i, j, -1, -1}
		}
		i++
	}
	return [4]int{-1, -1, -1, -1}
}

// Sentences splits text into sentences and list lines.
func Sentences(text string) []string {
	var out []string
	last := 0
	for m := nextSentenceEnd(text, 0); m[0] >= 0; m = nextSentenceEnd(text, m[1]) {
		end := m[1]
		if m[2] >= 0 {
			end = m[3]
			// Do not split "Dr. Smith", "e.g. x", "No. 5", decimals.
			prev := strings.TrimSpace(text[last:m[2]])
			if w := lastWord(prev); abbreviations[strings.ToLower(w)] {
				continue
			}
		}
		if s := strings.TrimSpace(text[last:end]); s != "" {
			out = append(out, s)
		}
		last = m[1]
	}
	if s := strings.TrimSpace(text[last:]); s != "" {
		out = append(out, s)
	}
	return out
}

var abbreviations = map[string]bool{"dr": true, "mr": true, "mrs": true, "ms": true, "st": true, "e.g": true, "i.e": true, "no": true, "vs": true, "etc": true, "approx": true, "jr": true, "sr": true}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) })
	return strings.Trim(s[i+1:], "(\"'")
}

// fieldCount is len(strings.Fields(s)), counted without making the fields:
// runs of what unicode.IsSpace does not hold (an invalid byte is U+FFFD,
// not a space), as strings.Fields splits.
func fieldCount(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); {
		var space bool
		if c := s[i]; c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += w
		}
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// asciiSpace is unicode.IsSpace for ASCII bytes.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// sentenceStarters are capitalised words that start sentences without being
// names; the entity heuristic ignores them in first position.
var sentenceStarters = text.WordSet(`a an the i i'm i've i'd i'll im my we we're our you your it it's its this that these those there here
what when where which who whom why how is are was were do does did can could should would will shall may might must
have has had please thanks thank ok okay great sure yes no also and but so or if then now just actually well hi hello hey
let let's maybe perhaps oh wow cool nice perfect awesome good sounds yeah yep hmm alright right first second third next finally
for from in on at by to with about after before during since as of any some all each every both either neither one two three
remember quick could can't don't didn't isn't aren't wasn't weren't won't wouldn't shouldn't couldn't haven't hasn't hadn't
user assistant speaker note update going back regarding re also another besides however although though because`)

// monthDay names stay entities (they are dates) even in first position.
var calendarWords = text.WordSet(`january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday jan feb mar apr jun jul aug sep sept oct nov dec`)

// The units after a number that make it money or a quantity (the
// regexps' alternations; the start scans look for them as the list of
// strings they match).
const (
	moneyWordsRe    = `dollars|euros|pounds|usd|eur|gbp|yen|bucks`
	quantityUnitsRe = `%|percent|km|kilometers|kilometres|miles|mi|kg|lbs?|pounds|hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?|nights?|people|guests|cups?|pages?|books?|times|sessions?|laps|steps|calories|ml|liters?|litres?|gb|tb`
)

var (
	reMoney    = regexp.MustCompile(`[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|K|million|m|bn))?|\d[\d,]*(?:\.\d+)?\s?(?:` + moneyWordsRe + `)\b`)
	reQuantity = regexp.MustCompile(`\b\d[\d,]*(?:\.\d+)?\s?(?:` + quantityUnitsRe + `)\b`)

	// The units as lists of strings, made on first use (the start scans').
	moneyWords    = sync.OnceValue(func() []string { return rxscan.FiniteLanguage(moneyWordsRe) })
	quantityUnits = sync.OnceValue(func() []string { return rxscan.FiniteLanguage(quantityUnitsRe) })
	reDateISO     = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2})?\b`)
	reDateText    = regexp.MustCompile(`(?i)\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b(?:,?\s+\d{4})?`)
	reClock       = regexp.MustCompile(`(?i)\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b`)
	reURL         = regexp.MustCompile(`https?://[^\s)>\]"']+|www\.[^\s)>\]"']+`)
	reQuoted      = regexp.MustCompile(`"([^"\n]{2,60})"|“([^”\n]{2,60})”|(?:^|[\s(])'([^'\n]{2,60})'(?:[\s.,;:!?)]|$)`)
)

// entitiesOf is the offline recall-anchor extractor (the heuristic side
// of node_metadata's "entities"): proper-noun sequences, quoted titles,
// money, quantities, dates, clock times and links, in text order, at most max.
func entitiesOf(text string, max int) []string {
	type hit struct {
		pos int
		s   string
	}
	var hits []hit
	add := func(pos int, s string) {
		if s = trimEntity(s); s != "" {
			hits = append(hits, hit{pos, s})
		}
	}
	// Each pattern runs only on a text that holds what every match of it
	// needs (RE2's \d is ASCII), and then only where a match can start
	// (startscan.go).
	digits := rxscan.IndexDigit(text, 0) >= 0
	for _, sc := range []*rxscan.StartScan{scanMoney, scanQuantity, scanDateISO, scanDateText, scanClock} {
		if !digits {
			break
		}
		for _, m := range sc.FindAllStringIndex(text, -1) {
			add(m[0], text[m[0]:m[1]])
		}
	}
	for _, m := range scanURL.FindAllStringIndex(text, -1) {
		add(m[0], text[m[0]:m[1]])
	}
	for _, m := range scanQuoted.FindAllStringSubmatchIndex(text, -1) {
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				add(m[2*g], text[m[2*g]:m[2*g+1]])
			}
		}
	}
	// The hits in text order are the pattern hits sorted (stably: a tie
	// keeps the order of the patterns above) merged with the proper nouns,
	// which come in text order sentence by sentence, a pattern hit first
	// on a tie: the order one stable sort of all of them gives. Each is
	// kept or skipped by those before it only, so once max are kept the
	// sentences left are not read.
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.pos, b.pos) })
	var out []string
	seen := map[string]bool{}
	full := false
	keep := func(h hit) {
		k := strings.ToLower(h.s)
		if seen[k] {
			return
		}
		// Skip a hit contained in one already kept ("Lisbon" inside "Lisbon trip").
		for _, o := range out {
			if strings.Contains(strings.ToLower(o), k) {
				return
			}
		}
		seen[k] = true
		out = append(out, h.s)
		full = len(out) == max
	}
	next := 0 // the first pattern hit not yet merged
	for off, sent := range sentencesWithOffsets(text) {
		// Around its words a sentence's proper nouns do not depend on
		// white space, so the memo's key is the trimmed sentence: the
		// same one the extractors' sentence splitter gives (sentences),
		// whose proper nouns they have most often asked for already.
		trimmed := strings.TrimSpace(sent)
		lead := len(sent) - len(strings.TrimLeftFunc(sent, unicode.IsSpace))
		for _, p := range properNouns(trimmed) {
			n := trimEntity(p.s)
			if n == "" {
				continue
			}
			pos := off + lead + p.pos
			for ; next < len(hits) && hits[next].pos <= pos && !full; next++ {
				keep(hits[next])
			}
			if full {
				return out
			}
			keep(hit{pos, n})
			if full {
				return out
			}
		}
	}
	for ; next < len(hits) && !full; next++ {
		keep(hits[next])
	}
	return out
}

// trimEntity is an entity without the white space and punctuation around it.
func trimEntity(s string) string { return strings.Trim(strings.TrimSpace(s), ".,;:!?()[]\"'") }

// sentencesWithOffsets yields the sentences of text that are not blank,
// each with its offset: the pieces between nextSentenceEnd's ends.
func sentencesWithOffsets(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		last := 0
		for m := nextSentenceEnd(text, 0); m[0] >= 0; m = nextSentenceEnd(text, m[1]) {
			if s := text[last:m[1]]; strings.TrimSpace(s) != "" && !yield(last, s) {
				return
			}
			last = m[1]
		}
		if last < len(text) {
			yield(last, text[last:])
		}
	}
}

type posText struct {
	pos int
	s   string
}

// reWordPos is a word for properNouns; nextWordLoc finds its matches without
// the regexp engine.
var reWordPos = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'’&.-]*`)

// nextWordLoc returns the first match of reWordPos that starts at or
// after from, or {-1, -1}, in one rune scan (invalid UTF-8 decodes to
// U+FFFD, neither letter nor number, as in the regexp engine); ASCII bytes
// are classified by a table.
func nextWordLoc(s string, from int) [2]int {
	for i := from; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiWord[c]&wordHead == 0 {
				i++
				continue
			}
		} else if r, w := utf8.DecodeRuneInString(s[i:]); !unicode.IsLetter(r) && !unicode.IsNumber(r) {
			i += w
			continue
		}
		j := i
		for j < len(s) {
			if c := s[j]; c < utf8.RuneSelf {
				if asciiWord[c] == 0 {
					break
				}
				j++
				continue
			}
			r, w := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '’' {
				break
			}
			j += w
		}
		return [2]int{i, j}
	}
	return [2]int{-1, -1}
}

// asciiWord classifies ASCII bytes for nextWordLoc: wordHead for what starts
// a word (\p{L}, \p{N}), wordTail for what may follow in one.
var asciiWord = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		if unicode.IsLetter(rune(c)) || unicode.IsNumber(rune(c)) {
			t[c] = wordHead | wordTail
		}
	}
	for _, c := range "'&.-" {
		t[c] = wordTail
	}
	return t
}()

const (
	wordHead = 1 << iota
	wordTail
)

// properNouns finds runs of capitalised words in one sentence ("Casa Azul",
// "Kazuo Ishiguro", "Sam's" → "Sam"), skipping sentence starters.
// The result is remembered and shared: callers must not change it.
func properNouns(sent string) []posText { return properNounMemo.Get(sent) }

// properNounMemo remembers the proper nouns of the last 256 sentences (a
// sentence is read by the node metadata's detail test, its entities, the
// whole text's entities and the facts' value test).
var properNounMemo = textmemo.New(256, properNounsOf)

// properNounsOf is properNouns, computed: it reads the words of nextWordLoc
// one ahead, without making their list.
func properNounsOf(sent string) []posText {
	var out []posText
	runStart, runEnd := -1, -1
	first := true
	flush := func() {
		if runStart >= 0 {
			s := strings.TrimRight(sent[runStart:runEnd], ".-")
			s = strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "’s")
			if s != "" {
				out = append(out, posText{runStart, s})
			}
		}
		runStart, runEnd = -1, -1
	}
	for l, nl := nextWordLoc(sent, 0), [2]int{}; l[0] >= 0; l = nl {
		nl = nextWordLoc(sent, l[1])
		w := sent[l[0]:l[1]]
		r, _ := utf8.DecodeRuneInString(w)
		isFirst := first
		first = false
		possessive := strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s")
		// A capitalised word; acronyms like "NASA" count, shouty words
		// longer than 4 bytes do not. Its lower-cased key is made only for
		// these and inside a run (most words are neither).
		isName, lw, haveLW := false, "", false
		if unicode.IsUpper(r) && (len(w) <= 4 || !isUpperString(w)) {
			lw, haveLW = wordKey(w), true
			isName = lw != "i" && (calendarWords[lw] || !sentenceStarters[lw])
		}
		if isName && isFirst && !calendarWords[lw] && !possessive {
			// A capitalised first word is a name only when the next word is
			// capitalised too ("Casa Azul is ..."); otherwise it is just the
			// start of the sentence ("Separately, ...").
			isName = false
			if nl[0] >= 0 {
				nw := sent[nl[0]:nl[1]]
				nr, _ := utf8.DecodeRuneInString(nw)
				isName = unicode.IsUpper(nr) && !sentenceStarters[strings.ToLower(nw)] && nl[0]-l[1] == 1
			}
		}
		if isName {
			if runStart < 0 {
				runStart = l[0]
			}
			runEnd = l[1]
			if possessive {
				flush()
			}
			continue
		}
		// Allow "of"/"de"/"the" inside a name run ("Bank of America").
		if runStart >= 0 && nl[0] >= 0 {
			if !haveLW {
				lw = wordKey(w)
			}
			if lw == "of" || lw == "de" || lw == "da" || lw == "la" || lw == "van" || lw == "von" {
				nw := sent[nl[0]:nl[1]]
				if nr, _ := utf8.DecodeRuneInString(nw); unicode.IsUpper(nr) {
					continue
				}
			}
		}
		flush()
	}
	flush()
	return out
}

// wordKey is a word's lower-cased key for properNounsOf, without a
// possessive "'s".
func wordKey(w string) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"))
}

// isUpperString reports whether strings.ToUpper(s) == s, without making
// the upper-cased copy: no rune changes, and no invalid byte (which
// ToUpper writes as U+FFFD).
func isUpperString(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				return false
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 || unicode.ToUpper(r) != r {
			return false
		}
		i += w
	}
	return true
}

// hasDetail reports whether a sentence carries concrete, recallable detail:
// a number, a proper noun, a date, or a quoted title.
func hasDetail(s string) bool {
	return hasDigit(s) || len(properNouns(s)) > 0 || scanQuoted.MatchString(s)
}

// hasDigit reports whether s holds a rune unicode.IsDigit holds for (an
// invalid byte is U+FFFD, no digit), with ASCII bytes tested as bytes.
func hasDigit(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if rxscan.IsDigitByte(c) {
				return true
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsDigit(r) {
			return true
		}
		i += w
	}
	return false
}

// NormEntity is an entity's matching key.
func NormEntity(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

// firstPersonToUser rewrites first-person references so that a fact is
// self-contained ("I moved to Porto" → "User moved to Porto").
func firstPersonToUser(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		core := strings.TrimRight(w, ".,;:!?")
		tail := w[len(core):]
		lc := strings.ToLower(strings.ReplaceAll(core, "’", "'"))
		var rep string
		switch lc {
		case "i":
			rep = "User"
		case "i'm":
			rep = "User is"
		case "i've":
			rep = "User has"
		case "i'd":
			rep = "User would"
		case "i'll":
			rep = "User will"
		case "my":
			rep = "User's"
		case "mine":
			rep = "User's"
		case "me":
			rep = "User"
		case "myself":
			rep = "User"
		case "we":
			rep = "User and companions"
		case "our":
			rep = "User's"
		case "we're":
			rep = "User and companions are"
		case "we've":
			rep = "User and companions have"
		case "us":
			rep = "User"
		default:
			continue
		}
		f[i] = rep + tail
	}
	out := strings.Join(f, " ")
	// "User am" → "User is"
	out = strings.ReplaceAll(out, "User am ", "User is ")
	return out
}
