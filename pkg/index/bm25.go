package index

import (
	"fmt"
	"math"
	"sync"
)

// BM25 parameters: Lucene's defaults (BM25Similarity, k1 = 1.2, b = 0.75).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// BM25 is an in-memory inverted index scored with Lucene's BM25 variant
// (org.apache.lucene.search.similarities.BM25Similarity, Lucene ≥ 8):
//
//	score(q, d) = Σ_{t ∈ q} idf(t) · tf / (tf + k1 · (1 − b + b · |d| / avgdl))
//	idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
//
// with k1 = 1.2, b = 0.75, N the number of documents, n(t) the number of
// documents containing t, tf the count of t in d, |d| the number of terms
// of d and avgdl their mean. Unlike Lucene, document lengths are exact
// (Lucene stores them in one lossy byte). This IDF is always positive, so
// a term in every document still counts a little, and a query term that
// repeats counts once per repeat, as in a Lucene boolean query.
//
// Hand-written because bleve's BM25 is computed with a wrong average length
// and is slow (see doc.go). Postings are term → [](doc, tf); a search adds
// into a dense score array, remembers which documents it touched, and keeps
// the best k in a heap. Safe for concurrent use: searches share a read
// lock; Add, AddTerms and Remove take the write lock.
type BM25 struct {
	mu       sync.RWMutex
	postings map[string][]posting
	docs     []bm25Doc   // by internal number; removed docs keep a slot
	internal map[int]int // caller's id → internal number
	live     int
	totalLen int

	scratch sync.Pool // *accumulator
	// bigTF holds the counts a posting has no room for (bigTFMark).
	bigTF map[bigKey]int32
	// tf is addLocked's term counts, kept empty between calls (under the
	// write lock) so that adding a document allocates no map.
	tf map[string]int32
}

// maxScratchTerms: a document of more terms than this counts them in a
// map of its own, so that the kept map stays small (clearing a map costs
// in proportion to the room it ever had).
const maxScratchTerms = 4096

// posting is one document of a term's list in four bytes, half of a pair
// of int32s, postings being an episode's largest lexical memory: the
// document's internal number above postingTFBits, the term's count in it
// below, where bigTFMark says the count is in BM25.bigTF (a term said
// that often in one document is rare). An index holds at most maxBM25Docs
// documents, removed ones included.
type posting uint32

const (
	postingTFBits = 8
	bigTFMark     = 1<<postingTFBits - 1
	maxBM25Docs   = 1 << (32 - postingTFBits)
)

// bigKey names a posting whose count is in BM25.bigTF.
type bigKey struct {
	term string
	doc  int32
}

// doc is the posting's document (internal number).
func (p posting) doc() int32 { return int32(p >> postingTFBits) }

// setPosting stores document doc with count tf as ps[i] of term t's list.
func (x *BM25) setPosting(t string, ps []posting, i int, doc, tf int32) {
	if tf < bigTFMark {
		ps[i] = posting(doc)<<postingTFBits | posting(tf)
		return
	}
	ps[i] = posting(doc)<<postingTFBits | bigTFMark
	if x.bigTF == nil {
		x.bigTF = map[bigKey]int32{}
	}
	x.bigTF[bigKey{t, doc}] = tf
}

// tfOf is posting p's count in term t's list.
func (x *BM25) tfOf(t string, p posting) int32 {
	if tf := int32(p & bigTFMark); tf != bigTFMark {
		return tf
	}
	return x.bigTF[bigKey{t, p.doc()}]
}

// appendPosting appends document doc with count tf to term t's list.
func (x *BM25) appendPosting(t string, doc, tf int32) {
	ps := append(x.postings[t], 0)
	x.setPosting(t, ps, len(ps)-1, doc, tf)
	x.postings[t] = ps
}

// bm25Doc is a document's id and length. Its terms are not kept (they
// would be the index's largest part after the postings): Remove finds the
// document in every posting list instead, which only replacement needs.
type bm25Doc struct {
	id     int
	length int // -1 once removed
}

type accumulator struct {
	score   []float64
	touched []int32
}

// NewBM25 returns an empty index.
func NewBM25() *BM25 {
	return &BM25{postings: make(map[string][]posting), internal: make(map[int]int)}
}

// Add indexes text under id (replacing id's earlier text), analysed with
// Analyze.
func (x *BM25) Add(id int, text string) { x.AddTerms(id, Analyze(text)) }

// AddTerms indexes already analysed terms under id, replacing id's earlier
// document. Callers that analyse anyway (to build embeddings, to route by
// keyword) use it to skip a second analysis.
func (x *BM25) AddTerms(id int, terms []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.addLocked(id, terms)
}

func (x *BM25) addLocked(id int, terms []string) {
	tf := x.tf
	if len(terms) > maxScratchTerms {
		tf = make(map[string]int32, len(terms))
	} else if tf == nil {
		tf = make(map[string]int32, 64)
		x.tf = tf
	}
	for _, t := range terms {
		tf[t]++
	}
	x.removeLocked(id)
	if len(x.docs) >= maxBM25Docs {
		panic(fmt.Sprintf("index: BM25 holds at most %d documents, removed ones included", maxBM25Docs))
	}
	n := int32(len(x.docs))
	// Postings are appended in map order: each term's list gets one, at
	// its end, so the index does not depend on that order.
	for t, c := range tf {
		x.appendPosting(t, n, c)
	}
	if len(terms) <= maxScratchTerms {
		clear(tf)
	}
	x.docs = append(x.docs, bm25Doc{id: id, length: len(terms)})
	x.internal[id] = int(n)
	x.live++
	x.totalLen += len(terms)
}

// AppendTerms adds already analysed terms to id's document (creating it if
// id has none), as if the document's text had grown by them. Work is
// proportional to the new terms, not to the document, so a document that
// grows one piece at a time (a chunk taking in interactions) is indexed in
// linear total time. A document's postings are found from the end of each
// list, where the most recently added documents sit.
func (x *BM25) AppendTerms(id int, terms []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	n, ok := x.internal[id]
	if !ok {
		x.addLocked(id, terms)
		return
	}
	d := &x.docs[n]
	for _, t := range terms {
		ps := x.postings[t]
		found := false
		for i := len(ps) - 1; i >= 0; i-- {
			if int(ps[i].doc()) == n {
				x.setPosting(t, ps, i, int32(n), x.tfOf(t, ps[i])+1)
				found = true
				break
			}
		}
		if !found {
			x.appendPosting(t, int32(n), 1)
		}
	}
	d.length += len(terms)
	x.totalLen += len(terms)
}

// Remove deletes id's document; it reports whether there was one. It looks
// through every posting list (documents do not keep their terms), so it
// costs about a search over the whole vocabulary; arbor's callers never
// remove or replace a document.
func (x *BM25) Remove(id int) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.removeLocked(id)
}

func (x *BM25) removeLocked(id int) bool {
	n, ok := x.internal[id]
	if !ok {
		return false
	}
	d := &x.docs[n]
	for t, ps := range x.postings {
		for i, p := range ps {
			if int(p.doc()) == n {
				if p&bigTFMark == bigTFMark {
					delete(x.bigTF, bigKey{t, int32(n)})
				}
				ps = append(ps[:i], ps[i+1:]...)
				if len(ps) == 0 {
					delete(x.postings, t)
				} else {
					x.postings[t] = ps
				}
				break
			}
		}
	}
	x.live--
	x.totalLen -= d.length
	d.length = -1
	delete(x.internal, id)
	return true
}

// Len is the number of documents.
func (x *BM25) Len() int { return x.N() }

// N is the number of documents (BM25's N).
func (x *BM25) N() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// DocFreq is the number of documents containing the analysed term. With N
// it supports rules such as ArborMem's "ignore terms found in more than 40%
// of nodes".
func (x *BM25) DocFreq(term string) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.postings[term])
}

// Search analyses query with Analyze and returns the k best documents.
func (x *BM25) Search(query string, k int) []Hit {
	b := queryPool.Get().(*queryTerms)
	defer b.put()
	b.stems = appendTerms(b.stems[:0], query, true)
	return x.SearchTerms(b.stems, k)
}

// queryTerms is Search's analysis of a query, in a reused buffer.
type queryTerms struct{ stems []string }

var queryPool = sync.Pool{New: func() any { return new(queryTerms) }}

// put returns b to the pool without the strings it points to (they would
// keep analyses alive), unless it grew past maxScratchTerms.
func (b *queryTerms) put() {
	if cap(b.stems) > maxScratchTerms {
		return
	}
	clear(b.stems[:cap(b.stems)])
	queryPool.Put(b)
}

// SearchTerms returns the k documents with the highest BM25 score for the
// analysed query terms, best first, ties by ascending id. Documents that
// share no term with the query are not returned.
func (x *BM25) SearchTerms(terms []string, k int) []Hit {
	if k <= 0 || len(terms) == 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 {
		return nil
	}
	acc, _ := x.scratch.Get().(*accumulator)
	if acc == nil {
		acc = &accumulator{}
	}
	if len(acc.score) < len(x.docs) {
		acc.score = make([]float64, len(x.docs)+len(x.docs)/4)
	}
	N := float64(x.live)
	avgdl := float64(x.totalLen) / N
	if avgdl == 0 {
		avgdl = 1 // every document is empty; no posting will be read anyway
	}
	for _, t := range terms {
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		n := float64(len(ps))
		idf := math.Log(1 + (N-n+0.5)/(n+0.5))
		for _, p := range ps {
			tf := float64(x.tfOf(t, p)) // inlined: no call per posting
			doc := p.doc()
			dl := float64(x.docs[doc].length)
			s := idf * tf / (tf + bm25K1*(1-bm25B+bm25B*dl/avgdl))
			if acc.score[doc] == 0 {
				acc.touched = append(acc.touched, doc)
			}
			acc.score[doc] += s
		}
	}
	top := newTopK(min(k, len(acc.touched)))
	for _, d := range acc.touched {
		top.push(x.docs[d].id, acc.score[d])
		acc.score[d] = 0
	}
	acc.touched = acc.touched[:0]
	x.scratch.Put(acc)
	return top.sorted()
}

var _ Lexical = (*BM25)(nil)
