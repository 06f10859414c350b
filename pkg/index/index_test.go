package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

func randomVecs(rng *rand.Rand, n, dim int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		out[i] = v
	}
	return out
}

// bruteForce scores every vector in float64 and sorts by the Vector contract.
func bruteForce(vecs [][]float32, ids []int, q []float32, k int) []Hit {
	nq := normalised(q)
	hits := make([]Hit, len(vecs))
	for i, v := range vecs {
		nv := normalised(v)
		var s float64
		for j := range nv {
			s += float64(nv[j]) * float64(nq[j])
		}
		hits[i] = Hit{ID: ids[i], Score: s}
	}
	sort.Slice(hits, func(a, b int) bool { return better(hits[a], hits[b]) })
	return hits[:min(k, len(hits))]
}

func TestExactRecallVsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, dim, k = 2000, 64, 20
	vecs := randomVecs(rng, n, dim)
	ids := make([]int, n)
	x := NewExact(dim)
	for i, v := range vecs {
		ids[i] = 10*i + 3 // ids need not be dense or ordered like rows
		x.Add(ids[i], v)
	}
	for qi, q := range randomVecs(rng, 50, dim) {
		got, want := x.Search(q, k), bruteForce(vecs, ids, q, k)
		if len(got) != k {
			t.Fatalf("query %d: %d hits, want %d", qi, len(got), k)
		}
		for i := range want {
			if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-5 {
				t.Fatalf("query %d rank %d: got %+v, want %+v", qi, i, got[i], want[i])
			}
		}
	}
}

func TestExactTiesAndEdgeCases(t *testing.T) {
	x := NewExact(3)
	// Equal vectors tie; the lower id must come first whatever the insertion order.
	for _, id := range []int{9, 2, 5} {
		x.Add(id, []float32{1, 0, 0})
	}
	x.Add(7, []float32{0, 2, 0})                   // orthogonal: score 0
	x.Add(4, []float32{-3, 0, 0})                  // opposite: score -1
	x.Add(8, []float32{0, 0, 0})                   // zero vector: score 0
	x.Add(6, []float32{float32(math.NaN()), 0, 0}) // non-finite: treated as zero
	got := x.Search([]float32{5, 0, 0}, 10)
	want := []Hit{{2, 1}, {5, 1}, {9, 1}, {6, 0}, {7, 0}, {8, 0}, {4, -1}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if got := x.Search([]float32{1, 0, 0}, 0); got != nil {
		t.Fatalf("k=0: %v", got)
	}
	if got := x.Search([]float32{1, 0, 0}, 2); !slices.Equal(got, want[:2]) {
		t.Fatalf("k=2: %v", got)
	}
	// Replacing and removing.
	x.Add(9, []float32{0, 1, 0})
	if !x.Remove(2) || x.Remove(2) || x.Len() != 6 {
		t.Fatalf("remove: len %d", x.Len())
	}
	if got := x.Search([]float32{1, 0, 0}, 1); !slices.Equal(got, []Hit{{5, 1}}) {
		t.Fatalf("after replace/remove: %v", got)
	}
}

func TestExactDimensionMismatchPanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "dimension 2, index dimension 3") {
			t.Fatalf("recover() = %v", r)
		}
	}()
	NewExact(3).Add(1, []float32{1, 2})
}

// addWhileSearching adds items 200..399 in one goroutine while two others
// run check(i) for i < 200 (items added before the start); check returns
// a complaint or "".
func addWhileSearching(t *testing.T, add func(i int), check func(i int) string) {
	t.Helper()
	for i := range 200 {
		add(i)
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		for i := 200; i < 400; i++ {
			add(i)
		}
	}()
	for range 2 {
		go func() {
			defer wg.Done()
			for i := range 200 {
				if msg := check(i); msg != "" {
					t.Error(msg)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestExactConcurrentSearchAndAdd(t *testing.T) {
	vecs := randomVecs(rand.New(rand.NewPCG(1, 1)), 400, 16)
	x := NewExact(16)
	addWhileSearching(t, func(i int) { x.Add(i, vecs[i]) }, func(i int) string {
		// The query's own vector is always present and scores 1.
		if hits := x.Search(vecs[i], 5); len(hits) == 0 || math.Abs(hits[0].Score-1) > 1e-5 {
			return fmt.Sprintf("search %d: %v", i, hits)
		}
		return ""
	})
	if x.Len() != 400 {
		t.Fatalf("len %d", x.Len())
	}
}

// The two-document example, computed by hand for the documented variant
// (Lucene BM25: idf = ln(1 + (N−n+0.5)/(n+0.5)), k1 = 1.2, b = 0.75):
//
//	d1 = [cat cat dog] (|d| = 3), d2 = [dog] (|d| = 1); N = 2, avgdl = 2
//	idf(cat) = ln(1 + 1.5/1.5) = ln 2   = 0.693147  (n = 1)
//	idf(dog) = ln(1 + 0.5/2.5) = ln 1.2 = 0.182322  (n = 2)
//	K(d1) = 1.2·(0.25 + 0.75·3/2) = 1.65;  K(d2) = 1.2·(0.25 + 0.75·1/2) = 0.75
//	q = cat: d1 = 0.693147 · 2/(2+1.65)  = 0.379807
//	q = dog: d2 = 0.182322 · 1/(1+0.75)  = 0.104184
//	         d1 = 0.182322 · 1/(1+1.65)  = 0.068801   (the shorter doc wins)
//	q = cat dog: d1 = 0.379807 + 0.068801 = 0.448608; d2 = 0.104184
//
// (bleve's scorch BM25 gets such a case wrong because of its average length.)
func TestBM25HandComputed(t *testing.T) {
	x := NewBM25()
	x.AddTerms(1, []string{"cat", "cat", "dog"})
	x.AddTerms(2, []string{"dog"})
	tests := []struct {
		q    []string
		want []Hit
	}{
		{[]string{"cat"}, []Hit{{1, 0.379807}}},
		{[]string{"dog"}, []Hit{{2, 0.104184}, {1, 0.068801}}},
		{[]string{"cat", "dog"}, []Hit{{1, 0.448608}, {2, 0.104184}}},
		{[]string{"bird"}, nil},
	}
	for _, tc := range tests {
		got := x.SearchTerms(tc.q, 10)
		if len(got) != len(tc.want) {
			t.Fatalf("%v: got %v, want %v", tc.q, got, tc.want)
		}
		for i := range got {
			if got[i].ID != tc.want[i].ID || math.Abs(got[i].Score-tc.want[i].Score) > 1e-6 {
				t.Fatalf("%v: got %v, want %v", tc.q, got, tc.want)
			}
		}
	}
	if x.N() != 2 || x.DocFreq("dog") != 2 || x.DocFreq("cat") != 1 || x.DocFreq("bird") != 0 {
		t.Fatalf("N %d, df(dog) %d, df(cat) %d", x.N(), x.DocFreq("dog"), x.DocFreq("cat"))
	}
}

func TestBM25ReplaceRemoveTies(t *testing.T) {
	x := NewBM25()
	for _, id := range []int{30, 10, 20} {
		x.Add(id, "The red fox jumps")
	}
	got := x.Search("foxes", 10) // stemmed to the same term as "fox"
	if ids := hitIDs(got); !slices.Equal(ids, []int{10, 20, 30}) || got[0].Score != got[2].Score {
		t.Fatalf("ties: %v", got)
	}
	x.Add(20, "a blue whale") // replaces doc 20
	if ids := hitIDs(x.Search("fox", 10)); !slices.Equal(ids, []int{10, 30}) {
		t.Fatalf("after replace: %v", ids)
	}
	if !x.Remove(10) || x.Remove(10) || x.Len() != 2 || x.DocFreq("fox") != 1 {
		t.Fatalf("after remove: len %d, df %d", x.Len(), x.DocFreq("fox"))
	}
	// Both match one term with equal idf; the shorter doc 20 ("blue whale")
	// beats doc 30 ("red fox jump") through length normalisation.
	if ids := hitIDs(x.Search("whale fox", 1)); !slices.Equal(ids, []int{20}) {
		t.Fatalf("k=1: %v", ids)
	}
	if x.Search("", 5) != nil || x.Search("fox", 0) != nil || NewBM25().Search("fox", 3) != nil {
		t.Fatal("empty query, k=0 or empty index must return nothing")
	}
}

func hitIDs(hs []Hit) []int {
	out := make([]int, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func TestBM25Deterministic(t *testing.T) {
	docs := chatTurns(500, 3)
	build := func() *BM25 {
		x := NewBM25()
		for i, d := range docs {
			x.Add(i, d)
		}
		return x
	}
	a, b := build(), build()
	for _, q := range []string{"doctor appointment", "marathon training plan", "my sister's birthday in May"} {
		ra, rb := a.Search(q, 20), b.Search(q, 20)
		if len(ra) == 0 || !slices.Equal(ra, rb) {
			t.Fatalf("%q: %v vs %v", q, ra, rb)
		}
		if !slices.Equal(ra, a.Search(q, 20)) {
			t.Fatalf("%q: repeated search differs", q)
		}
		// Sorted by the contract.
		for i := 1; i < len(ra); i++ {
			if better(ra[i], ra[i-1]) {
				t.Fatalf("%q: unsorted at %d: %v", q, i, ra)
			}
		}
	}
}

func TestBM25ConcurrentSearchAndAdd(t *testing.T) {
	docs := chatTurns(400, 5)
	x := NewBM25()
	addWhileSearching(t, func(i int) { x.Add(i, docs[i]) }, func(i int) string {
		if len(x.Search(docs[i], 5)) == 0 {
			return fmt.Sprintf("no hit for doc %d's own text", i)
		}
		return ""
	})
	if x.N() != 400 {
		t.Fatalf("N %d", x.N())
	}
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		text         string
		stems, words []string
	}{
		{"The dogs were running to John's house", []string{"dog", "run", "john", "hous"}, []string{"dogs", "running", "john", "house"}},
		{"I adopted a puppy on 2023-05-07!", []string{"adopt", "puppi", "2023", "05", "07"}, []string{"adopted", "puppy", "2023", "05", "07"}},
		{"", []string{}, []string{}},
		{"the and of", []string{}, []string{}},
	}
	for _, tc := range tests {
		if got := Analyze(tc.text); !slices.Equal(got, tc.stems) {
			t.Errorf("Analyze(%q) = %q, want %q", tc.text, got, tc.stems)
		}
		if got := ContentWords(tc.text); !slices.Equal(got, tc.words) {
			t.Errorf("ContentWords(%q) = %q, want %q", tc.text, got, tc.words)
		}
	}
}

func TestAnalyzeConcurrent(t *testing.T) {
	texts := chatTurns(200, 9)
	want := make([][]string, len(texts))
	for i, s := range texts {
		want[i] = Analyze(s)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(texts); i += 4 {
				if got := Analyze(texts[i]); !slices.Equal(got, want[i]) {
					t.Errorf("concurrent Analyze(%q) = %q, want %q", texts[i], got, want[i])
				}
				ContentWords(texts[i])
			}
		}()
	}
	wg.Wait()
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"", "John's dogs", "日本語 text", "\xff\xfe", "a-b_c 1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2048 {
			// Long inputs only slow the fuzzer's minimisation down;
			// TestAnalyzeLong covers them.
			return
		}
		for _, term := range Analyze(s) {
			if term == "" {
				t.Fatalf("empty term from %q", s)
			}
		}
		x := NewBM25()
		x.Add(1, s)
		x.Search(s, 3)
	})
}

func TestStemOfContentWordsIsAnalyze(t *testing.T) {
	texts := append(chatTurns(300, 21), "John's dogs were running", "Caroline’s LGBTQ support group on 8 May, 2023", "ÉCOLE naïve Straße")
	for _, s := range texts {
		words := ContentWords(s)
		stems := make([]string, len(words))
		for i, w := range words {
			stems[i] = Stem(w)
		}
		if got := Analyze(s); !slices.Equal(got, stems) {
			t.Fatalf("%q: Analyze %q, Stem∘ContentWords %q", s, got, stems)
		}
	}
}

func TestAnalyzeLong(t *testing.T) {
	for _, s := range []string{strings.Repeat("a", 20000), strings.Repeat("a ", 10000), strings.Repeat("ab'", 5000), strings.Repeat("\xff", 10000), strings.Repeat("日", 10000)} {
		x := NewBM25()
		x.Add(1, s)
		if got := x.Search(s, 3); len(Analyze(s)) > 0 && len(got) != 1 {
			t.Fatalf("%.10q…: %v", s, got)
		}
	}
}

// TestAppendTermsEqualsAdd: a document grown by AppendTerms scores exactly
// as the same document added whole, among other documents.
func TestAppendTermsEqualsAdd(t *testing.T) {
	pieces := []string{"the garden plan needs tomatoes", "and basil near the tomatoes", "then a fence around the garden"}
	whole, grown := NewBM25(), NewBM25()
	for _, x := range []*BM25{whole, grown} {
		x.Add(0, "a note about the kitchen tiles")
		x.Add(2, "tomatoes are cheap this week")
	}
	whole.Add(1, strings.Join(pieces, " "))
	for _, p := range pieces {
		grown.AppendTerms(1, Analyze(p))
	}
	grown.AppendTerms(3, Analyze("a new document")) // creates
	whole.Add(3, "a new document")
	for _, q := range []string{"tomatoes garden", "basil fence", "kitchen", "new document tomatoes"} {
		a, b := whole.Search(q, 10), grown.Search(q, 10)
		if len(a) != len(b) {
			t.Fatalf("%q: %v vs %v", q, a, b)
		}
		for i := range a {
			if a[i].ID != b[i].ID || math.Abs(a[i].Score-b[i].Score) > 1e-12 {
				t.Errorf("%q: hit %d %+v (added whole) vs %+v (appended)", q, i, a[i], b[i])
			}
		}
	}
	if whole.N() != grown.N() || whole.DocFreq("tomato") != grown.DocFreq("tomato") {
		t.Errorf("statistics differ: N %d/%d, df %d/%d", whole.N(), grown.N(), whole.DocFreq("tomato"), grown.DocFreq("tomato"))
	}
}

// normalised returns a unit-length copy of v, as Search makes of a query.
func normalised(v []float32) []float32 {
	out := make([]float32, len(v))
	normalisedInto(out, v)
	return out
}

// TestBM25LargeCounts checks counts a posting has no room for (255 and
// more, kept beside the list): added at once, grown one term at a time
// across the boundary by AppendTerms, replaced and removed, each scores
// as Lucene's formula computed here from the counts, and a removed
// document leaves no count behind.
func TestBM25LargeCounts(t *testing.T) {
	rep := func(term string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = term
		}
		return out
	}
	x := NewBM25()
	counts := map[int]map[string]int{}
	add := func(id int, terms []string, appendTo bool) {
		if appendTo {
			x.AppendTerms(id, terms)
		} else {
			x.AddTerms(id, terms)
			counts[id] = map[string]int{}
		}
		for _, t := range terms {
			counts[id][t]++
		}
	}
	check := func(step string) {
		t.Helper()
		total := 0
		df := map[string]int{}
		for _, c := range counts {
			for term, n := range c {
				total += n
				df[term]++
			}
		}
		N := float64(len(counts))
		avgdl := float64(total) / N
		for _, q := range []string{"cat", "dog", "eel"} {
			want := map[int]float64{}
			for id, c := range counts {
				if tf := float64(c[q]); tf > 0 {
					dl := 0
					for _, n := range c {
						dl += n
					}
					idf := math.Log(1 + (N-float64(df[q])+0.5)/(float64(df[q])+0.5))
					want[id] = idf * tf / (tf + 1.2*(0.25+0.75*float64(dl)/avgdl))
				}
			}
			got := x.SearchTerms([]string{q}, 10)
			if len(got) != len(want) {
				t.Fatalf("%s: %q: %v, want %v", step, q, got, want)
			}
			for _, h := range got {
				if math.Abs(h.Score-want[h.ID]) > 1e-12 {
					t.Fatalf("%s: %q: doc %d scores %v, want %v", step, q, h.ID, h.Score, want[h.ID])
				}
			}
		}
	}
	add(1, append(rep("cat", 300), "dog"), false)
	add(2, append(rep("dog", 254), "cat"), false)
	add(3, rep("eel", 3), false)
	check("added")
	for range 3 { // dog in 2: 254 → 257, across the boundary
		add(2, []string{"dog", "eel"}, true)
		check("appended")
	}
	add(1, rep("eel", 2), false) // replaces 1's 300 cats
	check("replaced")
	x.Remove(2)
	delete(counts, 2)
	check("removed")
	if len(x.bigTF) != 0 {
		t.Fatalf("counts left beside the lists: %v", x.bigTF)
	}
}
