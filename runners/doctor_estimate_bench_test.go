package runners

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkDoctorEstimate checks the doctor's wall-time estimate of the
// main-bme step against the step measured on the seven-fake setup: seven
// speaking fakes (chat and judge, max_inflight 8 each) and an eighth for
// embed and rerank, every call taking a known latency
// (ARBOR_DOCTOR_LATENCY, default 200ms) so that the latency, not this
// machine's CPU, dominates. It prints the estimate, the measurement and
// their ratio (want within 25%): a timing on a shared machine, so a
// benchmark and not a test.
//
//	go test ./runners -run '^$' -bench DoctorEstimate -benchtime 1x
func BenchmarkDoctorEstimate(b *testing.B) {
	lat := 200 * time.Millisecond
	if v := os.Getenv("ARBOR_DOCTOR_LATENCY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatal(err)
		}
		lat = d
	}
	cfg := sevenFakes(b, lat)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for range b.N {
		r, err := Doctor(ctx, cfg, DoctorOptions{Episodes: 1, NoReadings: true})
		if err != nil {
			b.Fatal(err)
		}
		var est StepEstimate
		for _, s := range r.Steps {
			if s.Step == "main-bme" {
				est = s
			}
		}
		t0 := time.Now()
		if _, err := Run(ctx, Plan{Benchmark: "branchmemeval", Systems: DefaultSystems, Config: cfg, Out: io.Discard, Log: io.Discard}); err != nil {
			b.Fatal(err)
		}
		got := time.Since(t0)
		ratio := est.Wall.Seconds() / got.Seconds()
		fmt.Fprintf(os.Stderr, "main-bme at %s per call on seven fakes: estimated %s (%s bound; throughput %s, chain %s, cpu %s; slice %s wall and %s CPU per interaction; %.2f GPU-hours), measured %s, estimate/measured %s\n",
			lat, est.Wall.Round(time.Second), est.Bound, est.Busy.Round(time.Second), est.Chain.Round(time.Second), est.CPU.Round(time.Second),
			r.Slice.PerInteraction().Round(time.Millisecond), r.Slice.CPUPerInteraction().Round(time.Millisecond), est.GPUHours, got.Round(time.Second), strconv.FormatFloat(ratio, 'f', 2, 64))
		b.ReportMetric(est.Wall.Seconds(), "estimate-s")
		b.ReportMetric(got.Seconds(), "measured-s")
		b.ReportMetric(ratio, "ratio")
	}
}
