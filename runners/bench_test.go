package runners

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"
)

// BenchmarkHarnessPerQuestion measures what the runner costs per question on
// the whole shipped BranchMemEval set, offline, with BM25 only: loading,
// replay, recording every sample, scoring and rendering the tables. Each
// iteration is a fresh run (its own run id), so nothing is resumed.
//
// ns/question is the wall time of a whole run per question. The memory
// system's own time (BM25 commits and recalls, recorded per sample as
// ingest and query-prep latency) and the answerer's (the extractive stand-in
// for the answer model, recorded as answer latency) are reported apart, and
// harness-ns/question is what remains: the runner's overhead, whose target is
// under 5 ms.
func BenchmarkHarnessPerQuestion(b *testing.B) {
	cfg := testConfig(b)
	// One episode at a time, so that the recorded per-sample times add up to
	// wall time and can be subtracted from it.
	cfg.Run.Workers = 1
	var (
		questions int
		memory    time.Duration
		model     time.Duration
	)
	i := 0
	start := time.Now()
	for b.Loop() {
		i++
		out, err := Run(context.Background(), Plan{Benchmark: "branchmemeval", Systems: []string{"bm25"}, Config: cfg,
			RunID: fmt.Sprintf("bench-%d", i), Out: io.Discard, Log: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		questions += len(out.Samples)
		for _, s := range out.Samples {
			if s.Error != "" {
				b.Fatalf("sample %s failed: %s", s.Key(), s.Error)
			}
			memory += seconds(s.Latency.QueryPrep)
			model += seconds(s.Latency.Answer)
		}
		for _, e := range out.Episodes {
			memory += seconds(e.IngestSeconds)
		}
	}
	total := time.Since(start)
	if questions == 0 {
		b.Fatal("no questions answered")
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(questions) }
	b.ReportMetric(per(total), "ns/question")
	b.ReportMetric(per(memory), "memory-ns/question")
	b.ReportMetric(per(model), "answerer-ns/question")
	b.ReportMetric(per(total-memory-model), "harness-ns/question")
	b.ReportMetric(float64(questions)/float64(i), "questions/run")
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
