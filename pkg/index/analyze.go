package index

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/pkg/textmemo"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
	"github.com/blevesearch/segment"
)

// analyzers holds bleve's English analyzer ("en": unicode word tokenizer,
// possessive 's stripping, lower-casing, English stop words, Porter
// stemming) and the same chain without the stemmer. They are used without
// any bleve index. Every stage keeps its state in the token stream of one
// call, which is why bleve itself runs them from many goroutines; Analyze
// relies on that (TestAnalyzeConcurrent runs under -race).
type analyzers struct {
	stemmed, content analysis.Analyzer
	// filters are content's token filters, which lineWords runs token by
	// token.
	filters []analysis.TokenFilter
	// stop is the stop filter's word list, which the ASCII scanner
	// (scanWords) reads directly.
	stop analysis.TokenMap
}

var enAnalyzers = sync.OnceValues(func() (analyzers, error) {
	cache := registry.NewCache()
	stemmed, err := cache.AnalyzerNamed(en.AnalyzerName)
	if err != nil {
		return analyzers{}, fmt.Errorf("index: bleve analyzer %q: %w", en.AnalyzerName, err)
	}
	tok, err := cache.TokenizerNamed(unicode.Name)
	if err != nil {
		return analyzers{}, fmt.Errorf("index: bleve tokenizer %q: %w", unicode.Name, err)
	}
	var filters []analysis.TokenFilter
	for _, name := range []string{en.PossessiveName, lowercase.Name, en.StopName} {
		f, err := cache.TokenFilterNamed(name)
		if err != nil {
			return analyzers{}, fmt.Errorf("index: bleve token filter %q: %w", name, err)
		}
		filters = append(filters, f)
	}
	stop, err := cache.TokenMapNamed(en.StopName)
	if err != nil {
		return analyzers{}, fmt.Errorf("index: bleve token map %q: %w", en.StopName, err)
	}
	return analyzers{stemmed: stemmed, content: &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}, filters: filters, stop: stop}, nil
})

func mustAnalyzers() analyzers {
	a, err := enAnalyzers()
	if err != nil {
		// The analyzers are compiled in; this is a broken build, not input.
		panic(err)
	}
	return a
}

// terms runs analyzer a over the whole of text.
func terms(a analysis.Analyzer, text string) []string {
	stream := a.Analyze([]byte(text))
	out := make([]string, 0, len(stream))
	for _, t := range stream {
		if len(t.Term) > 0 {
			out = append(out, string(t.Term))
		}
	}
	return out
}

// Analyze returns the index terms of text with bleve's English analyzer:
// lower-cased, possessives and stop words removed, Porter-stemmed, in text
// order with repeats. BM25 and the local embedder both index these terms.
// Safe for concurrent use.
func Analyze(text string) []string { return analyzeLines(text, true) }

// ContentWords returns text's lower-cased words minus English stop words and
// possessive 's, not stemmed, in text order with repeats: the words that
// keyword routing matches and shows. Safe for concurrent use.
func ContentWords(text string) []string { return analyzeLines(text, false) }

// Stem applies the Porter stemmer exactly as the "en" analyzer's last stage
// does, so Stem over ContentWords(text) equals Analyze(text); callers that
// need both run the analysis once. Stems of short words are remembered
// (words repeat across texts far more than texts do).
func Stem(word string) string {
	if len(word) > maxStemMemoWord {
		return porterStem(word)
	}
	return stemMemo.Get(word)
}

// porterStem is the "en" analyzer's stemming stage (bleve's porter filter:
// runes of the term, stemmed without lower-casing, encoded back to UTF-8).
func porterStem(word string) string {
	return string(porterstemmer.StemWithoutLowerCasing([]rune(word)))
}

// Memo bounds. A line's entry holds a copy of the line, its words and
// the stems that differ from them (see lineAnalysis; words of at most
// maxStemMemoWord bytes are the stem memo's strings, shared by every line
// that has them). Measured with every slot full, before entries were cut
// to that: about 4 MiB for lines of chat text (four synthetic turns a
// line), 15–19 MiB for the worst lines we could make (maxMemoLine bytes of
// one-letter words, or of three-letter words that all stem differently).
// Longer lines are analysed every time, as every text was before. Short
// lines (at most maxShortLine bytes) have their own memo, of more slots:
// they are most of the lines that come back commit after commit (a node's
// summary, path summary, topic and entities in its rerank document, a
// short chat turn), and with long lines in the same slots a long
// conversation evicted them before they came back (half the analysis of an
// offline LoCoMo commit was of lines analysed before; a fifth with this
// memo). Full, it holds about 5 MiB of 256-byte chat lines and 16–19 MiB
// of the worst lines above (TestShortLineMemoBound). The stem memo holds
// 16,384 words of at most 32 bytes.
const (
	lineMemoSlots      = 1024
	maxMemoLine        = 2048
	shortLineMemoSlots = 8192
	maxShortLine       = 256
	stemMemoSlots      = 16384
	maxStemMemoWord    = 32
)

// analyzeLineMemo is analyzeLine, remembered for lines of at most
// maxMemoLine bytes.
func analyzeLineMemo(line string) lineAnalysis {
	switch {
	case len(line) <= maxShortLine:
		return shortLineMemo.Get(line)
	case len(line) <= maxMemoLine:
		return lineMemo.Get(line)
	}
	return analyzeLine(line)
}

// maxLabel is the longest label labelSplit cuts off.
const maxLabel = 24

// labelSplit cuts a line of the form "Label: text" (an ASCII-letter label
// of at most maxLabel letters, a colon, one space, then printable ASCII
// other than a space) into "Label:" and "text", whose analyses one after
// the other are the line's. The same texts reach the analysis bare and
// labelled: a turn's content is "user: content" in the interaction's text
// and bare in its user text, a node's summary is bare in its index text
// and "Node: summary" in its rerank document ("Topic: ", "Path: " too),
// so each is analysed once.
//
// Identity: UAX #29 breaks on both sides of a space (WB999) except
// between two spaces (WB3d) or before Extend, Format or ZWJ (WB4); the
// byte after this space is printable ASCII other than a space, and the
// word-joining rules (WB6–WB7, WB11–WB13b) need a letter, digit, or
// connector next to the colon or apostrophe, which the space is not. So
// no token straddles the space, the scanner restarts after it as at the
// start of a line, and the later stages map each token alone (see
// analyzeLines). TestLabelSplit and FuzzLabelSplit compare against bleve's
// analyzers over the whole line.
func labelSplit(line string) (label, rest string, ok bool) {
	for i := 0; i < len(line) && i <= maxLabel; i++ {
		c := line[i]
		if c == ':' {
			if i == 0 || i+2 >= len(line) || line[i+1] != ' ' || line[i+2] <= ' ' || line[i+2] > '~' {
				return "", "", false
			}
			return line[:i+1], line[i+2:], true
		}
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return "", "", false
		}
	}
	return "", "", false
}

// lineAnalysis is the analysis of one line: its content words and their
// stems (Analyze's terms), computed together because the offline embedder
// asks for the words of texts whose terms BM25 and the reranker ask for.
// The stems are kept as the ones that differ from their words, by the
// word's index: most words are their own stems, so a remembered line is
// mostly one slice of words, not two, and the slots of the line memo
// hold a third fewer pointers for every garbage collection to follow.
type lineAnalysis struct {
	words   []string
	changed []int32  // the indexes of the words whose stems differ, ascending
	stems   []string // those words' stems
}

// appendStems appends the stems of la's words to out.
func (la *lineAnalysis) appendStems(out []string) []string {
	at := len(out)
	out = append(out, la.words...)
	for k, i := range la.changed {
		out[at+int(i)] = la.stems[k]
	}
	return out
}

var (
	lineMemo      = textmemo.New(lineMemoSlots, analyzeLine)
	shortLineMemo = textmemo.New(shortLineMemoSlots, analyzeLine)
	stemMemo      = textmemo.New(stemMemoSlots, porterStem)
)

// analyzeLine is the analysis of one line of valid UTF-8.
func analyzeLine(line string) lineAnalysis {
	sc := segPool.Get().(*segScratch)
	defer sc.put()
	if !lineWords(line, sc) {
		sc.reset()
		for _, w := range terms(mustAnalyzers().content, line) {
			sc.add(w, Stem(w))
		}
	}
	// Exact-size copies: the memo keeps them.
	return lineAnalysis{words: exactCopy(sc.words), changed: exactCopy(sc.changed), stems: exactCopy(sc.stems)}
}

// exactCopy is a copy of s of its length, nil when s is empty (never a
// slice of s's array, which is the scratch's).
func exactCopy[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	out := make([]T, len(s))
	copy(out, s)
	return out
}

// wordStem returns the word a token's term is and its stem (Stem). Words
// of at most maxStemMemoWord bytes come from the stem memo, which holds
// one copy of each: a word that comes back line after line is one string
// in the line memo, not one per line, and is looked up once, not made
// into a string and then looked up.
func wordStem(term []byte) (word, stem string) {
	if len(term) > maxStemMemoWord {
		w := string(term)
		return w, porterStem(w)
	}
	return stemMemo.InternBytes(term, stemOwned)
}

// stemOwned is porterStem(w) for a w the stem memo owns: w itself when
// stemming leaves it unchanged (one string, not two equal ones).
func stemOwned(w string) string {
	if st := porterStem(w); st != w {
		return st
	}
	return w
}

// segScratch is the working memory of one line's analysis, reused:
// bleve's tokenizer allocates a token array sized by a guess (often tens of
// KiB for a line of a few hundred bytes) and the segmenter two slices per
// segment, most of the analysis's allocations; the words and changed stems
// are gathered here and copied out at their exact size.
type segScratch struct {
	buf   []byte
	segs  [][]byte
	types []int
	tok   analysis.Token
	one   analysis.TokenStream

	words, stems []string
	changed      []int32
}

var segPool = sync.Pool{New: func() any {
	return &segScratch{segs: make([][]byte, 0, 128), types: make([]int, 0, 128), one: make(analysis.TokenStream, 1)}
}}

// maxPooledLine: a scratch that grew past this is not kept.
const maxPooledLine = 64 << 10

// reset forgets the words gathered.
func (sc *segScratch) reset() {
	clear(sc.words)
	clear(sc.stems)
	sc.words, sc.stems, sc.changed = sc.words[:0], sc.stems[:0], sc.changed[:0]
}

// put returns sc to the pool, without the strings it gathered (they would
// keep analyses alive), unless it grew too large to keep.
func (sc *segScratch) put() {
	sc.reset()
	if cap(sc.buf) <= maxPooledLine && cap(sc.words) <= maxPooledLine {
		segPool.Put(sc)
	}
}

// add gathers a word and its stem.
func (sc *segScratch) add(w, st string) {
	if st != w {
		sc.changed = append(sc.changed, int32(len(sc.words)))
		sc.stems = append(sc.stems, st)
	}
	sc.words = append(sc.words, w)
}

// lineWords gathers in sc each content word of one line of valid UTF-8
// and its stem (wordStem), in order: ContentWords of the line. Lines that
// scanWords can read (ASCII, and a few punctuation marks) take its path;
// the others segmentWords'. It reports false, having gathered nothing,
// when the segmenter fails.
func lineWords(line string, sc *segScratch) bool {
	if scanWords(line, sc) {
		return true
	}
	return segmentWords(line, sc)
}

// segmentWords is lineWords through bleve's analysis, computed as bleve's
// content analyzer does (its tokenizer keeps the non-None segments
// of segment's UAX #29 word segmentation, then the token filters run) but
// with the segments in reused memory and the filters applied token by
// token, which they allow (each looks at one token's term only). It
// reports false, having gathered nothing, when the segmenter fails.
func segmentWords(line string, sc *segScratch) bool {
	a := mustAnalyzers()
	sc.buf = append(sc.buf[:0], line...)
	segs, types, _, err := segment.SegmentWordsDirect(sc.buf, sc.segs[:0], sc.types[:0])
	sc.segs, sc.types = segs[:0], types[:0]
	if err != nil {
		return false
	}
	for i, seg := range segs {
		if types[i] == segment.None {
			continue
		}
		sc.tok = analysis.Token{Term: seg}
		ts := sc.one[:1]
		ts[0] = &sc.tok
		for _, f := range a.filters {
			ts = f.Filter(ts)
		}
		if len(ts) == 1 && len(ts[0].Term) > 0 {
			sc.add(wordStem(ts[0].Term))
		}
	}
	return true
}

// LineWise reports whether the analysis (Analyze, ContentWords) of text,
// and of any text of such lines joined by "\n", is its lines' analyses one
// after another: callers that analyse parts of a text apart rely on it.
// It holds for valid UTF-8 (see analyzeLines).
func LineWise(text string) bool { return utf8.ValidString(text) }

// analyzeLines analyses text line by line, remembering lines, because the
// callers analyse the same large texts many times inside different
// strings: ArborMem indexes each fact as fact + "\n" + its source
// interaction, node texts join the interaction with its summary, and
// BM25 queries and rerank documents repeat them.
//
// Identity: the analysis of a + "\n" + b is the analysis of a followed by
// that of b. The unicode tokenizer (blevesearch/segment, UAX #29 word
// boundaries) breaks before and after every LF (WB3a/WB3b): no token
// pattern contains LF except the LF and CR LF tokens, which carry no term,
// and after a token the scanner restarts in its initial state, so the
// tokens of a do not depend on what follows the LF nor those of b on what
// precedes it. The later stages (possessive, lower case, stop words,
// Porter) map each token alone, and the Porter stage equals Stem of the
// content words (stemming never empties a non-empty word). Only valid
// UTF-8 is split: segment stops the whole text at a None token followed by
// an invalid byte, which a split would confine to one line (LineWise).
// TestLineWise and FuzzLineWise compare against bleve's analyzers over the
// whole text.
func analyzeLines(text string, stemmed bool) []string {
	if !LineWise(text) {
		a := mustAnalyzers()
		if stemmed {
			return terms(a.stemmed, text)
		}
		return terms(a.content, text)
	}
	// Room for the parts of most texts on the stack (a labelled line is two).
	var buf [32]lineAnalysis
	parts, n := buf[:0], 0
	eachLineAnalysis(text, func(la lineAnalysis) {
		if len(la.words) > 0 {
			parts = append(parts, la)
			n += len(la.words)
		}
	})
	// The memo's slices are shared: the result is always a new slice.
	out := make([]string, 0, n)
	for i := range parts {
		if stemmed {
			out = parts[i].appendStems(out)
		} else {
			out = append(out, parts[i].words...)
		}
	}
	return out
}

// eachLineAnalysis calls f with the analyses of text's lines (of the parts
// of a labelled line) in order; text is valid UTF-8 (see analyzeLines).
func eachLineAnalysis(text string, f func(lineAnalysis)) {
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		for line != "" {
			// A labelled line is its label's analysis and then its text's,
			// each remembered alone (see labelSplit).
			part, rest, ok := labelSplit(line)
			if !ok {
				part, rest = line, ""
			}
			line = rest
			f(analyzeLineMemo(part))
		}
	}
}

// appendTerms appends Analyze(text) (stemmed) or ContentWords(text) to
// dst, for callers that reuse their buffer.
func appendTerms(dst []string, text string, stemmed bool) []string {
	if !LineWise(text) {
		a := mustAnalyzers()
		an := a.content
		if stemmed {
			an = a.stemmed
		}
		return append(dst, terms(an, text)...)
	}
	eachLineAnalysis(text, func(la lineAnalysis) {
		if stemmed {
			dst = la.appendStems(dst)
		} else {
			dst = append(dst, la.words...)
		}
	})
	return dst
}

// AppendAnalysis appends ContentWords(text) to words and Analyze(text) to
// stems, in step (the i-th stem is Stem of the i-th word), for callers that
// need both and reuse their buffers: the offline embedder, which would
// otherwise get two new slices per text only to read them once. The
// strings appended are shared; the caller owns only the slices.
func AppendAnalysis(words, stems []string, text string) ([]string, []string) {
	if !LineWise(text) {
		a := mustAnalyzers()
		w := terms(a.content, text)
		words = append(words, w...)
		if st := terms(a.stemmed, text); len(st) == len(w) {
			return words, append(stems, st...)
		}
		// Not expected (stemming empties no word); stem word by word.
		for _, x := range w {
			stems = append(stems, Stem(x))
		}
		return words, stems
	}
	eachLineAnalysis(text, func(la lineAnalysis) {
		words = append(words, la.words...)
		stems = la.appendStems(stems)
	})
	return words, stems
}
