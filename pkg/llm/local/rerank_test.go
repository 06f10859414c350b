package local

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// rerankByMaps is Rerank as first written (a term-frequency map per
// document over all its terms), kept to check that counting only the
// query's terms gives the same scores bit for bit.
func rerankByMaps(query string, docs []string) []float64 {
	scores := make([]float64, len(docs))
	qterms := index.Analyze(query)
	if len(qterms) == 0 || len(docs) == 0 {
		return scores
	}
	tfs := make([]map[string]int, len(docs))
	lens := make([]int, len(docs))
	df := make(map[string]int)
	total := 0
	for i, d := range docs {
		terms := index.Analyze(d)
		tf := make(map[string]int, len(terms))
		for _, t := range terms {
			if tf[t] == 0 {
				df[t]++
			}
			tf[t]++
		}
		tfs[i], lens[i] = tf, len(terms)
		total += len(terms)
	}
	N := float64(len(docs))
	avgdl := float64(total) / N
	if avgdl == 0 {
		avgdl = 1
	}
	idf := make([]float64, len(qterms))
	var xmax float64
	for j, t := range qterms {
		n := float64(df[t])
		idf[j] = math.Log(1+(N-n+0.5)/(n+0.5)) + rerankIDFFloor
		xmax += idf[j]
	}
	for i := range docs {
		var x float64
		norm := rerankK1 * (1 - rerankB + rerankB*float64(lens[i])/avgdl)
		for j, t := range qterms {
			if tf := float64(tfs[i][t]); tf > 0 {
				x += idf[j] * tf * (rerankK1 + 1) / (tf + norm)
			}
		}
		scores[i] = 1 - math.Exp(-rerankSteepness*x/xmax)
	}
	return scores
}

// checkRerankByMaps fails unless Rerank scores query and docs exactly as
// rerankByMaps does.
func checkRerankByMaps(t *testing.T, query string, docs []string) {
	t.Helper()
	got, err := NewReranker().Rerank(context.Background(), query, docs)
	if err != nil {
		t.Fatal(err)
	}
	if want := rerankByMaps(query, docs); !slices.Equal(got, want) {
		t.Fatalf("Rerank(%q, %q) = %v, term maps %v", query, docs, got, want)
	}
}

// TestRerankSameAsTermMaps: queries with repeated, missing and stop-word
// terms over document sets with repeats, empty and stop-word-only
// documents.
func TestRerankSameAsTermMaps(t *testing.T) {
	words := strings.Fields("Caroline adopted a puppy named Max the of and dogs dog running ran support group " +
		"LGBTQ yesterday May 2023 Melanie painted sunrise lake John's house tea green black coffee")
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	for range 300 {
		docs := make([]string, rng.IntN(12))
		for i := range docs {
			docs[i] = text(rng.IntN(40))
		}
		if len(docs) > 2 {
			docs[1] = docs[0] // a repeated document
		}
		checkRerankByMaps(t, text(rng.IntN(10)), docs)
	}
	checkRerankByMaps(t, "tea tea green", []string{"green tea", "tea", "", "the of"})
	checkRerankByMaps(t, "the of", []string{"tea"})
}

// FuzzRerank: any query against any documents scores as rerankByMaps does,
// with Rerank's working memory reused from call to call (a repeated
// document, and the query as a document, too).
func FuzzRerank(f *testing.F) {
	for _, s := range [][4]string{{"tea tea green", "green tea", "tea", "the of"}, {"the of", "tea", "", ""}, {"Caroline's dogs", "dog\nCaroline", "x", "John's house"}} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, q, a, b, c string) {
		if len(q)+len(a)+len(b)+len(c) > 4096 {
			return
		}
		textmemo.ResetAll()
		checkRerankByMaps(t, q, []string{a, b, c, a, q})
		checkRerankByMaps(t, q, []string{c})
	})
}

// BenchmarkRerank reranks what an offline ArborMem localization reranks:
// a user message of about 150 words against 30 node documents (topic,
// path summary, summary, entities), the same documents call after call
// as a conversation goes on (their analyses remembered).
func BenchmarkRerank(b *testing.B) {
	query, _, rest := commitTexts(3)
	var docs []string
	for i := range 30 {
		fact, _, _ := strings.Cut(rest[i%6], "\n")
		docs = append(docs, "Topic: "+rest[6+i%3]+"\nPath: "+fact+"\nNode: "+rest[6+(i+1)%3]+" "+fact+"\nEntities: Caroline; Max")
	}
	r := NewReranker()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Rerank(ctx, query, docs); err != nil {
			b.Fatal(err)
		}
	}
}
