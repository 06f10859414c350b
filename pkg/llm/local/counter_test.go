package local

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/index"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

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
	if len(c.hs) != len(order) {
		t.Fatalf("%d entries, want %d", len(c.hs), len(order))
	}
	for j, h := range order {
		if c.hs[j] != h || c.tf[j] != want[h] || c.count(h) != want[h] {
			t.Fatalf("entry %d: %#x×%d (count %d), want %#x×%d", j, c.hs[j], c.tf[j], c.count(h), h, want[h])
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
