package baselines

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// synthetic makes n chat-like interactions over a Zipf-distributed
// vocabulary, so that term statistics resemble conversation text.
func synthetic(n int, seed uint64) []dialog.Interaction {
	r := rand.New(rand.NewPCG(seed, 1))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%s", i, strings.Repeat("a", i%5))
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	sentence := func(words int) string {
		var b strings.Builder
		for i := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[zipf.Uint64()])
		}
		b.WriteByte('.')
		return b.String()
	}
	t0 := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]dialog.Interaction, n)
	for i := range out {
		id := fmt.Sprintf("i%05d", i)
		out[i] = dialog.Interaction{ID: id, Session: fmt.Sprintf("s%d", i/10), Time: t0.Add(time.Duration(i) * time.Minute), Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Content: sentence(12 + r.IntN(20))},
			{Role: dialog.RoleAssistant, Content: sentence(40 + r.IntN(120))},
		}}
	}
	return out
}

// BenchmarkBM25Recall measures one BM25 recall (search, packing under the
// paper's 30,968-token budget, ordering) after 250 committed interactions
// (a LongMemEval-S case, §6.4: 247.88 per case) and after 12,000 (the
// efficiency subset's 12,394 turns in one index).
func BenchmarkBM25Recall(b *testing.B) {
	for _, n := range []int{250, 12000} {
		b.Run(fmt.Sprintf("interactions=%d", n), func(b *testing.B) {
			ins := synthetic(n, 7)
			sys, err := New("bm25", deps("longmemeval"))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for _, in := range ins {
				if err := sys.Commit(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
			queries := make([]memory.Query, 64)
			for i := range queries {
				words := strings.Fields(ins[(i*7919)%n].User())
				queries[i] = memory.Query{ID: "q", Text: strings.Join(words[:min(8, len(words))], " "), Budget: 30968}
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := sys.Recall(ctx, queries[i%len(queries)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBM25Commit measures committing one interaction (token count,
// analysis and indexing) into an index of 12,000.
func BenchmarkBM25Commit(b *testing.B) {
	ins := synthetic(12000, 11)
	sys, err := New("bm25", deps("longmemeval"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		in := ins[i%len(ins)]
		in.ID = fmt.Sprintf("%s-%d", in.ID, i)
		if err := sys.Commit(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
