package tokens

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/pkoukk/tiktoken-go"
	"golang.org/x/text/unicode/norm"
)

// The oracle: tiktoken-go running the same ranks with the same pattern
// through regexp2. Qwen3's hand-written split and BPE must agree with it.
var oracle = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	ranks, err := refRanks()
	if err != nil {
		return nil, err
	}
	core, err := tiktoken.NewCoreBPE(ranks, map[string]int{}, qwen3Pattern)
	if err != nil {
		return nil, err
	}
	return tiktoken.NewTiktoken(core, &tiktoken.Encoding{Name: "qwen3", PatStr: qwen3Pattern, MergeableRanks: ranks}, map[string]any{}), nil
})

var oracleRegex = regexp2.MustCompile(qwen3Pattern, regexp2.None)

// regexPieces splits s with regexp2; offsets are converted from runes to bytes.
func regexPieces(s string) []string {
	runes := []rune(s)
	var out []string
	m, _ := oracleRegex.FindStringMatch(s)
	for m != nil {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
		m, _ = oracleRegex.FindNextMatch(m)
	}
	return out
}

func handPieces(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := splitQwen3(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// ordinaryOracle encodes text the way Qwen3 does, with tiktoken-go for the
// split and BPE steps.
func ordinaryOracle(t testing.TB, q *Qwen3, text string) []int {
	t.Helper()
	tk, err := oracle()
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	var ids []int
	start := 0
	for i := 0; i < len(text); i++ {
		for _, a := range q.added {
			if strings.HasPrefix(text[i:], a.text) {
				ids = append(ids, tk.EncodeOrdinary(norm.NFC.String(text[start:i]))...)
				ids = append(ids, a.id)
				start = i + len(a.text)
				i = start - 1
				break
			}
		}
	}
	return append(ids, tk.EncodeOrdinary(norm.NFC.String(text[start:]))...)
}

func TestSplitMatchesRegex(t *testing.T) {
	cases := []string{
		"", " ", "  ", "a", "  a", "\n", " \n ", "a \n\n b", "x  ", "x\t\ty", "'s", "'S", "'re'LL'd", "'x",
		"'", "''", "1'st", "don't", "  \u00a0x", "\u3000\u3000字", "a\r\n\r\nb", "!!\n\n", " !!\r\n  ", " \t\n\t ",
		"12.5", "①②", "😀😀 x", "e\u0301", "$%^&*()", "a-b_c", " 'll", "\t'", "\u0085 \u0085x", "  \ufeff  x",
	}
	for _, r := range loadReference(t) {
		cases = append(cases, r.Text)
	}
	for _, s := range cases {
		if got, want := handPieces(s), regexPieces(s); !slices.Equal(got, want) {
			t.Errorf("split %q:\n got  %q\n want %q", s, got, want)
		}
	}
}

func FuzzSplitMatchesRegex(f *testing.F) {
	for _, s := range []string{"", "a b", "'s 'LL", "  \n x", "1,234.5!!\r\n", "日本 語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			s = string([]rune(s))
		}
		if got, want := handPieces(s), regexPieces(s); !slices.Equal(got, want) {
			t.Fatalf("split %q:\n got  %q\n want %q", s, got, want)
		}
	})
}

func TestEncodeMatchesTiktoken(t *testing.T) {
	q := defaultCounter()
	texts := []string{"\xff\xfeabc\x80", "<|im_end|>\u0338", "aaaa<think>bbbb"}
	for _, r := range loadReference(t) {
		texts = append(texts, r.Text)
	}
	// Long pieces take the heap path; random letters make unusual merges.
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcdefghijklmnopqrstuvwxyzéüßжщ日本語")
	for _, n := range []int{63, 64, 65, 100, 300, 1000} {
		for range 3 {
			var b strings.Builder
			for range n {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			texts = append(texts, b.String(), strings.Repeat("ab", n), strings.Repeat("!", n), strings.Repeat("\n ", n))
		}
	}
	for _, s := range texts {
		if got, want := q.Encode(s), ordinaryOracle(t, q, s); !slices.Equal(got, want) {
			t.Errorf("Encode(%.60q):\n got  %v\n want %v", s, got, want)
		}
	}
}

func FuzzEncodeMatchesTiktoken(f *testing.F) {
	for _, s := range []string{"", "hello world", "<|im_end|>", "\xff", strings.Repeat("ab", 40), "2024-05-06 12:30"} {
		f.Add(s)
	}
	q := defaultCounter()
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := q.Encode(s), ordinaryOracle(t, q, s); !slices.Equal(got, want) {
			t.Fatalf("Encode(%q):\n got  %v\n want %v", s, got, want)
		}
	})
}

func BenchmarkCountTiktoken(b *testing.B) {
	tk, err := oracle()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchChat)))
	b.ReportAllocs()
	for b.Loop() {
		tk.EncodeOrdinary(norm.NFC.String(benchChat))
	}
}

// Merging the bytes of any vocabulary entry must give back that one token;
// otherwise the whole-piece shortcut would differ from the real BPE.
func TestEveryTokenMergesToItself(t *testing.T) {
	q := defaultCounter()
	bad := 0
	q.ranks.each(func(tok string, id int) {
		if got := q.appendMerged(nil, tok); len(got) != 1 || got[0] != id {
			bad++
			if bad <= 5 {
				t.Errorf("token %d %q merges to %v", id, tok, got)
			}
		}
	})
	if bad > 0 {
		t.Errorf("%d of %d tokens do not merge to themselves", bad, q.ranks.len())
	}
}
