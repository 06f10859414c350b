package arbormem

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

	"github.com/arbor-eval/arbor/datasets"
	_ "github.com/arbor-eval/arbor/datasets/branchmemeval"
	_ "github.com/arbor-eval/arbor/datasets/locomo"
)

// Reference versions of the text analysis that extractEntities and the
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
		for _, p := range properNounsAt(sent.text, reWordLocs(sent.text)) {
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
	for _, src := range []struct{ name, path string }{{"branchmemeval", ""}, {"locomo", "../../datasets/locomo/testdata/locomo10.json"}} {
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
			if got, want := extractEntities(text, max), extractEntitiesRef(text, max); !reflect.DeepEqual(got, want) {
				t.Fatalf("text %d (%.80q): extractEntities(%d) = %q, want %q", i, text, max, got, want)
			}
		}
		if got, want := sentences(text), sentencesRef(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("text %d (%.80q): sentences = %q, want %q", i, text, got, want)
		}
		if got, want := wordLocs(text), reWordLocs(text); !slices.Equal(got, want) {
			t.Fatalf("text %d (%.80q): wordLocs = %v, want %v", i, text, got, want)
		}
		for _, s := range sentencesRef(text) {
			if got, want := hasDetail(s), hasDetailRef(s); got != want {
				t.Fatalf("hasDetail(%q) = %v, want %v", s, got, want)
			}
		}
	}
}

func hasDetailRef(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return len(properNounsAt(s, reWordLocs(s))) > 0 || reQuoted.MatchString(s)
}

// FuzzTextAnalysisMatchesReference: the same agreement on arbitrary text.
func FuzzTextAnalysisMatchesReference(f *testing.F) {
	for _, s := range []string{"Jan. 5", "I met Sam's dog in Porto.\nOK", "$5 k at 3pm", "\xff'ab'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := extractEntities(text, 8), extractEntitiesRef(text, 8); !reflect.DeepEqual(got, want) {
			t.Fatalf("extractEntities(%q) = %q, want %q", text, got, want)
		}
		if got, want := sentences(text), sentencesRef(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("sentences(%q) = %q, want %q", text, got, want)
		}
		if got, want := wordLocs(text), reWordLocs(text); !slices.Equal(got, want) {
			t.Fatalf("wordLocs(%q) = %v, want %v", text, got, want)
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
		{"reference", extractEntitiesRef, texts}, {"optimised", extractEntities, texts},
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
