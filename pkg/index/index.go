// Package index provides the vector and lexical indexes used by ArborMem and
// by the BM25 baseline.
package index

// Hit is one search result: the caller's document id and its score.
type Hit struct {
	ID    int
	Score float64
}

// Vector is a nearest-neighbour index over L2-normalised vectors; Score is
// cosine similarity. Search results are sorted by score, best first, ties by
// ascending ID, so results are reproducible.
type Vector interface {
	Add(id int, vec []float32)
	Search(query []float32, k int) []Hit
	Len() int
}

// Lexical is a keyword index; Score is BM25. Results sorted as for Vector.
type Lexical interface {
	Add(id int, text string)
	Search(query string, k int) []Hit
	Len() int
}
