package scoring

// Porter stemming exactly as NLTK's default PorterStemmer() (mode
// NLTK_EXTENSIONS), which LoCoMo's official F1 uses
// (snap-research/locomo task_eval/evaluation.py: `ps = PorterStemmer()`).
// The algorithm follows nltk/nltk nltk/stem/porter.py (NLTK 3.8, the version
// Debian's python3-nltk ships); scoring/testdata/porter_golden.tsv, produced
// by scripts/porter-golden.py, pins every stem. No Go package matches this
// mode (../shared/notes/libraries.md: go-porterstemmer is MARTIN_EXTENSIONS
// and differs on 1–2% of words, e.g. are→ar, dying→dy).
//
// Words are handled as code points, like Python strings: any rune that is
// not a, e, i, o, u (or a y after a consonant) counts as a consonant.

// porterIrregular maps NLTK's irregular forms to their stems; these bypass
// the algorithm entirely.
var porterIrregular = map[string]string{
	"sky": "sky", "skies": "sky",
	"dying":   "die",
	"lying":   "lie",
	"tying":   "tie",
	"news":    "news",
	"innings": "inning", "inning": "inning",
	"outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning",
	"howe":    "howe",
	"proceed": "proceed",
	"exceed":  "exceed",
	"succeed": "succeed",
}

// Stem returns the Porter stem of word as NLTK's PorterStemmer().stem(word)
// does: the word is lower-cased first (Python str.lower semantics).
func Stem(word string) string {
	lower := pyLower(word)
	// NLTK looks the *original* word up in the irregular table but returns
	// the entry of the lower-cased one; both coincide for lower-case input,
	// and "Skies" therefore goes through the algorithm.
	if _, ok := porterIrregular[word]; ok {
		return porterIrregular[lower]
	}
	if runeCount(word) <= 2 {
		return lower
	}
	w := []rune(lower)
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	w = step5b(w)
	return string(w)
}

func runeCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

func isVowelRune(r rune) bool { return r == 'a' || r == 'e' || r == 'i' || r == 'o' || r == 'u' }

// isConsonant is NLTK's _is_consonant: y is a consonant at the start or
// after a vowel.
func isConsonant(w []rune, i int) bool {
	switch {
	case isVowelRune(w[i]):
		return false
	case w[i] == 'y' && i > 0:
		return !isConsonant(w, i-1)
	default:
		return true
	}
}

// measure counts "vc" transitions in the consonant/vowel pattern of stem.
func measure(stem []rune) int {
	m := 0
	prevVowel := false
	for i := range stem {
		c := isConsonant(stem, i)
		if c && prevVowel {
			m++
		}
		prevVowel = !c
	}
	return m
}

func positiveMeasure(stem []rune) bool { return measure(stem) > 0 }
func measureGT1(stem []rune) bool      { return measure(stem) > 1 }

func containsVowel(stem []rune) bool {
	for i := range stem {
		if !isConsonant(stem, i) {
			return true
		}
	}
	return false
}

func endsDoubleConsonant(w []rune) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && isConsonant(w, n-1)
}

// endsCVC is condition *o, with NLTK's extension that a two-letter
// vowel-consonant word also qualifies.
func endsCVC(w []rune) bool {
	n := len(w)
	if n >= 3 && isConsonant(w, n-3) && !isConsonant(w, n-2) && isConsonant(w, n-1) &&
		w[n-1] != 'w' && w[n-1] != 'x' && w[n-1] != 'y' {
		return true
	}
	return n == 2 && !isConsonant(w, 0) && isConsonant(w, 1)
}

// hasSuffix reports whether w ends with suffix; suffixes are ASCII, so
// they compare byte by rune without decoding.
func hasSuffix(w []rune, suffix string) bool {
	if len(suffix) > len(w) {
		return false
	}
	off := len(w) - len(suffix)
	for i := 0; i < len(suffix); i++ {
		if w[off+i] != rune(suffix[i]) {
			return false
		}
	}
	return true
}

func trimSuffix(w []rune, suffix string) []rune { return w[:len(w)-len(suffix)] }

// withSuffix returns a new slice: stem followed by the ASCII suffix.
func withSuffix(stem []rune, suffix string) []rune {
	out := make([]rune, len(stem), len(stem)+len(suffix))
	copy(out, stem)
	for i := 0; i < len(suffix); i++ {
		out = append(out, rune(suffix[i]))
	}
	return out
}

// porterRule is one (suffix, replacement, condition) entry of NLTK's rule
// lists; a nil condition always holds. Rules with NLTK's "*d" pseudo-suffix
// (a double consonant) are written out in step1b.
type porterRule struct {
	suffix, replacement string
	cond                func(stem []rune) bool
}

// applyRules is NLTK's _apply_rule_list: the first rule whose suffix
// matches decides; if its condition fails, no later rule is tried. matched
// says whether any rule's suffix matched.
func applyRules(w []rune, rules []porterRule) (out []rune, matched bool) {
	for _, r := range rules {
		if hasSuffix(w, r.suffix) {
			stem := trimSuffix(w, r.suffix)
			if r.cond == nil || r.cond(stem) {
				return withSuffix(stem, r.replacement), true
			}
			return w, true
		}
	}
	return w, false
}

var step1aRules = []porterRule{
	{"sses", "ss", nil},
	{"ies", "i", nil},
	{"ss", "ss", nil},
	{"s", "", nil},
}

func step1a(w []rune) []rune {
	// NLTK extension: "dies" → "die" but "flies" → "fli".
	if hasSuffix(w, "ies") && len(w) == 4 {
		return withSuffix(trimSuffix(w, "ies"), "ie")
	}
	out, _ := applyRules(w, step1aRules)
	return out
}

func step1b(w []rune) []rune {
	// NLTK extension: "died" → "die" but "spied" → "spi".
	if hasSuffix(w, "ied") {
		if len(w) == 4 {
			return withSuffix(trimSuffix(w, "ied"), "ie")
		}
		return withSuffix(trimSuffix(w, "ied"), "i")
	}
	if hasSuffix(w, "eed") {
		stem := trimSuffix(w, "eed")
		if measure(stem) > 0 {
			return withSuffix(stem, "ee")
		}
		return w
	}
	var inter []rune
	ok := false
	for _, suf := range []string{"ed", "ing"} {
		if hasSuffix(w, suf) {
			inter = trimSuffix(w, suf)
			if containsVowel(inter) {
				ok = true
				break
			}
		}
	}
	if !ok {
		return w
	}
	// NLTK's rule list for the stem left by -ed/-ing, in order: AT → ATE,
	// BL → BLE, IZ → IZE; a double consonant other than l, s, z → single
	// letter; (m=1 and *o) → E.
	n := len(inter)
	switch {
	case hasSuffix(inter, "at"), hasSuffix(inter, "bl"), hasSuffix(inter, "iz"):
		return withSuffix(inter, "e")
	case endsDoubleConsonant(inter):
		if last := inter[n-1]; last != 'l' && last != 's' && last != 'z' {
			return inter[:n-1]
		}
		return inter
	case hasSuffix(inter, "*d"):
		// NLTK falls through to a literal "*d" suffix when there is no
		// double consonant; its condition holds (d is not l, s or z) and the
		// replacement is the stem's last letter, d.
		return withSuffix(inter[:n-2], "d")
	case measure(inter) == 1 && endsCVC(inter):
		return withSuffix(inter, "e")
	}
	return inter
}

func step1c(w []rune) []rune {
	// NLTK extension: y → i only after a consonant that is not the whole stem.
	if hasSuffix(w, "y") {
		stem := w[:len(w)-1]
		if len(stem) > 1 && isConsonant(stem, len(stem)-1) {
			return withSuffix(stem, "i")
		}
	}
	return w
}

var step2Rules = []porterRule{
	{"ational", "ate", positiveMeasure},
	{"tional", "tion", positiveMeasure},
	{"enci", "ence", positiveMeasure},
	{"anci", "ance", positiveMeasure},
	{"izer", "ize", positiveMeasure},
	{"bli", "ble", positiveMeasure},
	{"alli", "al", positiveMeasure},
	{"entli", "ent", positiveMeasure},
	{"eli", "e", positiveMeasure},
	{"ousli", "ous", positiveMeasure},
	{"ization", "ize", positiveMeasure},
	{"ation", "ate", positiveMeasure},
	{"ator", "ate", positiveMeasure},
	{"alism", "al", positiveMeasure},
	{"iveness", "ive", positiveMeasure},
	{"fulness", "ful", positiveMeasure},
	{"ousness", "ous", positiveMeasure},
	{"aliti", "al", positiveMeasure},
	{"iviti", "ive", positiveMeasure},
	{"biliti", "ble", positiveMeasure},
	{"fulli", "ful", positiveMeasure},
}

func step2(w []rune) []rune {
	// NLTK applies ALLI → AL first and, when it fires, runs step 2 again.
	if hasSuffix(w, "alli") && positiveMeasure(trimSuffix(w, "alli")) {
		return step2(withSuffix(trimSuffix(w, "alli"), "al"))
	}
	if out, matched := applyRules(w, step2Rules); matched {
		return out
	}
	// The last rule, LOGI → LOG, keeps the 'l' with the stem: its measure
	// is taken of the word minus "ogi".
	if hasSuffix(w, "logi") && positiveMeasure(w[:len(w)-3]) {
		return withSuffix(trimSuffix(w, "logi"), "log")
	}
	return w
}

var step3Rules = []porterRule{
	{"icate", "ic", positiveMeasure},
	{"ative", "", positiveMeasure},
	{"alize", "al", positiveMeasure},
	{"iciti", "ic", positiveMeasure},
	{"ical", "ic", positiveMeasure},
	{"ful", "", positiveMeasure},
	{"ness", "", positiveMeasure},
}

func step3(w []rune) []rune {
	out, _ := applyRules(w, step3Rules)
	return out
}

var step4Rules = []porterRule{
	{"al", "", measureGT1},
	{"ance", "", measureGT1},
	{"ence", "", measureGT1},
	{"er", "", measureGT1},
	{"ic", "", measureGT1},
	{"able", "", measureGT1},
	{"ible", "", measureGT1},
	{"ant", "", measureGT1},
	{"ement", "", measureGT1},
	{"ment", "", measureGT1},
	{"ent", "", measureGT1},
	{"ion", "", func(stem []rune) bool {
		return measure(stem) > 1 && len(stem) > 0 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
	}},
	{"ou", "", measureGT1},
	{"ism", "", measureGT1},
	{"ate", "", measureGT1},
	{"iti", "", measureGT1},
	{"ous", "", measureGT1},
	{"ive", "", measureGT1},
	{"ize", "", measureGT1},
}

func step4(w []rune) []rune {
	out, _ := applyRules(w, step4Rules)
	return out
}

// step5a tries both E rules in turn (unlike applyRules), as NLTK does.
func step5a(w []rune) []rune {
	if hasSuffix(w, "e") {
		stem := trimSuffix(w, "e")
		m := measure(stem)
		if m > 1 {
			return stem
		}
		if m == 1 && !endsCVC(stem) {
			return stem
		}
	}
	return w
}

// step5b: (m > 1 and *d and *L) → single letter, with NLTK measuring the
// word minus its last l.
func step5b(w []rune) []rune {
	if hasSuffix(w, "ll") && measure(w[:len(w)-1]) > 1 {
		return w[:len(w)-1]
	}
	return w
}
