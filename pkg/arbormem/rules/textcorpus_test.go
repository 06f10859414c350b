package rules

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/datasets"
	_ "github.com/arbor-eval/arbor/datasets/branchmemeval"
	_ "github.com/arbor-eval/arbor/datasets/locomo"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// Reference versions of the text analysis that Entities and the
// sentence splitter used before they were optimised: every pattern over the
// whole text, and the regexp engine for sentence ends and words. The
// optimised versions must agree with them exactly.

func sentencesRef(text string) []string {
	var out []string
	last := 0
	for _, m := range sentenceEnd.FindAllStringSubmatchIndex(text, -1) {
		end := m[1]
		if m[2] >= 0 {
			end = m[3]
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

type offText struct {
	off  int
	text string
}

func extractEntitiesRef(text string, max int) []string {
	type hit struct {
		pos int
		s   string
	}
	var hits []hit
	add := func(pos int, s string) {
		s = strings.Trim(strings.TrimSpace(s), ".,;:!?()[]\"'")
		if s != "" {
			hits = append(hits, hit{pos, s})
		}
	}
	for _, re := range []*regexp.Regexp{reMoney, reQuantity, reDateISO, reDateText, reClock, reURL} {
		for _, m := range re.FindAllStringIndex(text, -1) {
			add(m[0], text[m[0]:m[1]])
		}
	}
	for _, m := range reQuoted.FindAllStringSubmatchIndex(text, -1) {
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				add(m[2*g], text[m[2*g]:m[2*g+1]])
			}
		}
	}
	// Sentences by the regexp, words by the regexp.
	last := 0
	var sents []offText
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		if s := text[last:m[1]]; strings.TrimSpace(s) != "" {
			sents = append(sents, offText{last, s})
		}
		last = m[1]
	}
	if last < len(text) {
		sents = append(sents, offText{last, text[last:]})
	}
	for _, sent := range sents {
		for _, p := range properNounsAtRef(sent.text, reWordLocs(sent.text)) {
			add(sent.off+p.pos, p.s)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].pos < hits[j].pos })
	var out []string
	seen := map[string]bool{}
	for _, h := range hits {
		k := strings.ToLower(h.s)
		if seen[k] {
			continue
		}
		dup := false
		for _, o := range out {
			if strings.Contains(strings.ToLower(o), k) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		seen[k] = true
		out = append(out, h.s)
		if len(out) == max {
			break
		}
	}
	return out
}

// wordLocs is every match of reWordPos in s, found by nextWordLoc.
func wordLocs(s string) [][2]int {
	var out [][2]int
	for l := nextWordLoc(s, 0); l[0] >= 0; l = nextWordLoc(s, l[1]) {
		out = append(out, l)
	}
	return out
}

// properNounsAtRef is properNounsOf before it skipped the case mappings
// of most words.
func properNounsAtRef(sent string, locs [][2]int) []posText {
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
	for i, l := range locs {
		w := sent[l[0]:l[1]]
		r, _ := utf8.DecodeRuneInString(w)
		lw := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"))
		capital := unicode.IsUpper(r) && !(len(w) > 1 && strings.ToUpper(w) == w && len(w) > 4)
		// Acronyms like "NASA" count; shouty words longer than 4 do not.
		if unicode.IsUpper(r) && strings.ToUpper(w) == w && len(w) >= 2 && len(w) <= 4 {
			capital = true
		}
		isFirst := first
		first = false
		possessive := strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s")
		isName := capital && lw != "i" && (calendarWords[lw] || !sentenceStarters[lw])
		if isName && isFirst && !calendarWords[lw] && !possessive {
			// A capitalised first word is a name only when the next word is
			// capitalised too ("Casa Azul is ..."); otherwise it is just the
			// start of the sentence ("Separately, ...").
			isName = false
			if i+1 < len(locs) {
				nw := sent[locs[i+1][0]:locs[i+1][1]]
				nr, _ := utf8.DecodeRuneInString(nw)
				isName = unicode.IsUpper(nr) && !sentenceStarters[strings.ToLower(nw)] && locs[i+1][0]-l[1] == 1
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
		if runStart >= 0 && (lw == "of" || lw == "de" || lw == "da" || lw == "la" || lw == "van" || lw == "von") && i+1 < len(locs) {
			nw := sent[locs[i+1][0]:locs[i+1][1]]
			if nr, _ := utf8.DecodeRuneInString(nw); unicode.IsUpper(nr) {
				continue
			}
		}
		flush()
	}
	flush()
	return out
}

func reWordLocs(s string) [][2]int {
	var out [][2]int
	for _, l := range reWordPos.FindAllStringIndex(s, -1) {
		out = append(out, [2]int{l[0], l[1]})
	}
	return out
}

// corpusTexts returns every user, assistant and whole-interaction text of
// the shipped BranchMemEval set and the LoCoMo fixture, plus edge cases.
func corpusTexts(t *testing.T) []string {
	t.Helper()
	texts := []string{"", "\n\n", "Jan.  5 and ſep 5, 2023", "I paid $1,200.50 at 7:30 p.m. on 2023-05-01 — see https://x.io/a?b.",
		"He said \"Blue Moon\" and 'The Road'.\nThen:\n\n- Casa Azul\n- Bank of America", "bad \xff\xfe utf8 NASA’s Tokyo-3 A&B.",
		"Dr. Smith e.g. No. 5 vs. Mr. Jones!  Really?\tYes.\r\nOk", "“Quoted title” 3 km, 12 laps, 5 cups"}
	ctx := context.Background()
	for _, src := range []struct{ name, path string }{{"branchmemeval", ""}, {"locomo", "../../../datasets/locomo/testdata/locomo10.json"}} {
		eps, err := datasets.Load(ctx, src.name, src.path, datasets.Options{Categories: []string{"all"}})
		if err != nil {
			t.Fatalf("%s: %v", src.name, err)
		}
		for _, ep := range eps {
			for _, st := range ep.Steps {
				in := st.Interaction
				if st.Question != nil {
					texts = append(texts, st.Question.Text)
					in = st.Question.Canonical
				}
				if in != nil {
					texts = append(texts, in.User(), in.Assistant(), in.Text())
				}
			}
		}
	}
	return texts
}

// TestTextAnalysisMatchesReference: the optimised entity extraction and
// sentence splitting give exactly the outputs of the regexp-only versions
// on the texts of the corpus (the CPU work must not change behaviour). The
// reference is slow: CI checks every 96th text, ARBOR_LONG_TESTS=1 all.
func TestTextAnalysisMatchesReference(t *testing.T) {
	texts := corpusTexts(t)
	if len(texts) < 1000 {
		t.Fatalf("corpus of %d texts is too small", len(texts))
	}
	step := 96
	if os.Getenv("ARBOR_LONG_TESTS") != "" {
		step = 1
	}
	for i, text := range texts {
		if i%step != 0 && i >= 8 { // the edge cases always
			continue
		}
		for _, max := range []int{8, 1 << 20} {
			if got, want := Entities(text, max), extractEntitiesRef(text, max); !reflect.DeepEqual(got, want) {
				t.Fatalf("text %d (%.80q): extractEntities(%d) = %q, want %q", i, text, max, got, want)
			}
		}
		for _, max := range []int{1, 2, 12, 0} { // entitiesOf stops once it keeps max (never for 0)
			if got, want := entitiesOf(text, max), extractEntitiesRef(text, max); !reflect.DeepEqual(got, want) {
				t.Fatalf("text %d (%.80q): entitiesOf(%d) = %q, want %q", i, text, max, got, want)
			}
		}
		if got, want := Sentences(text), sentencesRef(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("text %d (%.80q): sentences = %q, want %q", i, text, got, want)
		}
		if got, want := wordLocs(text), reWordLocs(text); !slices.Equal(got, want) {
			t.Fatalf("text %d (%.80q): wordLocs = %v, want %v", i, text, got, want)
		}
		if got, want := fieldCount(text), len(strings.Fields(text)); got != want {
			t.Fatalf("text %d (%.80q): fieldCount = %d, want %d", i, text, got, want)
		}
		if got, want := words(text), wordsRef(text); !slices.Equal(got, want) {
			t.Fatalf("text %d (%.80q): words = %q, want %q", i, text, got, want)
		}
		checkCues(t, text)
		for _, s := range sentencesRef(text) {
			if got, want := hasDetail(s), hasDetailRef(s); got != want {
				t.Fatalf("hasDetail(%q) = %v, want %v", s, got, want)
			}
			checkProperNouns(t, s)
		}
	}
}

// checkProperNouns fails t unless properNouns(s) is what the reference
// finds.
func checkProperNouns(t *testing.T, s string) {
	t.Helper()
	if got, want := properNouns(s), properNounsAtRef(s, reWordLocs(s)); !reflect.DeepEqual(got, want) {
		t.Fatalf("properNouns(%q) = %v, want %v", s, got, want)
	}
}

// wordsRef is words as it was written first, over the text's runes
// converted to a slice.
func wordsRef(text string) []string {
	var out []string
	start := -1
	rs := []rune(text)
	for i, r := range rs {
		inner := (r == '\'' || r == '’' || r == '-' || r == '.' || r == ',' || r == ':') && start >= 0 && i+1 < len(rs) &&
			(unicode.IsLetter(rs[i+1]) || unicode.IsDigit(rs[i+1])) &&
			((r != '.' && r != ',' && r != ':') || (unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1])))
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '$' || r == '€' || r == '£' || r == '%' || inner {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, string(rs[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, string(rs[start:]))
	}
	return out
}

// checkCues fails t unless the remembered cues of text (anchors and the
// resume cue, which share one return-cue search) are what each finds
// alone.
func checkCues(t *testing.T, text string) {
	t.Helper()
	ret, isRet := returnCue(text)
	if got, want := DetectAnchors(text), anchorsWith(text, ret, isRet); !reflect.DeepEqual(got, want) {
		t.Fatalf("detectAnchors(%q) = %v, want %v", text, got, want)
	}
	gotObj, gotOK := DetectResume(text)
	if wantObj, wantOK := ResumeCue(text); gotObj != wantObj || gotOK != wantOK {
		t.Fatalf("detectResume(%q) = %q, %v, want %q, %v", text, gotObj, gotOK, wantObj, wantOK)
	}
}

func hasDetailRef(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return len(properNounsAtRef(s, reWordLocs(s))) > 0 || reQuoted.MatchString(s)
}

// FuzzTextAnalysisMatchesReference: the same agreement on arbitrary text.
func FuzzTextAnalysisMatchesReference(f *testing.F) {
	for _, s := range []string{"Jan. 5", "I met Sam's dog in Porto.\nOK", "$5 k at 3pm", "\xff'ab'", "The Bank of America and NASA’s LOUDER Ǆx ǅ", "Separately, Casa Azul. May I? Ὀ", " a\u00a0b\u0085c\u2003d \xff e\v", "only ٣ left", "x\xff\u0966"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		textmemo.ResetAll() // each input computed afresh (see FuzzLineWise)
		if got, want := Entities(text, 8), extractEntitiesRef(text, 8); !reflect.DeepEqual(got, want) {
			t.Fatalf("extractEntities(%q) = %q, want %q", text, got, want)
		}
		for _, max := range []int{2, 12} {
			if got, want := entitiesOf(text, max), extractEntitiesRef(text, max); !reflect.DeepEqual(got, want) {
				t.Fatalf("entitiesOf(%q, %d) = %q, want %q", text, max, got, want)
			}
		}
		if got, want := Sentences(text), sentencesRef(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("sentences(%q) = %q, want %q", text, got, want)
		}
		if got, want := wordLocs(text), reWordLocs(text); !slices.Equal(got, want) {
			t.Fatalf("wordLocs(%q) = %v, want %v", text, got, want)
		}
		checkProperNouns(t, text)
		if got, want := hasDetail(text), hasDetailRef(text); got != want {
			t.Fatalf("hasDetail(%q) = %v, want %v", text, got, want)
		}
		if got, want := fieldCount(text), len(strings.Fields(text)); got != want {
			t.Fatalf("fieldCount(%q) = %d, want %d", text, got, want)
		}
		if got, want := words(text), wordsRef(text); !slices.Equal(got, want) {
			t.Fatalf("words(%q) = %q, want %q", text, got, want)
		}
		checkCues(t, text)
		for _, w := range strings.Fields(text) {
			if got, want := isUpperString(w), strings.ToUpper(w) == w; got != want {
				t.Fatalf("isUpperString(%q) = %v, want %v", w, got, want)
			}
		}
	})
}

// BenchmarkExtractEntities compares the entity extraction with its
// regexp-only reference (ns per text) over the corpus texts and over
// beam-sized texts: the corpus texts joined into texts of about 5,000
// bytes, the size of a BEAM interaction, which the offline commit's node
// metadata reads whole. Beam-sized runs call entitiesOf, not its memo.
func BenchmarkExtractEntities(b *testing.B) {
	t := &testing.T{}
	texts := corpusTexts(t)
	beam := joinedTexts(texts, 5000)
	for _, impl := range []struct {
		name  string
		fn    func(string, int) []string
		texts []string
	}{
		{"reference", extractEntitiesRef, texts}, {"optimised", Entities, texts},
		{"beam-sized/reference", extractEntitiesRef, beam}, {"beam-sized/optimised", entitiesOf, beam},
	} {
		b.Run(impl.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				impl.fn(impl.texts[i%len(impl.texts)], 8)
				i++
			}
		})
	}
}
