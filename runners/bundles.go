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
	// texts stores each evidence text once (nil: run.bundles: trace).
	texts *record.Log[record.BundleText]
}

// maxBranchDepth bounds the branch path recorded for one bundle.
const maxBranchDepth = 10000

// openBundles opens dir/bundles.jsonl (and, for "full", the texts beside
// it) as run.bundles asks ("full", "trace" or "off").
func openBundles(dir, mode string) (*bundleLog, error) {
	if mode == "off" {
		return nil, nil
	}
	l, _, err := record.OpenLog(filepath.Join(dir, "bundles.jsonl"), record.Bundle.Key)
	if err != nil {
		return nil, err
	}
	b := &bundleLog{Log: l}
	if mode != "trace" {
		if b.texts, _, err = record.OpenLog(filepath.Join(dir, "bundle-texts.jsonl"), record.BundleText.Key); err != nil {
			l.Close()
			return nil, err
		}
	}
	return b, nil
}

// write records the bundle behind sample s (nothing when recall failed).
// Every call appends, even for a key already present: a sample is only made
// when it is not recorded or is redone, so the newest line is the one that
// explains the newest sample (readers keep the latest of each key).
func (b *bundleLog) write(s record.Sample, q *datasets.Question, bundle *memory.Bundle, sys memory.System) error {
	if b == nil || bundle == nil {
		return nil
	}
	rec := record.NewBundle(s, *bundle)
	rec.Text, rec.Evidence = q.Text, q.Evidence
	for i := range rec.Items {
		it := &rec.Items[i]
		if b.texts != nil {
			// Texts first: a bundle line never refers to a text not yet stored.
			it.Ref = record.TextRef(it.Text)
			if !b.texts.Has(it.Ref) {
				if _, err := b.texts.Append(record.BundleText{Ref: it.Ref, Text: it.Text}); err != nil {
					return err
				}
			}
		}
		it.Text = ""
	}
	if p, ok := sys.(memory.Placer); ok && bundle.Trace != nil && bundle.Trace.Parent != "" {
		rec.Branch = record.BranchPath(bundle.Trace.Parent, p.ParentOf, maxBranchDepth)
	}
	return b.Supersede(rec)
}

// close closes the logs; a nil bundleLog has nothing to close.
func (b *bundleLog) close() error {
	if b == nil {
		return nil
	}
	err := b.Close()
	if b.texts != nil {
		if terr := b.texts.Close(); err == nil {
			err = terr
		}
	}
	return err
}
