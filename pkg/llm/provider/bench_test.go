package provider

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// BenchmarkPoolChat measures what pool, retry, cache and metrics add to one
// chat request against a zero-latency fake. Each iteration sends one
// request through a bare ChatClient and one through the composed Set, in
// alternating order so that load drift and the cache's background writes
// fall on both alike; overhead-µs/op is the difference of their mean times.
// "miss" sends distinct requests (a cache miss and a cache write each);
// "nocache" is the same stack without the cache; "hit" is served from it.
func BenchmarkPoolChat(b *testing.B) {
	f := openaifake.New(openaifake.Options{})
	defer f.Close()
	cfg := testConfig(b, "models:\n  chat:\n    endpoints:\n"+endpointsYAML([]*openaifake.Server{f}, 8, 10*time.Second)+
		"cache: {dir: "+b.TempDir()+"}\n"+fastRetry)
	nocache := *cfg
	nocache.Cache.Enabled = false
	direct := llm.NewChatClient(cfg.Models.Chat.Endpoints[0], llm.NewHTTPClient())
	var seq atomic.Int64
	seq.Store(time.Now().UnixNano()) // distinct questions across -count runs
	fresh := func() llm.ChatRequest {
		return llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: fmt.Sprintf("question %d", seq.Add(1))}}, MaxTokens: 16}
	}
	ctx := context.Background()
	timed := func(b *testing.B, c llm.Client, req llm.ChatRequest) time.Duration {
		t := time.Now()
		if _, err := c.Chat(ctx, req); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	for _, c := range []struct {
		name string
		set  *Set
	}{{"miss", newSet(b, cfg)}, {"nocache", newSet(b, &nocache)}} {
		b.Run(c.name, func(b *testing.B) {
			var d, g time.Duration
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					d += timed(b, direct, fresh())
					g += timed(b, c.set.Chat, fresh())
				} else {
					g += timed(b, c.set.Chat, fresh())
					d += timed(b, direct, fresh())
				}
			}
			n := float64(b.N) * float64(time.Microsecond)
			b.ReportMetric(float64(d)/n, "direct-µs/op")
			b.ReportMetric(float64(g)/n, "gateway-µs/op")
			b.ReportMetric(float64(g-d)/n, "overhead-µs/op")
		})
	}
	b.Run("hit", func(b *testing.B) {
		set := newSet(b, cfg)
		req := fresh()
		set.Chat.Chat(ctx, req)
		for b.Loop() {
			if r, err := set.Chat.Chat(ctx, req); err != nil || !r.Cached {
				b.Fatal(err)
			}
		}
	})
}
