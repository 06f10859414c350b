// Package spans cuts evidence text into the pieces extractive heuristics
// work on (sentences, clauses, numbered-list entries) and recognises typed
// values in them (numbers, dates, capitalised names). It is shared by the
// extractive answerer and the heuristic session summaries, which must read
// evidence the same way: "[2023-05-30 23:40] user: ..." lines as written by
// the baselines, speaker prefixes, and free text.
package spans

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// Span is one sentence (or list entry) of evidence.
type Span struct {
	// Text is the sentence without timestamp or speaker prefix.
	Text string
	// Speaker is the prefix the line carried ("user", "assistant", "Caroline"), if any.
	Speaker string
	// Line is the index of the source line within the text, ListPos the
	// entry's number when the span is a numbered-list entry (0 otherwise).
	Line, ListPos int
	// Bullet is set for unnumbered list entries ("- ", "* ", "• ").
	Bullet bool
}

var (
	stampRe   = regexp.MustCompile(`^\s*\[(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?|unknown( time)?)\]\s*`)
	speakerRe = regexp.MustCompile(`^((?:user|assistant|system)|[A-Z][\p{L}'’.-]*(?: [A-Z][\p{L}'’.-]*){0,2}):\s+`)
	numItemRe = regexp.MustCompile(`^\s*(?:\*\*)?(\d{1,2})[.)](?:\*\*)?\s+(.+)$`)
	bulletRe  = regexp.MustCompile(`^\s*[-*•]\s+(.+)$`)
)

// StripStamp removes a leading "[YYYY-MM-DD HH:MM]" timestamp.
func StripStamp(line string) string {
	if !startsWith(line, "[") {
		return line // stampRe needs a "[" after its \s*
	}
	return stampRe.ReplaceAllString(line, "")
}

// startsWith reports whether line's first byte after RE2's \s (ASCII
// tab, line feed, form feed, carriage return, space) is one of first:
// the patterns of Split each need such a byte there, so a line without
// one is left alone without running them (FuzzSplitGuards compares).
func startsWith(line, first string) bool {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\f' || line[i] == '\r') {
		i++
	}
	return i < len(line) && strings.IndexByte(first, line[i]) >= 0
}

// speakerFirst are the bytes speakerRe's match can start with: an ASCII
// capital, or the first letters of user, assistant and system.
const speakerFirst = "ABCDEFGHIJKLMNOPQRSTUVWXYZuas"

// numItemFirst and bulletFirst are the bytes numItemRe's and bulletRe's
// matches have after their leading \s*: a digit or the "**" of bold, and
// a dash, an asterisk or the first byte of "•" (U+2022, E2 80 A2).
const (
	numItemFirst = "0123456789*"
	bulletFirst  = "-*\xe2"
)

// Split cuts text into sentences and list entries, remembering the speaker
// of each line; lines without a speaker prefix inherit the previous one
// (a multi-line assistant reply).
func Split(text string) []Span {
	var out []Span
	speaker := ""
	for li, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(StripStamp(line))
		if line == "" {
			continue
		}
		if startsWith(line, speakerFirst) && strings.IndexByte(line, ':') >= 0 {
			if m := speakerRe.FindStringSubmatch(line); m != nil {
				speaker = m[1]
				line = strings.TrimSpace(line[len(m[0]):])
			}
		}
		if startsWith(line, numItemFirst) {
			if m := numItemRe.FindStringSubmatch(line); m != nil {
				n := 0
				for _, r := range m[1] {
					n = n*10 + int(r-'0')
				}
				out = append(out, Span{Text: cleanItem(m[2]), Speaker: speaker, Line: li, ListPos: n})
				continue
			}
		}
		if startsWith(line, bulletFirst) {
			if m := bulletRe.FindStringSubmatch(line); m != nil {
				out = append(out, Span{Text: cleanItem(m[1]), Speaker: speaker, Line: li, Bullet: true})
				continue
			}
		}
		for _, s := range Sentences(line) {
			out = append(out, Span{Text: s, Speaker: speaker, Line: li})
		}
	}
	return out
}

// cleanItem drops markdown emphasis from a list entry.
func cleanItem(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(s, "**", ""), "__", ""))
}

// Sentences splits one line at sentence ends (. ! ? followed by space and an
// upper-case letter, digit or quote), not at decimal points or common
// abbreviations.
func Sentences(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(line) && (line[j] == '"' || line[j] == '\'' || line[j] == ')') {
			j++
		}
		if j >= len(line) || line[j] != ' ' {
			continue
		}
		k := j
		for k < len(line) && line[k] == ' ' {
			k++
		}
		if k >= len(line) {
			continue
		}
		r, _ := utf8.DecodeRuneInString(line[k:])
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) && r != '"' && r != '\'' {
			continue
		}
		if c == '.' && abbreviation(line[start:i]) {
			continue
		}
		if s := strings.TrimSpace(line[start:j]); s != "" {
			out = append(out, s)
		}
		start = k
		i = k - 1
	}
	if s := strings.TrimSpace(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

var abbrevs = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "vs": true, "e.g": true, "i.e": true, "etc": true, "no": true, "jr": true, "sr": true, "prof": true, "approx": true}

func abbreviation(before string) bool {
	w, ok := lastField(before)
	if !ok {
		return false
	}
	w = strings.ToLower(w)
	return abbrevs[w] || (utf8.RuneCountInString(w) == 1 && unicode.IsLetter([]rune(w)[0]))
}

// Clauses splits a sentence at clause boundaries (; : , and the
// conjunctions "and", "but", "so", "because"), keeping pieces of at least
// two words.
func Clauses(sentence string) []string {
	var out []string
	for _, part := range clauseRe.Split(sentence, -1) {
		part = strings.TrimSpace(part)
		if len(strings.Fields(part)) >= 2 {
			out = append(out, part)
		}
	}
	return out
}

var clauseRe = regexp.MustCompile(`\s*[;:,]\s+|\s+(?:but|so|because|and then|while|whereas)\s+`)

// Values are the typed values a span holds.
type Values struct {
	Number, Date, Name bool
}

// Any reports whether any typed value is present.
func (v Values) Any() bool { return v.Number || v.Date || v.Name }

var (
	numberRe = regexp.MustCompile(`\d|(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|dozen|half)\b`)
	dateRe   = regexp.MustCompile(`\bMay\b|(?i)\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|june?|july?|aug(ust)?|sep(t|tember)?|oct(ober)?|nov(ember)?|dec(ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|today|tomorrow|tonight|weekend|morning|evening|afternoon|noon|midnight|last (week|month|year)|next (week|month|year)|\d{1,2}(:\d{2})?\s*(am|pm)|\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(/\d{2,4})?|(19|20)\d{2})\b`)
)

// Typed finds the typed values of s. Names are capitalised words that do not
// start the sentence and are not "I"; the first word counts only when it is
// capitalised inside (an acronym or "McDonald") — a heuristic, not NER.
//
// The summary baseline and the extractive answerer read the same sentences
// (an interaction's, in each system's rendering of it), so values of
// sentences up to maxTypedMemo bytes are remembered.
func Typed(s string) Values {
	if len(s) > maxTypedMemo {
		return typed(s)
	}
	return typedMemo.Get(s)
}

// Memo bounds: 8,192 sentences of at most 1 KiB (a few MiB when full).
const (
	typedMemoSlots = 8192
	maxTypedMemo   = 1024
)

var typedMemo = textmemo.New(typedMemoSlots, typed)

// typed is Typed without the memo.
func typed(s string) Values {
	var v Values
	v.Number, v.Date = typedScan(s)
	// The words of strings.Fields(s), one at a time.
	prev, i := "", 0
	for rest := s; ; i++ {
		w, after, ok := nextField(rest)
		if !ok {
			break
		}
		rest = after
		field := w
		w = strings.Trim(w, `"'()[]{},.;:!?*`)
		r, size := utf8.DecodeRuneInString(w)
		if size == 0 || !unicode.IsUpper(r) || w == "I" || strings.HasPrefix(w, "I'") {
			prev = field
			continue
		}
		if i == 0 || strings.HasSuffix(prev, ".") || strings.HasSuffix(prev, ":") {
			if !innerUpper(w[size:]) {
				prev = field
				continue
			}
		}
		v.Name = true
		break
	}
	return v
}

// HasFields reports whether s has at least n fields (len(strings.Fields(s))
// >= n), without making the slice of them.
func HasFields(s string, n int) bool {
	for ; n > 0; n-- {
		_, rest, ok := nextField(s)
		if !ok {
			return false
		}
		s = rest
	}
	return true
}

// lastField returns the last of strings.Fields(s), if any, without the
// slice of them (Sentences asks at every full stop).
func lastField(s string) (string, bool) {
	last, found := "", false
	for {
		f, rest, ok := nextField(s)
		if !ok {
			return last, found
		}
		last, found, s = f, true, rest
	}
}

// nextField returns the first of strings.Fields(s) and what follows it,
// without the slice of all of them: fields are separated by runs of
// unicode.IsSpace runes (a byte of invalid UTF-8 is not one).
func nextField(s string) (field, rest string, ok bool) {
	i := 0
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return "", "", false
	}
	j := i
	for j < len(s) {
		r, size := rune(s[j]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[j:])
		}
		if unicode.IsSpace(r) {
			break
		}
		j += size
	}
	return s[i:j], s[j:], true
}

func innerUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}
