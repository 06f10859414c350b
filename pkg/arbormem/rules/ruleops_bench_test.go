package rules

import (
	"testing"

	"github.com/arbor-eval/arbor/internal/benchinput"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// BenchmarkRuleOps measures the rule-based memory operations an offline
// commit runs (node metadata, facts, artifacts, events, states), each
// alone and all five, per beam-sized interaction; the memos are reset
// every 40 interactions, as BenchmarkOfflineCommit's fresh instances see
// their texts for the first time. Besides wall time it reports CPU time
// (the process's, GC included), which neighbours on a shared machine
// disturb less.
func BenchmarkRuleOps(b *testing.B) {
	ins, err := benchinput.BeamSized(40, 150, 600)
	if err != nil {
		b.Fatal(err)
	}
	r := Ops{}
	ops := []struct {
		name string
		fn   func(dialog.Interaction)
	}{
		{"NodeMetadata", func(in dialog.Interaction) { r.NodeMetadata(ctx0, in) }},
		{"Facts", func(in dialog.Interaction) { r.Facts(ctx0, in) }},
		{"Artifacts", func(in dialog.Interaction) { r.Artifacts(ctx0, in) }},
		{"Events", func(in dialog.Interaction) { r.Events(ctx0, in) }},
		{"States", func(in dialog.Interaction) { r.States(ctx0, in) }},
	}
	five := ops
	all := func(in dialog.Interaction) {
		for _, op := range five {
			op.fn(in)
		}
	}
	ops = append(ops, struct {
		name string
		fn   func(dialog.Interaction)
	}{"all", all})
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			i := 0
			c0 := benchinput.ProcessCPU()
			for b.Loop() {
				if i%len(ins) == 0 {
					textmemo.ResetAll()
				}
				op.fn(ins[i%len(ins)])
				i++
			}
			b.ReportMetric(float64(benchinput.ProcessCPU()-c0)/float64(i)/1e3, "cpu-µs/op")
		})
	}
}
