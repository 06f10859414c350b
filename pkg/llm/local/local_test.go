package local

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
	"github.com/viterin/vek/vek32"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func embedOne(t *testing.T, e *Embedder, s string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{s})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// FNV-1a test vectors (from the reference implementation's test suite):
// the hash, hence every vector, is the same on every platform.
func TestFNV1aKnownValues(t *testing.T) {
	// fnv1a prefixes the group byte; with group 'a' and "" it hashes "a".
	if got := fnv1a('a', ""); got != 0xaf63dc4c8601ec8c {
		t.Fatalf("fnv1a(\"a\") = %#x", got)
	}
	if got := fnv1a('f', "oobar"); got != 0x85944171f73967e8 {
		t.Fatalf("fnv1a(\"foobar\") = %#x", got)
	}
}

func TestEmbedderDeterministicAndNormalised(t *testing.T) {
	e := NewEmbedder(256)
	if e.Dim() != 256 || NewEmbedder(0).Dim() != DefaultDim {
		t.Fatalf("dims %d, %d", e.Dim(), NewEmbedder(0).Dim())
	}
	text := "I adopted a puppy named Max on 2023-05-07 🐶"
	a, b := embedOne(t, e, text), embedOne(t, NewEmbedder(256), text)
	if !slices.Equal(a, b) {
		t.Fatal("same text, different vectors")
	}
	if n := cosine(a, a); math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm² = %v, want 1", n)
	}
	for _, empty := range []string{"", "   ", "the of and", "!!!"} {
		v := embedOne(t, e, empty)
		if len(v) != 256 || slices.ContainsFunc(v, func(f float32) bool { return f != 0 }) {
			t.Fatalf("%q: want the zero vector", empty)
		}
	}
}

func TestEmbedderSimilarity(t *testing.T) {
	e := NewEmbedder(DefaultDim)
	tests := []struct{ anchor, similar, unrelated string }{
		{"I adopted a puppy last week", "We are adopting a new puppy", "The stock market fell sharply on Monday"},
		{"My sister's birthday party is in May", "the birthday of my sister", "I fixed the kubernetes deployment bug"},
		{"She ran a charity marathon for mental health", "running the marathon for charity", "Tomatoes grow well in a sunny garden"},
		{"Caroline went to the LGBTQ support group", "Caroline's support group meeting", "Melanie painted a lake sunrise"},
	}
	for _, tc := range tests {
		a, s, u := embedOne(t, e, tc.anchor), embedOne(t, e, tc.similar), embedOne(t, e, tc.unrelated)
		cs, cu := cosine(a, s), cosine(a, u)
		t.Logf("%q: similar %.3f, unrelated %.3f", tc.anchor, cs, cu)
		if cs <= cu+0.1 {
			t.Errorf("%q: similar %.3f, unrelated %.3f", tc.anchor, cs, cu)
		}
	}
}

func TestEmbedderContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewEmbedder(8).Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestRerankerOrdersExactMatchFirst(t *testing.T) {
	r := NewReranker()
	query := "When did Caroline adopt the puppy named Max?"
	docs := []string{
		"Melanie went hiking in the mountains with her kids.",
		"Caroline adopted a puppy named Max in early May.",
		"Max is a common name; Caroline likes it.",
		"",
		"The puppy chewed a shoe.",
	}
	scores, err := r.Rerank(context.Background(), query, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != len(docs) {
		t.Fatalf("%d scores for %d docs", len(scores), len(docs))
	}
	best := 0
	for i, s := range scores {
		if s < 0 || s >= 1 {
			t.Fatalf("score %d = %v outside [0,1)", i, s)
		}
		if s > scores[best] {
			best = i
		}
	}
	if best != 1 {
		t.Fatalf("best doc %d, want 1; scores %v", best, scores)
	}
	if scores[0] != 0 || scores[3] != 0 {
		t.Fatalf("docs sharing no term must score 0: %v", scores)
	}
	if !(scores[1] > scores[2] && scores[2] > scores[4] && scores[4] > 0) {
		t.Fatalf("want full > partial > one-term > 0: %v", scores)
	}
}

func TestRerankerScale(t *testing.T) {
	r := NewReranker()
	// A single document that holds the whole query once, at its own (=
	// average) length, covers the query exactly: 1 − e⁻².
	got, err := r.Rerank(context.Background(), "green tea", []string{"green tea"})
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 - math.Exp(-2); math.Abs(got[0]-want) > 1e-12 {
		t.Fatalf("score %v, want %v", got[0], want)
	}
	// Empty query or no docs.
	if s, _ := r.Rerank(context.Background(), "the of", []string{"tea"}); s[0] != 0 {
		t.Fatalf("stop-word query scored %v", s)
	}
	if s, _ := r.Rerank(context.Background(), "tea", nil); len(s) != 0 {
		t.Fatalf("no docs: %v", s)
	}
	// Input order is kept and the result is deterministic.
	docs := []string{"black tea", "green tea", "coffee"}
	a, _ := r.Rerank(context.Background(), "green tea", docs)
	b, _ := r.Rerank(context.Background(), "green tea", docs)
	if !slices.Equal(a, b) || !(a[1] > a[0] && a[0] > a[2]) {
		t.Fatalf("scores %v / %v", a, b)
	}
}

func BenchmarkEmbed(b *testing.B) {
	e := NewEmbedder(1024)
	text := "[1:56 pm on 8 May, 2023] Caroline: I went to a LGBTQ support group yesterday and it was so powerful. The stories were inspiring."
	for b.Loop() {
		e.vector(text)
	}
}

func BenchmarkRerank20(b *testing.B) {
	r := NewReranker()
	docs := make([]string, 20)
	for i := range docs {
		docs[i] = "Caroline went to a LGBTQ support group yesterday and it was so powerful; Melanie ran a charity race."
	}
	for b.Loop() {
		r.Rerank(context.Background(), "When did Caroline go to the support group?", docs)
	}
}

func FuzzEmbedRerank(f *testing.F) {
	for _, s := range []string{"", "hello world", "\xff\xfe", "日本語のテキスト", "a a a a", "John's 2023-05-07"} {
		f.Add(s, "hello")
	}
	e, r := NewEmbedder(64), NewReranker()
	f.Fuzz(func(t *testing.T, doc, query string) {
		textmemo.ResetAll() // coverage independent of earlier inputs (see FuzzLineWise)
		v := embedOne(t, e, doc)
		if n := cosine(v, v); n != 0 && math.Abs(n-1) > 1e-5 {
			t.Fatalf("norm² %v for %q", n, doc)
		}
		s, err := r.Rerank(context.Background(), query, []string{doc, query})
		if err != nil || len(s) != 2 {
			t.Fatalf("rerank: %v %v", s, err)
		}
		if want := rerankByMaps(query, []string{doc, query}); !slices.Equal(s, want) {
			t.Fatalf("Rerank(%q, %q) = %v, term maps %v", query, doc, s, want)
		}
		for _, x := range s {
			if !(x >= 0 && x < 1) {
				t.Fatalf("score %v outside [0,1) for %q / %q", x, query, doc)
			}
		}
	})
}

// TestExactStoresEmbeddingsLosslessly checks, on this embedder's vectors,
// that index.Exact's compact storage of sparse rows scores bit for bit as
// the dense unit rows it replaced (normalised in float64, rounded to
// float32, scored with vek's dot product) and returns each vector as given.
func TestExactStoresEmbeddingsLosslessly(t *testing.T) {
	texts := []string{
		"I adopted a puppy named Biscuit last Saturday.",
		"We agreed the kitchen renovation budget is $12,500 and the tiles arrive on 3 May 2023.",
		"About the trip to Lisbon: the flight leaves at 7:45, we booked the hotel near Alfama, and my sister joins on Tuesday.",
		"the plan needs more detail about timing budget materials schedule people places costs options and the next steps we agreed on last week while reviewing notes from earlier sessions 42.",
		"", "the and of",
	}
	e := NewEmbedder(1024)
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	x := index.NewExactRaw(e.Dim())
	for i, v := range vecs {
		x.Add(i, v)
	}
	unit := func(v []float32) []float32 {
		out := make([]float32, len(v))
		var ss float64
		for _, f := range v {
			ss += float64(f) * float64(f)
		}
		if ss == 0 {
			return out
		}
		inv := 1 / math.Sqrt(ss)
		for i, f := range v {
			out[i] = float32(float64(f) * inv)
		}
		return out
	}
	for qi, q := range vecs {
		for _, h := range x.Search(q, len(vecs)) {
			want := float64(vek32.Dot(unit(q), unit(vecs[h.ID])))
			if math.Float64bits(h.Score) != math.Float64bits(want) {
				t.Errorf("query %d, text %d: score %v, dense storage %v", qi, h.ID, h.Score, want)
			}
		}
	}
	for i, v := range vecs {
		if got := x.Raw(i); !slices.Equal(got, v) {
			t.Errorf("text %d: Raw differs from the embedding", i)
		}
	}
}

// Features that share a slot must be summed in one order whatever the
// order they were counted in, or a text with repeated words (values
// 1+ln tf) could embed differently in the last bit when its words are
// counted in another order (the tail's state counts them apart from the
// head's).
func TestEmbedderSumsCollisionsInOneOrder(t *testing.T) {
	// Eight slots: every slot takes many features.
	type feat struct {
		h  uint64
		tf int
	}
	var feats []feat
	for i := range 200 {
		feats = append(feats, feat{fnv1a('u', "w"+strconv.Itoa(i)), i%7 + 1})
	}
	group := func() []float64 {
		var c counter
		for _, f := range feats {
			for range f.tf {
				c.add(f.h)
			}
		}
		sums := make([]float64, 8)
		mergeGroup(sums, &vecScratch{}, &c, &emptyTail.groups[0])
		return sums
	}
	want := group()
	r := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		r.Shuffle(len(feats), func(i, j int) { feats[i], feats[j] = feats[j], feats[i] })
		got := group()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("slot %d: %v then %v: the same features summed in another order", i, want[i], got[i])
			}
		}
	}
}

// TestConcurrentEmbedRerank: goroutines embedding and reranking at once,
// each with working memory from the shared pools, get the vectors and
// scores a lone caller gets (run with -race).
func TestConcurrentEmbedRerank(t *testing.T) {
	loc, node, rest := commitTexts(5)
	calls := [][]string{{loc}, {node}, rest}
	e, r := NewEmbedder(DefaultDim), NewReranker()
	ctx := context.Background()
	var want [][][]float32
	for _, texts := range calls {
		vs, err := e.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, vs)
	}
	wantScores, err := r.Rerank(ctx, loc, rest)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 6 {
				if (g+k)%2 == 0 {
					textmemo.ResetAll()
				}
				for i, texts := range calls {
					vs, err := e.Embed(ctx, texts)
					if err != nil {
						t.Error(err)
						return
					}
					for j := range vs {
						if !sameBits(vs[j], want[i][j]) {
							t.Errorf("goroutine %d: call %d text %d: vector differs", g, i, j)
						}
					}
				}
				if got, err := r.Rerank(ctx, loc, rest); err != nil || !slices.Equal(got, wantScores) {
					t.Errorf("goroutine %d: rerank %v, %v; want %v", g, got, err, wantScores)
				}
			}
		}()
	}
	wg.Wait()
}
