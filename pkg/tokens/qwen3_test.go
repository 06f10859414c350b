package tokens

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/textmemo"
)

type refLine struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

func loadReference(t testing.TB) []refLine {
	t.Helper()
	f, err := os.Open("testdata/reference.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []refLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		var r refLine
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("testdata/reference.jsonl:%d: %v", line, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		// The tests that range over it would otherwise pass vacuously.
		t.Fatal("testdata/reference.jsonl holds no lines")
	}
	return out
}

func TestQwen3Reference(t *testing.T) {
	q, err := NewQwen3()
	if err != nil {
		t.Fatal(err)
	}
	refs := loadReference(t)
	bad := 0
	for i, r := range refs {
		got := q.Encode(r.Text)
		if !slices.Equal(got, r.IDs) {
			bad++
			t.Errorf("line %d %q:\n got  %v\n want %v", i+1, r.Text, got, r.IDs)
		}
	}
	t.Logf("%d/%d identical", len(refs)-bad, len(refs))
}

func TestQwen3AddedTokens(t *testing.T) {
	q, err := NewQwen3()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text string
		want []int
	}{
		{"alone", "<|im_end|>", []int{151645}},
		{"adjacent", "<|im_start|><|im_end|>", []int{151644, 151645}},
		{"non-special added token", "<think>", []int{151667}},
		// The token is cut out before NFC, so U+0338 cannot fuse with '>'
		// into U+226F; the server does the same.
		{"combining mark after", "<|im_end|>\u0338", []int{151645, 136, 116}},
		{"unknown look-alike", "<|im_ends|>", nil},
		{"truncated", "<|im_end", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := q.Encode(tc.text)
			if tc.want == nil {
				for _, id := range got {
					if id >= 151643 {
						t.Fatalf("Encode(%q) = %v: contains an added token", tc.text, got)
					}
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Encode(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestQwen3NFC(t *testing.T) {
	q := Default()
	// Decomposed and precomposed forms are the same text after NFC.
	if a, b := q.Count("cafe\u0301"), q.Count("café"); a != b {
		t.Fatalf("decomposed %d tokens, precomposed %d", a, b)
	}
}

func TestCountMatchesEncode(t *testing.T) {
	q, err := NewQwen3()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range loadReference(t) {
		if got := q.Count(r.Text); got != len(r.IDs) {
			t.Fatalf("reference line %d: Count %d, want %d", i+1, got, len(r.IDs))
		}
	}
}

func TestDefaultConcurrent(t *testing.T) {
	refs := loadReference(t)
	errs := make(chan string, 4)
	for g := range 4 {
		go func() {
			for i := g; i < len(refs); i += 4 {
				if got := Default().Count(refs[i].Text); got != len(refs[i].IDs) {
					errs <- refs[i].Text
					return
				}
			}
			errs <- ""
		}()
	}
	for range 4 {
		if s := <-errs; s != "" {
			t.Errorf("concurrent count wrong for %q", s)
		}
	}
}

func FuzzQwen3(f *testing.F) {
	for _, s := range []string{"", "hello", "<|im_end|>", "<|im_", "\xff\xfe", "a\u0301", "   \n\n  ", "😀 12345", "the cat and the hat and the cat"} {
		f.Add(s)
	}
	q, err := NewQwen3()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		textmemo.ResetAll() // Count's piece memo: first sight, then remembered
		ids := q.Encode(s)
		for range 2 {
			if n := q.Count(s); len(ids) != n {
				t.Fatalf("Encode gives %d ids, Count %d", len(ids), n)
			}
		}
		if s != "" && len(ids) == 0 {
			t.Fatalf("no tokens for %q", s)
		}
		for _, id := range ids {
			if id < 0 || id > 151668 {
				t.Fatalf("id %d out of range for %q", id, s)
			}
		}
	})
}

// benchChat is a LoCoMo-style chat excerpt of about 500 Qwen3 tokens.
const benchChat = `[1:56 pm on 8 May, 2023] Caroline: Hey Mel! Good to see you! How have you been?
[1:56 pm on 8 May, 2023] Melanie: Hey Caroline! Good to see you! I'm swamped with the kids & work. What's up with you? Anything new?
[1:56 pm on 8 May, 2023] Caroline: I went to a LGBTQ support group yesterday and it was so powerful. The stories were inspiring — 12 people came, more than the 7 we had on 2023-04-30.
[1:56 pm on 8 May, 2023] Melanie: Wow, that's cool, Caroline! What happened that was so awesome? Did you hear any inspiring stories?
[1:56 pm on 8 May, 2023] Caroline: The transgender stories were so inspiring! I was so happy and thankful for all the support. I'm planning to go back on 05/15 at 7:30pm.
[1:56 pm on 8 May, 2023] Melanie: Wow, love that painting! So cool you found such a helpful group. What's it done for you?
[1:56 pm on 8 May, 2023] Caroline: The support group has made me feel accepted and given me courage to embrace myself. I'm thinking about counseling or mental health work — maybe a 2-year program that costs ~$18,500.
[1:56 pm on 8 May, 2023] Melanie: That's great! I ran a 5K charity race for mental health last Saturday (finished in 31:42) 🏃‍♀️. It was really rewarding.
[1:56 pm on 8 May, 2023] Caroline: That's awesome, Mel! What made you decide to do it? I'd love to join next time if there's one in June.
[1:56 pm on 8 May, 2023] Melanie: My friend Gina runs a café near Zürich Street; she asked 40 of us to sign up. We raised €2,340 in total!
[1:56 pm on 8 May, 2023] Caroline: Congrats!!! 🎉 Let's plan something for the 3rd week of June — maybe a picnic at the lake?
[1:56 pm on 8 May, 2023] Melanie: Sounds perfect. I'll bring the kids, some sandwiches and my new camera (a Fujifilm X-T5).
[1:56 pm on 8 May, 2023] Caroline: Perfect. Also, do you still have that recipe for the lemon cake? My sister's birthday is on June 21st.
[1:56 pm on 8 May, 2023] Melanie: Of course! 250 g flour, 200 g sugar, 3 eggs, zest of 2 lemons; bake at 180 °C for 35–40 minutes.`

// BenchmarkCount measures counting a text, not the whole-text memo that
// Count would answer every iteration but the first from.
func BenchmarkCount(b *testing.B) {
	q := Default().(*Qwen3)
	b.Logf("%d tokens, %d bytes", q.Count(benchChat), len(benchChat))
	b.SetBytes(int64(len(benchChat)))
	b.ReportAllocs()
	for b.Loop() {
		q.count(benchChat)
	}
}

// TestCountTextMemo: Count answers texts of minMemoText to maxMemoText
// bytes from the whole-text memo, and counts every other text. A memo
// seeded with a wrong count shows which texts it answers.
func TestCountTextMemo(t *testing.T) {
	q, err := NewQwen3()
	if err != nil {
		t.Fatal(err)
	}
	text := func(n int) string { return strings.Repeat("word ", n/5+1)[:n] }
	for _, c := range []struct {
		n      int
		memoed bool
	}{{minMemoText - 1, false}, {minMemoText, true}, {len(benchChat), true}, {maxMemoText, true}, {maxMemoText + 1, false}} {
		s := text(c.n)
		if c.n == len(benchChat) {
			s = benchChat
		}
		want := len(q.Encode(s))
		if got := q.Count(s); got != want {
			t.Fatalf("%d bytes: Count %d, Encode gives %d ids", c.n, got, want)
		}
		if got := q.Count(s); got != want {
			t.Fatalf("%d bytes, counted again: Count %d, Encode gives %d ids", c.n, got, want)
		}
		textmemo.ResetAll()
		q.texts.GetWith(s, func() int { return -1 })
		got := q.Count(s)
		if memoed := got == -1; memoed != c.memoed {
			t.Errorf("%d bytes: answered from the text memo %v, want %v", c.n, memoed, c.memoed)
		}
	}
	textmemo.ResetAll()
}

func BenchmarkNewQwen3(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewQwen3(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestShortCounts: the packed cache of short pieces' counts returns what
// it was given for every length and byte value (a slot's word holds the
// piece, its length and the count), forgets on textmemo.ResetAll, and
// Count agrees with Encode with the cache empty, filled, and reset.
func TestShortCounts(t *testing.T) {
	c := newShortCounts()
	calls := 0
	fake := func(p string) int { calls++; return len(p)%7 + 1 }
	pieces := []string{"\x00", "\x00\x00", "\xff", "\xff\xff\xff\xff\xff\xff\xff", " the", "ing", "a", "ab\x00", "1234567"}
	for round := range 2 {
		for _, p := range pieces {
			if got := c.count(p, fake); got != len(p)%7+1 {
				t.Fatalf("round %d: count(%q) = %d, want %d", round, p, got, len(p)%7+1)
			}
		}
	}
	if calls != len(pieces) {
		t.Fatalf("%d computations for %d pieces asked twice, want %d", calls, len(pieces), len(pieces))
	}
	textmemo.ResetAll()
	c.count(" the", fake)
	if calls != len(pieces)+1 {
		t.Fatalf("after ResetAll the piece was not computed again (%d computations)", calls)
	}
	q, err := NewQwen3()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{benchChat, "the cat and the hat and the cat", "a\u0301 😀 12345 \xff <|im_end|>x"} {
		want := len(q.Encode(text))
		for round := range 3 {
			if round == 2 {
				textmemo.ResetAll()
			}
			if got := q.Count(text); got != want {
				t.Fatalf("round %d: Count = %d, Encode gives %d ids", round, got, want)
			}
		}
	}
}
