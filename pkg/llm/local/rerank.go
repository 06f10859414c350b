package local

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// Reranker parameters. k1 and b are Lucene's BM25 defaults, as in
// index.BM25; idfFloor and steepness are our choices for the score scale
// (see Reranker).
const (
	rerankK1        = 1.2
	rerankB         = 0.75
	rerankIDFFloor  = 0.1
	rerankSteepness = 2.0
)

// Reranker is a lexical stand-in for a cross-encoder (the paper uses
// BGE-Reranker-v2-M3, §6.1): it scores each document by BM25 against the query
// with statistics taken from the documents being reranked, over
// index.Analyze terms (stemmed, stop words removed).
//
// Score scale. ArborMem adds the reranker score s_ce to other routing
// signals and compares the sum with the new-root threshold τ (paper §4,
// "State Localization", equations for s_t(v) and p_t), after multiplying
// it by a configurable scale. So the score is a probability-like value in
// [0, 1), like a cross-encoder's sigmoid output:
//
//	x     = Σ_{t ∈ q} idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))
//	xmax  = Σ_{t ∈ q} idf(t)
//	score = 1 − exp(−2 · x / xmax)
//
// where idf(t) = ln(1 + (N − n(t) + 0.5)/(n(t) + 0.5)) + 0.1 over the N
// documents given, so even a single document, or a term every document
// has, still scores. x/xmax is the share of the query's IDF weight the
// document covers: 1 when it holds every query term once at average length.
// So a document that covers the whole query scores 1 − e⁻² ≈ 0.86 (more
// with repeats), half of it ≈ 0.63, a quarter ≈ 0.39, nothing 0. Query
// terms that no document contains still count in xmax and lower every
// score, as a missing key entity lowers a cross-encoder's.
//
// This is a heuristic; results made with it are labelled heuristic.
type Reranker struct{}

// docTermsMemo analyses each document once while it keeps being reranked
// (ArborMem reranks the same candidate nodes commit after commit).
var docTermsMemo = textmemo.New(128, index.Analyze)

// NewReranker returns the lexical reranker.
func NewReranker() *Reranker { return &Reranker{} }

// rerankScratch is Rerank's working memory, reused: the counts of a
// query's terms in each document were most of a localization's
// allocations.
type rerankScratch struct {
	words, qterms []string
	slot          map[string]int32
	tf, df, qslot []int32
	lens          []int
	idf           []float64
}

var rerankPool = sync.Pool{New: func() any { return &rerankScratch{slot: map[string]int32{}} }}

// maxPooledRerank: a scratch that held more query terms or counts than
// this is not kept.
const maxPooledRerank = 1 << 16

// grown returns s resliced to n elements, zeroed.
func grown[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// Rerank returns one score in [0, 1) per document, in input order. An
// empty query (or one of stop words only) scores every document 0. It
// fails only when ctx is done.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("local rerank: %w", err)
	}
	scores := make([]float64, len(docs))
	sc := rerankPool.Get().(*rerankScratch)
	defer sc.put()
	sc.words, sc.qterms = index.AppendAnalysis(sc.words[:0], sc.qterms[:0], query)
	qterms := sc.qterms
	if len(qterms) == 0 || len(docs) == 0 {
		return scores, nil
	}
	// Only query terms score, so only they are counted: slot[t] numbers
	// the query's distinct terms, tf[i*nq+k] counts slot k in document i.
	slot := sc.slot
	for _, t := range qterms {
		if _, ok := slot[t]; !ok {
			slot[t] = int32(len(slot))
		}
	}
	nq := len(slot)
	sc.tf, sc.df, sc.lens = grown(sc.tf, len(docs)*nq), grown(sc.df, nq), grown(sc.lens, len(docs))
	tf, df, lens := sc.tf, sc.df, sc.lens
	total := 0
	for i, d := range docs {
		terms := docTermsMemo.Get(d)
		row := tf[i*nq : (i+1)*nq]
		for _, t := range terms {
			if k, ok := slot[t]; ok {
				if row[k] == 0 {
					df[k]++
				}
				row[k]++
			}
		}
		lens[i] = len(terms)
		total += len(terms)
	}
	N := float64(len(docs))
	avgdl := float64(total) / N
	if avgdl == 0 {
		avgdl = 1
	}
	sc.qslot, sc.idf = grown(sc.qslot, len(qterms)), grown(sc.idf, len(qterms))
	qslot, idf := sc.qslot, sc.idf
	var xmax float64
	for j, t := range qterms {
		qslot[j] = slot[t]
		n := float64(df[qslot[j]])
		idf[j] = math.Log(1+(N-n+0.5)/(n+0.5)) + rerankIDFFloor
		xmax += idf[j]
	}
	for i := range docs {
		var x float64
		norm := rerankK1 * (1 - rerankB + rerankB*float64(lens[i])/avgdl)
		row := tf[i*nq : (i+1)*nq]
		for j := range qterms {
			if tf := float64(row[qslot[j]]); tf > 0 {
				x += idf[j] * tf * (rerankK1 + 1) / (tf + norm)
			}
		}
		scores[i] = 1 - math.Exp(-rerankSteepness*x/xmax)
	}
	return scores, nil
}

// put returns sc to the pool empty, without the query's strings (they
// would keep analyses alive), unless it grew too large to keep.
func (sc *rerankScratch) put() {
	clear(sc.words[:cap(sc.words)])
	clear(sc.qterms[:cap(sc.qterms)])
	if len(sc.slot) > maxPooledRerank/16 || cap(sc.tf) > maxPooledRerank || cap(sc.qterms) > maxPooledRerank {
		return
	}
	clear(sc.slot)
	rerankPool.Put(sc)
}
