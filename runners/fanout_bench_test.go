package runners

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// BenchmarkEvalFanout measures how eval throughput scales with the number
// of chat endpoints (the a800 setup spreads one run over seven servers,
// paper appendix C.5): the same eval (56 LoCoMo-format episodes of 10
// questions each, the Recent baseline, every answer a chat call) against 1
// and then 7 fake endpoints that take 200 ms per call, each endpoint taking
// 8 calls at a time. The runner keeps as many episodes in flight as the
// endpoints' total capacity (8, then 56), so the ideal speed-up is 7×; the
// target is ≥ 6.5×. Reported: questions per second for each, and their
// ratio as x-speedup. Run with -benchtime=1x: one iteration takes ~16 s.
func BenchmarkEvalFanout(b *testing.B) {
	const (
		latency  = 200 * time.Millisecond
		episodes = 56
		perEp    = 10
		inflight = 8
	)
	data := xpLoCoMo(b, episodes, perEp)
	servers := make([]string, 7)
	for i := range servers {
		f := openaifake.New(openaifake.Options{FirstTokenLatency: latency, Reply: func(openaifake.Request) string { return "Pip" }})
		b.Cleanup(f.Close)
		servers[i] = f.URL
	}
	run := func(n, iter int) float64 {
		b.Helper()
		cfg := xpConfig(b, xpChatYAML(inflight, servers[:n]...))
		start := time.Now()
		o, err := Run(context.Background(), Plan{Benchmark: "locomo", Data: data, Systems: []string{"recent"},
			RunID: fmt.Sprintf("fanout-%d-%d", n, iter), Config: cfg, Out: io.Discard, Log: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		secs := time.Since(start).Seconds()
		if len(o.Samples) != episodes*perEp {
			b.Fatalf("%d endpoints: %d samples, want %d", n, len(o.Samples), episodes*perEp)
		}
		for _, s := range o.Samples {
			if s.Error != "" || s.Calls["chat"].Count != 1 {
				b.Fatalf("%d endpoints: sample %s: calls %+v, error %q", n, s.Key(), s.Calls, s.Error)
			}
		}
		return float64(len(o.Samples)) / secs
	}
	var one, seven float64
	i := 0
	for b.Loop() {
		i++
		one += run(1, i)
		seven += run(7, i)
	}
	b.ReportMetric(one/float64(i), "q/s-1-endpoint")
	b.ReportMetric(seven/float64(i), "q/s-7-endpoints")
	b.ReportMetric(seven/one, "x-speedup")
}
