package tokens

import (
	"container/heap"
	"math"
	"unicode"
	"unicode/utf8"
)

// splitQwen3 returns the end of the pre-token that starts at byte i of s
// (valid UTF-8, i < len(s)). It is qwen3Pattern written out by hand,
// alternative by alternative, with the backtracking the regex engine would
// do; \p{L}, \p{N} and \s are Go's unicode.IsLetter, IsNumber and IsSpace,
// the same tables regexp2 uses.
//
// The case-insensitive contractions fold ASCII only, as regexp2 does.
// Oniguruma and JavaScript also fold U+017F (ſ) to s; the ids cannot
// differ, because no Qwen3 token contains ſ together with anything else.
func splitQwen3(s string, i int) int {
	c, w := utf8.DecodeRuneInString(s[i:])
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if c == '\'' {
		if n := contraction(s[i+1:]); n > 0 {
			return i + 1 + n
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if unicode.IsLetter(c) {
		return letters(s, i+w)
	}
	if c != '\r' && c != '\n' && !unicode.IsNumber(c) && i+w < len(s) {
		if c2, w2 := utf8.DecodeRuneInString(s[i+w:]); unicode.IsLetter(c2) {
			return letters(s, i+w+w2)
		}
	}
	// \p{N}
	if unicode.IsNumber(c) {
		return i + w
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	j := i
	if c == ' ' {
		j++
	}
	if j < len(s) {
		if c2, w2 := utf8.DecodeRuneInString(s[j:]); isOther(c2) {
			k := j + w2
			for k < len(s) {
				c3, w3 := utf8.DecodeRuneInString(s[k:])
				if !isOther(c3) {
					break
				}
				k += w3
			}
			for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
				k++
			}
			return k
		}
	}
	// c is whitespace from here on. Scan the whole run.
	end, afterNL, last := i, -1, i
	for end < len(s) {
		c3, w3 := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsSpace(c3) {
			break
		}
		last = end
		end += w3
		if c3 == '\r' || c3 == '\n' {
			afterNL = end
		}
	}
	// \s*[\r\n]+ : up to the run's last line break.
	if afterNL > 0 {
		return afterNL
	}
	// \s+(?!\S) : the whole run at the end of the text, else all but its
	// last character, which then leads the next word.
	if end == len(s) || last > i {
		if end == len(s) {
			return end
		}
		return last
	}
	// \s+
	return end
}

// contraction returns the length of s's prefix matched by
// s|t|re|ve|m|ll|d, ASCII case-insensitively, or 0.
func contraction(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] | 0x20 {
	case 's', 't', 'm', 'd':
		return 1
	case 'r', 'v':
		if len(s) > 1 && s[1]|0x20 == 'e' {
			return 2
		}
	case 'l':
		if len(s) > 1 && s[1]|0x20 == 'l' {
			return 2
		}
	}
	return 0
}

// letters returns the end of the run of letters starting at i.
func letters(s string, i int) int {
	for i < len(s) {
		c, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(c) {
			break
		}
		i += w
	}
	return i
}

// isOther is [^\s\p{L}\p{N}].
func isOther(c rune) bool {
	return !unicode.IsSpace(c) && !unicode.IsLetter(c) && !unicode.IsNumber(c)
}

// heapMin is the piece length from which BPE uses a heap: the plain scan is
// quadratic, which a long run of letters without spaces would feel.
const heapMin = 64

// appendPiece appends the BPE ids of one pre-token. The merge rule is
// tiktoken's: repeatedly merge the adjacent pair whose concatenation has the
// lowest rank, leftmost first on ties.
//
// A piece that is itself a token is that token, without merging, as in
// tiktoken. The Hugging Face BPE has no such shortcut (ignore_merges is
// false for Qwen3); TestEveryTokenMergesToItself shows the two agree.
func (q *Qwen3) appendPiece(ids []int, p string) []int {
	if id, ok := q.ranks.get(p); ok {
		return append(ids, id)
	}
	return q.appendMerged(ids, p)
}

// rank is the rank of p, 0 when p is not a token (a map's zero value: the
// merges end in tokens, and every single byte is one).
func (q *Qwen3) rank(p string) int {
	r, _ := q.ranks.get(p)
	return r
}

// appendMerged runs the merges on p's bytes.
func (q *Qwen3) appendMerged(ids []int, p string) []int {
	if len(p) >= heapMin {
		return q.appendPieceHeap(ids, p)
	}
	// starts[k] is where part k begins; rank[k] is the rank of part k
	// merged with part k+1.
	var sbuf, rbuf [heapMin + 1]int
	n := len(p)
	starts, rank := sbuf[:n+1], rbuf[:n]
	for k := range starts {
		starts[k] = k
	}
	pair := func(k int) int {
		if k+2 < len(starts) {
			if r, ok := q.ranks.get(p[starts[k]:starts[k+2]]); ok {
				return r
			}
		}
		return math.MaxInt
	}
	for k := range rank {
		rank[k] = pair(k)
	}
	for len(rank) > 1 {
		best, k := math.MaxInt, -1
		for j, r := range rank[:len(rank)-1] {
			if r < best {
				best, k = r, j
			}
		}
		if k < 0 {
			break
		}
		starts = append(starts[:k+1], starts[k+2:]...)
		rank = append(rank[:k+1], rank[k+2:]...)
		rank[k] = pair(k)
		if k > 0 {
			rank[k-1] = pair(k - 1)
		}
	}
	for k := 0; k+1 < len(starts); k++ {
		ids = append(ids, q.rank(p[starts[k]:starts[k+1]]))
	}
	return ids
}

// appendPieceHeap is appendPiece in O(n log n): parts form a linked list
// over byte offsets and candidate pairs sit in a heap ordered by (rank,
// offset), which is the same leftmost-lowest-rank choice. Entries made
// stale by a merge are skipped when popped.
func (q *Qwen3) appendPieceHeap(ids []int, p string) []int {
	n := len(p)
	next := make([]int, n) // offset of the next part; n at the end
	prev := make([]int, n) // offset of the previous part; -1 at the start
	alive := make([]bool, n)
	for k := range n {
		next[k], prev[k], alive[k] = k+1, k-1, true
	}
	h := &pairHeap{}
	push := func(l int) {
		if l < 0 || next[l] >= n {
			return
		}
		end := next[next[l]]
		if r, ok := q.ranks.get(p[l:end]); ok {
			heap.Push(h, pairEntry{rank: r, left: l, end: end})
		}
	}
	for k := 0; k+1 < n; k++ {
		push(k)
	}
	for h.Len() > 0 {
		e := heap.Pop(h).(pairEntry)
		if !alive[e.left] || next[e.left] >= n || next[next[e.left]] != e.end {
			continue
		}
		r := next[e.left]
		alive[r] = false
		next[e.left] = e.end
		if e.end < n {
			prev[e.end] = e.left
		}
		push(prev[e.left])
		push(e.left)
	}
	for k := 0; k < n; k = next[k] {
		ids = append(ids, q.rank(p[k:next[k]]))
	}
	return ids
}

type pairEntry struct{ rank, left, end int }

type pairHeap []pairEntry

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].left < h[j].left
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairEntry)) }
func (h *pairHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
