package index

import (
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// analyzers holds bleve's English analyzer ("en": unicode word tokenizer,
// possessive 's stripping, lower-casing, English stop words, Porter
// stemming) and the same chain without the stemmer. They are used without
// any bleve index. Every stage keeps its state in the token stream of one
// call, which is why bleve itself runs them from many goroutines; Analyze
// relies on that (TestAnalyzeConcurrent runs under -race).
type analyzers struct {
	stemmed, content analysis.Analyzer
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
	return analyzers{stemmed: stemmed, content: &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}}, nil
})

func mustAnalyzers() analyzers {
	a, err := enAnalyzers()
	if err != nil {
		// The analyzers are compiled in; this is a broken build, not input.
		panic(err)
	}
	return a
}

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
func Analyze(text string) []string { return terms(mustAnalyzers().stemmed, text) }

// ContentWords returns text's lower-cased words minus English stop words and
// possessive 's, not stemmed, in text order with repeats: the words that
// keyword routing matches and shows. Safe for concurrent use.
func ContentWords(text string) []string { return terms(mustAnalyzers().content, text) }

// Stem applies the Porter stemmer exactly as the "en" analyzer's last stage
// does, so Stem over ContentWords(text) equals Analyze(text); callers that
// need both run the analysis once.
func Stem(word string) string {
	return string(porterstemmer.StemWithoutLowerCasing([]rune(word)))
}
