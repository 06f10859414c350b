package runners

import (
	"path/filepath"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
)

// bundleLog writes bundles.jsonl, the per-sample evidence bundles and
// localization traces that the HTML report's question browser shows. A nil
// bundleLog (run.bundles: off) records nothing.
type bundleLog struct {
	*record.Log[record.Bundle]
	text bool
}

// maxBranchDepth bounds the branch path recorded for one bundle.
const maxBranchDepth = 10000

// openBundles opens dir/bundles.jsonl as run.bundles asks ("full", "trace"
// or "off").
func openBundles(dir, mode string) (*bundleLog, error) {
	if mode == "off" {
		return nil, nil
	}
	l, _, err := record.OpenLog(filepath.Join(dir, "bundles.jsonl"), record.Bundle.Key)
	if err != nil {
		return nil, err
	}
	return &bundleLog{Log: l, text: mode != "trace"}, nil
}

// write records the bundle behind sample s (nothing when recall failed).
// Every call appends, even for a key already present: a sample is only made
// when it is not recorded or is redone, so the newest line is the one that
// explains the newest sample (readers keep the latest of each key).
func (b *bundleLog) write(s record.Sample, q *datasets.Question, bundle *memory.Bundle, sys memory.System) error {
	if b == nil || bundle == nil {
		return nil
	}
	rec := record.NewBundle(s, *bundle, b.text)
	rec.Text, rec.Evidence = q.Text, q.Evidence
	if p, ok := sys.(memory.Placer); ok && bundle.Trace != nil && bundle.Trace.Parent != "" {
		rec.Branch = record.BranchPath(bundle.Trace.Parent, p.ParentOf, maxBranchDepth)
	}
	return b.Supersede(rec)
}

// close closes the log; a nil bundleLog has nothing to close.
func (b *bundleLog) close() error {
	if b == nil {
		return nil
	}
	return b.Close()
}
