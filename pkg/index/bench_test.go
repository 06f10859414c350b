package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// chatTurns makes n synthetic chat turns, so benchmarks and tests run on
// text shaped like LoCoMo/BEAM turns: words follow a Zipf law over a few
// thousand word types (common chat words first, then made-up rarer ones).
func chatTurns(n int, seed uint64) []string {
	return synthText(n, seed, 8, 30)
}

// chatQueries makes short question-like texts over the same vocabulary.
func chatQueries(n int, seed uint64) []string {
	return synthText(n, seed, 4, 6)
}

func synthText(n int, seed uint64, minWords, spread int) []string {
	words := strings.Fields(`I we you my our really think went saw bought adopted painted ran visited moved started
		finished dog cat puppy doctor appointment marathon training recipe cake birthday sister brother mom dad
		friend job promotion startup project deadline meeting trip vacation flight Paris Seattle Tokyo beach
		mountain hike camping guitar lessons concert book novel movie garden tomatoes coffee tea gym yoga
		weekend Monday Saturday morning evening yesterday tomorrow last next week month year because and but
		so then with for about at in on the a an to of it was is were are have has had will would could`)
	syll := []string{"ka", "lo", "mi", "ren", "to", "sa", "vi", "dor", "pe", "lu", "na", "qui", "ber", "zo", "fen", "ta"}
	for i := range 4000 {
		words = append(words, syll[i%16]+syll[(i/16)%16]+syll[(i/256)%16])
	}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		fmt.Fprintf(&b, "Speaker%d:", rng.IntN(2))
		for range minWords + rng.IntN(spread) {
			b.WriteByte(' ')
			b.WriteString(words[zipf.Uint64()])
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, " on %d May 2023", 1+rng.IntN(28))
		}
		b.WriteByte('.')
		out[i] = b.String()
	}
	return out
}

func BenchmarkExactSearch12400x1024Top20(b *testing.B) {
	benchExactSearch(b, NewExact(1024))
}

// BenchmarkExactSearchInt8 is the same search over int8 rows
// (arbormem.vector_storage: int8).
func BenchmarkExactSearchInt8(b *testing.B) {
	benchExactSearch(b, NewExactCompact(1024))
}

// BenchmarkExactSearchInt4 is the same search over int4 rows (the fact
// channel's on the model path, arbormem.fact_vector_storage: auto).
func BenchmarkExactSearchInt4(b *testing.B) {
	benchExactSearch(b, NewExactWith(1024, Options{Storage: Int4}))
}

// BenchmarkExactSearchRaw is the same search over rows kept as given
// (Options.KeepRaw), each of which differs from its unit row here, so
// every row's unit row is rebuilt: the cost of keeping one copy.
func BenchmarkExactSearchRaw(b *testing.B) {
	benchExactSearch(b, NewExactRaw(1024))
}

func benchExactSearch(b *testing.B, x *Exact) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 12400
	for i, v := range randomVecs(rng, n, x.Dim()) {
		x.Add(i, v)
	}
	queries := randomVecs(rng, 64, x.Dim())
	b.ResetTimer()
	i := 0
	for b.Loop() {
		x.Search(queries[i%len(queries)], 20)
		i++
	}
}

func BenchmarkBM25Index12400Turns(b *testing.B) {
	turns := chatTurns(12400, 11)
	analysed := make([][]string, len(turns))
	for i, s := range turns {
		analysed[i] = Analyze(s)
	}
	b.Run("analyze", func(b *testing.B) {
		for b.Loop() {
			for _, s := range turns {
				Analyze(s)
			}
		}
	})
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			x := NewBM25()
			for i, t := range analysed {
				x.AddTerms(i, t)
			}
		}
	})
}

func BenchmarkBM25Search12400Turns(b *testing.B) {
	turns := chatTurns(12400, 11)
	x := NewBM25()
	for i, s := range turns {
		x.Add(i, s)
	}
	queries := chatQueries(64, 99)
	qterms := make([][]string, len(queries))
	for i, q := range queries {
		qterms[i] = Analyze(q)
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		x.SearchTerms(qterms[i%len(qterms)], 20)
		i++
	}
}

// BenchmarkExactSearchSparse12400x1024Top20 is the same search over rows
// shaped like the offline embedder's (~290 of 1,024 slots set), which the
// index stores compactly and rebuilds densely per search.
func BenchmarkExactSearchSparse12400x1024Top20(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, dim = 12400, 1024
	x := NewExact(dim)
	for i, v := range sparseVecs(rng, n, dim, 300, 64) {
		x.Add(i, v)
	}
	queries := sparseVecs(rng, 64, dim, 200, 24)
	i := 0
	for b.Loop() {
		x.Search(queries[i%len(queries)], 20)
		i++
	}
}

var stemSink string

// BenchmarkStem stems the content words of chat turns, as the offline
// embedder does word by word: "porter" is the stemmer alone, "memo" is Stem.
func BenchmarkStem(b *testing.B) {
	var words []string
	for _, s := range chatTurns(2000, 13) {
		words = append(words, ContentWords(s)...)
	}
	b.Run("porter", func(b *testing.B) {
		for b.Loop() {
			for _, w := range words {
				stemSink = porterStem(w)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
	})
	b.Run("memo", func(b *testing.B) {
		for b.Loop() {
			for _, w := range words {
				stemSink = Stem(w)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
	})
}
