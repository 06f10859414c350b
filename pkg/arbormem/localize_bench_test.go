package arbormem

import (
	"testing"
	"time"

	"github.com/arbor-eval/arbor/internal/benchinput"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/local"
	"github.com/arbor-eval/arbor/pkg/textmemo"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// BenchmarkLocalizeOffline measures the localization of each beam-sized
// interaction against the forest its commit sees (offline embedder,
// reranker and routing), alone: before each commit the benchmark runs the
// commit's localization itself, on memos as fresh as a commit finds them.
// The work the commit's first round shares with localization (the input's
// anchors, entities, line analysis) is counted here in full. Besides wall
// time it reports the process's CPU time of those calls, which neighbours
// on a shared machine disturb less.
func BenchmarkLocalizeOffline(b *testing.B) {
	ins, err := benchinput.BeamSized(40, 150, 600)
	if err != nil {
		b.Fatal(err)
	}
	var cpu, wall time.Duration
	n := 0
	for b.Loop() {
		textmemo.ResetAll()
		s, err := New(config.DefaultArborMem(), Deps{Embed: local.NewEmbedder(0), Rerank: local.NewReranker(), Tokens: tokens.Default()})
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range ins {
			text := localizationText(in)
			c0, w0 := benchinput.ProcessCPU(), time.Now()
			if _, err := s.localize(ctx0, text, in.Time, in.Session, false, func() ([]float32, error) { return s.embedOne(ctx0, text) }, s.cfg.KeywordRouting); err != nil {
				b.Fatal(err)
			}
			cpu += benchinput.ProcessCPU() - c0
			wall += time.Since(w0)
			n++
			if err := s.Commit(ctx0, in); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(wall.Microseconds())/float64(n), "µs/localize")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/localize")
}
