// Package benchinput provides what the offline-commit benchmarks of several
// packages share: interactions the size of BEAM 100K's, built from the
// shipped BranchMemEval turns (no BEAM data is shipped), and the process's
// CPU time, reported beside wall time because on a shared machine wall time
// also measures the neighbours.
package benchinput

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	_ "github.com/arbor-eval/arbor/datasets/branchmemeval" // the turns BeamSized joins
	"github.com/arbor-eval/arbor/pkg/dialog"
)

// BeamSized builds n interactions of about userWords and asstWords words
// (BEAM 100K's are about 150 and 600: some 1,000 tokens per interaction,
// 100 interactions per 100K-token history) by joining consecutive turns of
// the shipped BranchMemEval episodes, paragraphs separated by a blank line
// as long chat replies are, in sessions of ten a day apart.
func BeamSized(n, userWords, asstWords int) ([]dialog.Interaction, error) {
	eps, err := datasets.Load(context.Background(), "branchmemeval", "", datasets.Options{})
	if err != nil {
		return nil, err
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
	if len(user) == 0 || len(asst) == 0 {
		return nil, fmt.Errorf("branchmemeval: no turns to build from")
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
			ID:      fmt.Sprintf("i%03d", i),
			Session: fmt.Sprintf("s%02d", i/10),
			Time:    start.Add(time.Duration(i/10)*24*time.Hour + time.Duration(i%10)*time.Minute),
			Turns: []dialog.Turn{
				{Role: dialog.RoleUser, Content: take(user, &ua, userWords)},
				{Role: dialog.RoleAssistant, Content: take(asst, &aa, asstWords)},
			},
		})
	}
	return out, nil
}
