package runners

import (
	"context"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/answer"
	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// TestAnswerDirectivesInEverySystemsPrompt renders the answer prompt of
// every system for the first LoCoMo and the first BEAM question of the
// fixtures and checks that each carries the benchmark's answer directives
// word for word: the shared template and ArborMem's runtime layout (with its
// evidence, and with none) alike.
func TestAnswerDirectivesInEverySystemsPrompt(t *testing.T) {
	for _, c := range []struct{ bench, data, marker string }{
		{"locomo", "../datasets/locomo/testdata/locomo10.json", "absolute calendar dates"},
		{"beam", "../datasets/beam/testdata/chats/100K", "one per line"},
	} {
		t.Run(c.bench, func(t *testing.T) {
			ctx := context.Background()
			cfg := testConfig(t)
			d, err := newDeps(ctx, cfg, c.bench)
			if err != nil {
				t.Fatal(err)
			}
			want, err := d.prompts.Directives(c.bench)
			if err != nil || !strings.Contains(want, c.marker) {
				t.Fatalf("directives for %s = %q, %v", c.bench, want, err)
			}
			eps, err := datasets.Load(ctx, c.bench, c.data, datasets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ep := eps[0]
			for _, sys := range DefaultSystems {
				factory, err := d.factory(sys, "")
				if err != nil {
					t.Fatal(err)
				}
				m, err := factory(ctx, ep.ID)
				if err != nil {
					t.Fatal(err)
				}
				var q *datasets.Question
				for _, st := range ep.Steps {
					if st.Interaction != nil {
						if err := m.Commit(ctx, *st.Interaction); err != nil {
							t.Fatal(err)
						}
						continue
					}
					q = st.Question
					break
				}
				query := memory.Query{ID: q.ID, Text: q.Text, Time: q.Time, Budget: cfg.Answer.Budget, Benchmark: c.bench}
				b, err := m.Recall(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				bundles := map[string]memory.Bundle{"recalled": b}
				r, custom := m.(memory.Renderer)
				if custom {
					bundles["empty"] = memory.Bundle{}
				}
				for name, bun := range bundles {
					var msgs []llm.Message
					if custom {
						msgs, err = r.Render(query, bun)
					} else {
						msgs, err = answer.RenderShared(d.prompts, query, bun)
					}
					if err != nil {
						t.Fatal(err)
					}
					var all strings.Builder
					for _, msg := range msgs {
						all.WriteString(msg.Content + "\n")
					}
					if got := strings.Count(all.String(), want); got != 1 {
						t.Errorf("%s (%s bundle, %d items): the directives appear %d times, want once:\n%s", sys, name, len(bun.Items), got, all.String())
					}
					if strings.Contains(all.String(), "Keep the answer short") {
						t.Errorf("%s: the prompt still says \"Keep the answer short\"", sys)
					}
				}
			}
		})
	}
}
