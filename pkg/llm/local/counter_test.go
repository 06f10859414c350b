package local

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// count returns how often h was added (the tests' view of a counter).
func (c *counter) count(h uint64) int32 {
	if len(c.table) == 0 {
		return 0
	}
	mask := len(c.table) - 1
	for i := int(h * counterMul >> c.shift); ; i = (i + 1) & mask {
		e := c.table[i]
		if e == 0 {
			return 0
		}
		if en := c.ents[e-1]; en.h == h {
			return en.tf
		}
	}
}

// checkCounter counts hs with a counter and with a Go map (the
// reference): same counts, entries in order of first occurrence, and
// count agrees for every hash and for absent ones. The counter is reused
// after reset, as the scratch pool reuses it.
func checkCounter(t *testing.T, c *counter, hs []uint64) {
	t.Helper()
	c.reset()
	want := map[uint64]int32{}
	var order []uint64
	for _, h := range hs {
		if want[h] == 0 {
			order = append(order, h)
		}
		want[h]++
		c.add(h)
	}
	if len(c.ents) != len(order) {
		t.Fatalf("%d entries, want %d", len(c.ents), len(order))
	}
	for j, h := range order {
		if e := c.ents[j]; e.h != h || e.tf != want[h] || c.count(h) != want[h] {
			t.Fatalf("entry %d: %#x×%d (count %d), want %#x×%d", j, e.h, e.tf, c.count(h), h, want[h])
		}
	}
	for _, h := range hs {
		if want[h+1] == 0 && c.count(h+1) != 0 {
			t.Fatalf("count(%#x) = %d for a hash never added", h+1, c.count(h+1))
		}
	}
}

func TestCounter(t *testing.T) {
	var c counter
	if c.count(42) != 0 {
		t.Fatal("empty counter counts 42")
	}
	// Hashes that share their top bits share a place after the
	// multiplication only by chance; these share their low bits, these
	// their top bits, and many repeat, over several growths.
	var hs []uint64
	for i := range 5000 {
		hs = append(hs, uint64(i%1500)<<40, uint64(i%700), math.MaxUint64-uint64(i%300))
	}
	checkCounter(t, &c, hs)
	checkCounter(t, &c, hs[:7]) // reused after a large text, as from the pool
	checkCounter(t, &c, nil)
	checkCounter(t, &c, hs)
}

func FuzzCounter(f *testing.F) {
	f.Add([]byte{1, 2, 3}, uint8(3))
	f.Add(make([]byte, 800), uint8(0))
	var c counter
	f.Fuzz(func(t *testing.T, data []byte, spread uint8) {
		// Few distinct hashes (repeats) or many, with shared bits.
		var hs []uint64
		for len(data) >= 2 {
			v := uint64(binary.LittleEndian.Uint16(data))
			hs = append(hs, v<<(spread%49))
			data = data[2:]
		}
		checkCounter(t, &c, hs)
	})
}

// FuzzEmbedReference embeds texts shaped as a commit's (facts followed by
// one long interaction, the interaction alone, a short text) through
// Embed and compares every vector bit for bit with the reference, which
// counts with maps, sorts every group and takes every logarithm.
func FuzzEmbedReference(f *testing.F) {
	f.Add("The user adopted a greyhound.", "Tomatoes need sun", "user: I adopted a greyhound named Biscuit.\nassistant: Lovely!", uint8(7))
	f.Add("", "x", "a b c", uint8(0))
	f.Add("paid $1,200.50", "on 2024-03-15", "Zürich 東京 naïve\r\nrésumé 3rd 10:30am", uint8(200))
	f.Fuzz(func(t *testing.T, fact1, fact2, src string, d uint8) {
		textmemo.ResetAll()
		dim := int(d) + 1
		// Long enough for the remembered state and the shared tail.
		long := strings.Repeat(src+"\n", minSharedTail/(len(src)+1)+1)
		texts := []string{fact1 + "\n" + long, fact2 + "\n" + long, long, fact1, src}
		vs, err := NewEmbedder(dim).Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			if !sameBits(vs[i], refVector(index.ContentWords(text), dim)) {
				t.Fatalf("dim %d, text %d %q: vector differs from the reference", dim, i, text)
			}
		}
	})
}

// checkFeatures compares countFeatures on words with the reference's
// features of whole strings: the same hashes with the same counts in each
// group, and the same bigram prefix of the last stem.
func checkFeatures(t *testing.T, words []string) {
	t.Helper()
	stems := make([]string, len(words))
	for i, w := range words {
		stems[i] = index.Stem(w)
	}
	var got [3]counter
	lastBi, has := countFeatures(words, stems, &got[0], &got[1], &got[2])
	want := [3]map[uint64]int32{{}, {}, {}}
	var prevBi uint64
	for i, w := range words {
		f := refWordFeature(w)
		want[0][f.uni]++
		if i > 0 {
			want[1][fnvAdd(prevBi, f.stem)]++
		}
		prevBi = f.biPrefix
		for _, h := range f.tri {
			want[2][h]++
		}
	}
	if has != (len(words) > 0) || (has && lastBi != prevBi) {
		t.Fatalf("%q: last bigram prefix %#x (%v), want %#x", words, lastBi, has, prevBi)
	}
	for g := range want {
		if len(got[g].ents) != len(want[g]) {
			t.Fatalf("%q: group %d has %d features, want %d", words, g, len(got[g].ents), len(want[g]))
		}
		for h, n := range want[g] {
			if got[g].count(h) != n {
				t.Fatalf("%q: group %d, feature %#x counted %d, want %d", words, g, h, got[g].count(h), n)
			}
		}
	}
}

func TestFeatureHashes(t *testing.T) {
	for _, words := range [][]string{
		nil,
		{"a"},
		{"ab", "abc", "adopted", "adopting"},
		{"zoë", "café", "zürich", "東京", "naïve", "résumé"},
		{"\xff", "a\xe2\x80", "\xe2\x80\xa8x", "e\u0301"},
		{strings.Repeat("x", 61), strings.Repeat("y", 62), strings.Repeat("é", 40)}, // around the stack buffer
		{"walk", "walk", "walks", "walk"},
	} {
		checkFeatures(t, words)
	}
}

func FuzzFeatureHashes(f *testing.F) {
	f.Add("adopted greyhound", "zoë")
	f.Add("\xff", "a\xe2\x80")
	f.Fuzz(func(t *testing.T, a, b string) {
		// Any strings, as words: the tokenizer's are not needed for the
		// hashes to agree.
		checkFeatures(t, append(strings.Fields(a), b))
	})
}

// TestHeadBySlot: the counting sort that groups many head features by
// slot makes the keys the integer sort makes.
func TestHeadBySlot(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []uint64{1, 7, 64, DefaultDim} {
		for _, n := range []int{0, 1, 5, 95, 96, 97, 1000} {
			var c counter
			for range n {
				c.add(r.Uint64() >> r.UintN(60)) // small and large hashes, some repeated
			}
			var want []uint64
			for j, e := range c.ents {
				want = append(want, (e.h%dim)<<32|uint64(j))
			}
			slices.Sort(want)
			if got := new(vecScratch).headBySlot(&c, dim); !slices.Equal(got, want) {
				t.Fatalf("dim %d, %d features: keys differ from the sorted ones", dim, len(c.ents))
			}
		}
	}
}
