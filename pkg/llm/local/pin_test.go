package local

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"
)

// TestEmbedderVectorsPinned pins the offline embedder's vectors bit for bit
// on a few texts (a checksum of every float's bits, in order): speed work
// on the embedder must not move any vector, since every offline result
// depends on them. The texts share a tail, so Embed's shared-tail path is
// pinned too.
func TestEmbedderVectorsPinned(t *testing.T) {
	src := "user: I adopted a rescue greyhound named Biscuit in May 2023; we walk 5 km every morning.\n" +
		"assistant: Congratulations on adopting Biscuit! Greyhounds love short sprints, and 5 km of walking is plenty. " +
		strings.Repeat("Keep the lead short near roads. ", 30)
	texts := []string{
		"The user adopted a greyhound named Biscuit.\n" + src,
		"The user walks 5 km every morning.\n" + src,
		src,
		"Zoë's café in Zürich, 東京, naïve résumé",
		"",
		"the and of",
	}
	want := map[int]string{7: "2f79d94407722cde", DefaultDim: "63463dd114ec5692"} // as the embedder made them before issue 17's speed work
	if n := len(NewEmbedder(DefaultDim).sharedTails(texts)); n != 1 || len(src) < minSharedTail {
		t.Fatalf("%d shared tails, source of %d bytes: the texts no longer take the shared paths", n, len(src))
	}
	for dim, sum := range want {
		vs, err := NewEmbedder(dim).Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		for _, v := range vs {
			for _, x := range v {
				b := math.Float32bits(x)
				h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
			}
		}
		if got := fmt.Sprintf("%016x", h.Sum64()); got != sum {
			t.Errorf("dim %d: vectors checksum %s, want %s", dim, got, sum)
		}
	}
}
