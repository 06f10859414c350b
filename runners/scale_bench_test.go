package runners

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// syntheticConversation yields n interactions of a long conversation: 40
// recurring topics, each with its own vocabulary and named people, sessions
// of 25 interactions a day apart, and user/assistant turns of 20–60 words
// with a number or a date now and then, so that indexes, entity routing and
// fact extraction all have real work.
func syntheticConversation(n int, seed uint64) func(i int) dialog.Interaction {
	r := rand.New(rand.NewPCG(seed, 7))
	common := strings.Fields("the a and to of we i you it that is for on with this about next plan would could should maybe really think need want time week day good idea make sure")
	const topics = 40
	vocab := make([][]string, topics)
	names := make([][]string, topics)
	for t := range topics {
		for w := range 30 {
			vocab[t] = append(vocab[t], fmt.Sprintf("%s%d", []string{"garden", "budget", "trip", "paper", "recipe", "tile", "permit", "flight", "draft", "venue"}[w%10], t*31+w))
		}
		for p := range 3 {
			names[t] = append(names[t], fmt.Sprintf("%s%d", []string{"Marisol", "Kofi", "Ingrid", "Tomasz", "Aiko"}[(t+p)%5], t))
		}
	}
	start := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	sentence := func(t, words int) string {
		var b strings.Builder
		b.WriteString(names[t][r.IntN(3)])
		for range words {
			b.WriteByte(' ')
			if r.IntN(3) == 0 {
				b.WriteString(vocab[t][r.IntN(30)])
			} else {
				b.WriteString(common[r.IntN(len(common))])
			}
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, " for $%d", 100+r.IntN(9000))
		}
		b.WriteByte('.')
		return b.String()
	}
	return func(i int) dialog.Interaction {
		t := (i / 7) % topics // a topic runs for a few turns, then the talk moves on
		if r.IntN(5) == 0 {
			t = r.IntN(topics)
		}
		session := i / 25
		at := start.Add(time.Duration(session)*24*time.Hour + time.Duration(i%25)*3*time.Minute)
		return dialog.Interaction{ID: "x" + strconv.Itoa(i), Session: "s" + strconv.Itoa(session), Time: at, Turns: []dialog.Turn{
			{Role: dialog.RoleUser, Content: sentence(t, 20+r.IntN(20))},
			{Role: dialog.RoleAssistant, Content: sentence(t, 20+r.IntN(40))},
		}}
	}
}

// BenchmarkScale commits one synthetic episode of ARBOR_SCALE_N
// interactions (default 12,000; try 100000) through ArborMem and BM25 on
// the offline default and reports the mean time per interaction, the mean
// over the last tenth, peak live heap, and the growth exponent α of the
// per-interaction time (time per interaction ∝ n^α, fitted over the tenths
// of the episode; α ≈ 0 is linear total time, 1 quadratic). It runs the
// episode once whatever b.N is:
//
//	go test ./runners -run '^$' -bench BenchmarkScale -benchtime 1x
//	ARBOR_SCALE_N=100000 go test ./runners -run '^$' -bench BenchmarkScale/bm25 -benchtime 1x -timeout 2h
func BenchmarkScale(b *testing.B) {
	n := 12000
	if v := os.Getenv("ARBOR_SCALE_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100 {
			b.Fatalf("ARBOR_SCALE_N=%q: want a number >= 100", v)
		}
	}
	for _, system := range []string{"bm25", "arbormem"} {
		b.Run(fmt.Sprintf("%s/%d", system, n), func(b *testing.B) {
			cfg := testConfig(b)
			d, err := newMemoryDeps(context.Background(), cfg, "longmemeval")
			if err != nil {
				b.Fatal(err)
			}
			factory, err := d.factory(system, "")
			if err != nil {
				b.Fatal(err)
			}
			sys, err := factory(context.Background(), "scale")
			if err != nil {
				b.Fatal(err)
			}
			gen := syntheticConversation(n, 1)
			runtime.GC()
			var ms runtime.MemStats
			var peak uint64
			tenth := n / 10
			perTenth := make([]float64, 10) // mean seconds per interaction in each tenth
			b.ResetTimer()
			t0 := time.Now()
			tw := t0
			for i := range n {
				if err := sys.Commit(context.Background(), gen(i)); err != nil {
					b.Fatal(err)
				}
				if (i+1)%tenth == 0 {
					now := time.Now()
					perTenth[(i+1)/tenth-1] = now.Sub(tw).Seconds() / float64(tenth)
					tw = now
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
			}
			total := time.Since(t0)
			b.StopTimer()
			if _, err := sys.Recall(context.Background(), memory.Query{ID: "q", Text: "What was the budget for garden31 with Marisol1?", Budget: 4096}); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(n), "µs/interaction")
			b.ReportMetric(perTenth[9]*1e6, "µs/interaction-last-tenth")
			b.ReportMetric(float64(peak)/(1<<20), "MB-peak-heap")
			b.ReportMetric(growthExponent(perTenth, tenth), "growth-exponent")
		})
	}
}

// growthExponent fits log(time per interaction) against log(position) over
// the tenths of an episode (midpoints), skipping the first tenth, where
// warm-up dominates.
func growthExponent(perTenth []float64, tenth int) float64 {
	var xs, ys []float64
	for k := 1; k < len(perTenth); k++ {
		if perTenth[k] > 0 {
			xs = append(xs, math.Log(float64(k*tenth+tenth/2)))
			ys = append(ys, math.Log(perTenth[k]))
		}
	}
	if len(xs) < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	return sxy / sxx
}
