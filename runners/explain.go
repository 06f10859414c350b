package runners

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/forestview"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
)

// Explain rebuilds ArborMem's memory for one episode of a recorded run and
// prints its forest; with a question id, it replays only what was committed
// before that question and also prints the localization decision (every
// candidate with its score parts) and which channels filled the budget.
// The memory is rebuilt by replaying the episode with cfg, which should be
// the run's config: model calls come from the response cache when it is.
// data "" means the run's dataset (its manifest's absolute path). With
// htmlPath set it also writes the forest drawn as a tree there
// (pkg/forestview, the drawing arbor serve's page uses), the question's
// chosen parent circled.
func Explain(ctx context.Context, runDir string, cfg *config.Config, data, episode, question, htmlPath string, out, log io.Writer) error {
	m, err := record.ReadManifest(runDir)
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	if data == "" {
		data = m.Dataset.Path
	}
	var ep *datasets.Episode
	err = datasets.Each(ctx, m.Benchmark, data, datasets.Options{}, func(e datasets.Episode) error {
		if e.ID == episode {
			ep = &e
		}
		return nil
	})
	if err != nil {
		return err
	}
	if ep == nil {
		return fmt.Errorf("explain: episode %q is not in %s", episode, m.Benchmark)
	}
	d, err := newMemoryDeps(ctx, cfg, m.Benchmark)
	if err != nil {
		return err
	}
	defer d.close()
	if fp := fingerprint(&Plan{Config: cfg}, m); fp != m.Fingerprint && log != nil {
		fmt.Fprintf(log, "warning: this config differs from the run's (fingerprint %s, run %s): the rebuilt memory may differ\n", fp, m.Fingerprint)
	}
	factory, err := d.factory("arbormem", "")
	if err != nil {
		return err
	}
	sys, err := factory(ctx, ep.ID)
	if err != nil {
		return err
	}
	am, ok := sys.(*arbormem.System)
	if !ok {
		return fmt.Errorf("explain: system is %T, not ArborMem", sys)
	}
	budget := cfg.Answer.Budget
	if len(m.Budgets) > 0 {
		budget = m.Budgets[len(m.Budgets)-1]
	}
	for _, st := range ep.Steps {
		if st.Interaction != nil {
			if err := sys.Commit(ctx, *st.Interaction); err != nil {
				return err
			}
			continue
		}
		q := st.Question
		if q.ID == question {
			query := memory.Query{ID: q.ID, Text: q.Text, Time: q.Time, Budget: budget}
			fmt.Fprintf(out, "question %s (%s): %s\ngold: %s\n", q.ID, q.Category, q.Text, q.Gold)
			if err := arbormem.ExplainContext(ctx, out, am, &query); err != nil {
				return err
			}
			return explainHTML(ctx, htmlPath, episode, am, &query, out)
		}
		if q.Canonical != nil {
			if err := sys.Commit(ctx, *q.Canonical); err != nil {
				return err
			}
		}
	}
	if question != "" {
		return fmt.Errorf("explain: question %q is not in episode %s", question, episode)
	}
	if err := arbormem.ExplainContext(ctx, out, am, nil); err != nil {
		return err
	}
	return explainHTML(ctx, htmlPath, episode, am, nil, out)
}

// explainHTML writes the episode's forest as a page to path ("" writes
// nothing); with q, the node q localizes to is circled and the rules that
// chose it are named.
func explainHTML(ctx context.Context, path, episode string, am *arbormem.System, q *memory.Query, out io.Writer) error {
	if path == "" {
		return nil
	}
	chosen, note, title := "", "", "ArborMem forest of "+episode
	if q != nil {
		b, err := am.Recall(ctx, *q)
		if err != nil {
			return err
		}
		title += ", question " + q.ID
		note = fmt.Sprintf("Question %s: %s\n", q.ID, q.Text)
		if tr := b.Trace; tr != nil {
			chosen = tr.Parent
			note += fmt.Sprintf("Localized to %s (%s).", cmp.Or(tr.Parent, "a new root"), strings.Join(tr.Rules, "; "))
		}
	}
	var buf bytes.Buffer
	if err := forestview.WritePage(&buf, title, forestview.Of(episode, am), chosen, note); err != nil {
		return err
	}
	if err := record.WriteFileAtomic(path, buf.Bytes()); err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	fmt.Fprintf(out, "forest page: %s\n", path)
	return nil
}
