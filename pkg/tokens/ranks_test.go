package tokens

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// refRanks is the vocabulary as a Go map, parsed as loadRanks parsed it
// before the rank table: the reference the table must equal, and the
// ranks the tiktoken oracle runs with.
var refRanks = sync.OnceValues(func() (map[string]int, error) {
	zr, err := gzip.NewReader(bytes.NewReader(qwen3Ranks))
	if err != nil {
		return nil, err
	}
	ranks := map[string]int{}
	sc := bufio.NewScanner(zr)
	for line := 1; sc.Scan(); line++ {
		tok, rank, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			return nil, fmt.Errorf("line %d: expected \"base64 rank\"", line)
		}
		n, err := strconv.Atoi(rank)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		b, err := base64.StdEncoding.DecodeString(tok)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		ranks[string(b)] = n
	}
	return ranks, sc.Err()
})

// TestRankTable checks the loaded table against the map: the same tokens
// with the same ranks, every token found, and strings near tokens (one byte
// more, one less, one changed) found exactly when the map has them.
func TestRankTable(t *testing.T) {
	ref, err := refRanks()
	if err != nil {
		t.Fatal(err)
	}
	q := defaultCounter()
	if q.ranks.len() != len(ref) {
		t.Fatalf("table holds %d tokens, map %d", q.ranks.len(), len(ref))
	}
	n := 0
	q.ranks.each(func(tok string, r int) {
		if want, ok := ref[tok]; !ok || want != r {
			t.Errorf("table has %q rank %d; map %d, %v", tok, r, want, ok)
		}
		n++
	})
	if n != len(ref) {
		t.Errorf("each visits %d tokens, want %d", n, len(ref))
	}
	check := func(p string) {
		t.Helper()
		got, gok := q.ranks.get(p)
		want, wok := ref[p]
		if got != want || gok != wok {
			t.Errorf("get(%q) = %d, %v; map %d, %v", p, got, gok, want, wok)
		}
	}
	i := 0
	for tok := range ref {
		check(tok)
		if i%16 == 0 {
			check(tok + "e")
			check(tok[1:])
			check(tok[:len(tok)-1] + "\x00")
		}
		i++
	}
	for _, p := range []string{"", strings.Repeat("a", 255), strings.Repeat("a", 256), strings.Repeat(" ", 1000)} {
		check(p)
	}
}

// TestRankTableLimits: what the packing cannot hold is an error, and a
// token given twice keeps its last rank.
func TestRankTableLimits(t *testing.T) {
	tests := []struct {
		name  string
		blob  string
		lens  []int
		ranks []int
		ok    bool
	}{
		{"fits", "abc", []int{1, 2}, []int{0, 1<<rankBits - 1}, true},
		{"empty token", "ab", []int{0, 2}, []int{0, 1}, false},
		{"token too long", strings.Repeat("a", 256), []int{256}, []int{0}, false},
		{"rank too large", "ab", []int{1, 1}, []int{0, 1 << rankBits}, false},
		{"negative rank", "ab", []int{1, 1}, []int{0, -1}, false},
		{"past the blob", "ab", []int{1, 2}, []int{0, 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newRankTable(tt.blob, tt.lens, tt.ranks)
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
	rt, err := newRankTable("abab", []int{2, 2}, []int{3, 7})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := rt.get("ab"); !ok || r != 7 || rt.len() != 1 {
		t.Errorf("duplicate token: get = %d, %v, len %d; want 7, true, 1", r, ok, rt.len())
	}
}

// FuzzRankTable compares the table's lookup with the map's on any string.
func FuzzRankTable(f *testing.F) {
	for _, s := range []string{"", "the", " the", "hello", "\xff", "ĠĠ", strings.Repeat("=", 64), "<|im_end|>"} {
		f.Add(s)
	}
	ref, err := refRanks()
	if err != nil {
		f.Fatal(err)
	}
	q := defaultCounter()
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range []string{s, " " + s} {
			got, gok := q.ranks.get(p)
			want, wok := ref[p]
			if got != want || gok != wok {
				t.Fatalf("get(%q) = %d, %v; map %d, %v", p, got, gok, want, wok)
			}
		}
	})
}
