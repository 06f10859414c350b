package tokens

import (
	"fmt"
	"hash/maphash"
	"math/bits"
)

// rankTable maps the vocabulary's tokens (byte strings) to their ranks,
// as a Go map[string]int would, but without a pointer per token: the
// tokens' bytes sit one after another in one string and an
// open-addressing table (linear probing) holds, per token, its place in
// that string, its length, its rank and a few bits of its hash. A map
// held 151,643 strings, two thirds of an offline run's live heap, which
// every garbage collection had to mark (a collection took about 2.7 ms
// longer with it loaded); the table is two pointer-free blocks the
// collector does not look into. TestRankTable compares it with a map on
// every token, and FuzzRankTable on other strings.
type rankTable struct {
	blob  string
	slots []uint64 // 0 is an empty place; see pack
	shift uint     // 64 - log2(len(slots)): the hash's top bits pick the place
	seed  maphash.Seed
	n     int // number of tokens
}

// A slot packs, from the top: the token's offset in blob (24 bits), its
// length (8 bits), its rank (20 bits) and the low 12 bits of its hash (a
// probe compares bytes only when length and these bits agree). Tokens are
// never empty, so no slot of a token is 0.
const (
	tagBits  = 12
	rankBits = 20
	lenBits  = 8
	offBits  = 24
)

// newRankTable builds the table of the tokens laid one after another in
// blob, of lengths lens and ranks ranks; a token given twice keeps its last
// rank, as a map would. It fails when a token is empty or too long, the
// tokens too many bytes in all, or a rank out of range for the packing.
func newRankTable(blob string, lens, ranks []int) (*rankTable, error) {
	if len(blob) >= 1<<offBits {
		return nil, fmt.Errorf("rank table: %d bytes of tokens, at most %d fit", len(blob), 1<<offBits-1)
	}
	// At most 5/8 full, so probes stay short.
	size := 1 << max(4, bits.Len(uint(len(lens)*8/5)))
	t := &rankTable{blob: blob, slots: make([]uint64, size), shift: uint(64 - bits.TrailingZeros(uint(size))), seed: maphash.MakeSeed()}
	off := 0
	for i, n := range lens {
		switch {
		case n <= 0:
			return nil, fmt.Errorf("rank table: token %d is empty", i)
		case n >= 1<<lenBits:
			return nil, fmt.Errorf("rank table: token %d is %d bytes, at most %d fit", i, n, 1<<lenBits-1)
		case off+n > len(blob):
			return nil, fmt.Errorf("rank table: token %d ends past the %d bytes given", i, len(blob))
		case ranks[i] < 0 || ranks[i] >= 1<<rankBits:
			return nil, fmt.Errorf("rank table: token %d: rank %d out of [0, %d)", i, ranks[i], 1<<rankBits)
		}
		t.put(blob[off:off+n], uint64(off)<<(64-offBits)|uint64(n)<<(rankBits+tagBits)|uint64(ranks[i])<<tagBits)
		off += n
	}
	return t, nil
}

// put stores the slot e (without its hash bits) of tok, replacing tok's
// earlier slot.
func (t *rankTable) put(tok string, e uint64) {
	h := maphash.String(t.seed, tok)
	e |= h & (1<<tagBits - 1)
	mask := len(t.slots) - 1
	for i := int(h >> t.shift); ; i = (i + 1) & mask {
		old := t.slots[i]
		if old == 0 {
			t.slots[i] = e
			t.n++
			return
		}
		if t.token(old) == tok {
			t.slots[i] = e
			return
		}
	}
}

// token is the token of slot e.
func (t *rankTable) token(e uint64) string {
	off := e >> (64 - offBits)
	return t.blob[off : off+(e>>(rankBits+tagBits))&(1<<lenBits-1)]
}

// get returns the rank of p and whether p is a token.
func (t *rankTable) get(p string) (int, bool) {
	if len(p) >= 1<<lenBits {
		return 0, false // longer than any token
	}
	h := maphash.String(t.seed, p)
	// What a slot of p would hold in its length and hash bits.
	want := uint64(len(p))<<(rankBits+tagBits) | h&(1<<tagBits-1)
	const keyMask = (1<<lenBits-1)<<(rankBits+tagBits) | (1<<tagBits - 1)
	mask := len(t.slots) - 1
	for i := int(h >> t.shift); ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return 0, false
		}
		if e&keyMask == want {
			if off := e >> (64 - offBits); t.blob[off:off+uint64(len(p))] == p {
				return int(e >> tagBits & (1<<rankBits - 1)), true
			}
		}
	}
}

// len is the number of tokens.
func (t *rankTable) len() int { return t.n }

// each calls f with every token and its rank, in no particular order.
func (t *rankTable) each(f func(tok string, rank int)) {
	for _, e := range t.slots {
		if e != 0 {
			f(t.token(e), int(e>>tagBits&(1<<rankBits-1)))
		}
	}
}
