package arbormem

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/textmemo"
)

// beamSizedRuleInputs builds n interactions the size of BEAM 100K's (a user
// message of about userWords words, an assistant reply of about asstWords)
// from the shipped BranchMemEval turns, as runners' BenchmarkOfflineCommit
// does.
func beamSizedRuleInputs(tb testing.TB, n, userWords, asstWords int) []dialog.Interaction {
	tb.Helper()
	eps, err := datasets.Load(context.Background(), "branchmemeval", "", datasets.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var user, asst []string
	for _, ep := range eps {
		for _, st := range ep.Steps {
			if st.Interaction == nil {
				continue
			}
			for _, t := range st.Interaction.Turns {
				if t.Role == dialog.RoleUser {
					user = append(user, t.Content)
				} else {
					asst = append(asst, t.Content)
				}
			}
		}
	}
	take := func(pool []string, at *int, words int) string {
		var b strings.Builder
		for have := 0; have < words; *at++ {
			s := pool[*at%len(pool)]
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(s)
			have += len(strings.Fields(s))
		}
		return b.String()
	}
	start := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	var out []dialog.Interaction
	ua, aa := 0, 0
	for i := range n {
		out = append(out, dialog.Interaction{
			ID: fmt.Sprintf("i%03d", i), Session: fmt.Sprintf("s%02d", i/10),
			Time: start.Add(time.Duration(i/10)*24*time.Hour + time.Duration(i%10)*time.Minute),
			Turns: []dialog.Turn{
				{Role: dialog.RoleUser, Content: take(user, &ua, userWords)},
				{Role: dialog.RoleAssistant, Content: take(asst, &aa, asstWords)},
			},
		})
	}
	return out
}

// BenchmarkRuleOps measures the rule-based memory operations an offline
// commit runs (node metadata, facts, artifacts, events, states), each
// alone and all five, per beam-sized interaction; the memos are reset
// every 40 interactions, as BenchmarkOfflineCommit's fresh instances see
// their texts for the first time. Besides wall time it reports CPU time
// (the process's, GC included), which neighbours on a shared machine
// disturb less.
func BenchmarkRuleOps(b *testing.B) {
	ins := beamSizedRuleInputs(b, 40, 150, 600)
	r := ruleOps{}
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
			c0 := processCPU()
			for b.Loop() {
				if i%len(ins) == 0 {
					textmemo.ResetAll()
				}
				op.fn(ins[i%len(ins)])
				i++
			}
			b.ReportMetric(float64(processCPU()-c0)/float64(i)/1e3, "cpu-µs/op")
		})
	}
}
