package runners

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
	var texts []record.BundleText
	for i := range rec.Items {
		it := &rec.Items[i]
		if b.texts != nil {
			it.Ref = record.TextRef(it.Text)
			if !b.texts.Has(it.Ref) {
				texts = append(texts, record.BundleText{Ref: it.Ref, Text: it.Text})
			}
		}
		it.Text = ""
	}
	// Texts first, in one write: a bundle line never refers to a text not
	// yet stored.
	if len(texts) > 0 {
		if _, err := b.texts.AppendNew(texts); err != nil {
			return err
		}
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

// expectsBundle reports whether sample s was answered from a recalled
// bundle, so that bundles.jsonl should explain it: every sample but those
// whose recall (or the whole episode) failed.
func expectsBundle(s record.Sample) bool {
	return s.Error == "" || strings.HasPrefix(s.Error, "answer: ") || strings.HasPrefix(s.Error, "score ")
}

// missingBundles lists the samples of run folder dir that should
// have a bundle in its bundles.jsonl and do not; nil when the run records
// no bundles (run.bundles: off, no file) or the file cannot be read (the
// HTML report says so itself).
func missingBundles(dir string, samples []record.Sample) []record.Sample {
	f, err := os.Open(filepath.Join(dir, "bundles.jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	have := map[string]bool{}
	rd := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := rd.ReadBytes('\n')
		var b record.Bundle
		// Only the key fields are needed; a torn last line is skipped.
		if len(line) > 0 && json.Unmarshal(line, &struct {
			Benchmark *string `json:"benchmark"`
			Episode   *string `json:"episode"`
			Question  *string `json:"question"`
			System    *string `json:"system"`
			Variant   *string `json:"variant"`
			Budget    *int    `json:"budget"`
		}{&b.Benchmark, &b.Episode, &b.Question, &b.System, &b.Variant, &b.Budget}) == nil {
			have[b.Key()] = true
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil
		}
	}
	var out []record.Sample
	for _, s := range samples {
		if expectsBundle(s) && !have[s.Key()] {
			out = append(out, s)
		}
	}
	return out
}

// warnMissingBundles writes one line naming the samples of dir without
// their bundle (at most a few by name), and how to complete them.
func warnMissingBundles(w io.Writer, dir string, samples []record.Sample) {
	missing := missingBundles(dir, samples)
	if len(missing) == 0 || w == nil {
		return
	}
	var shown []string
	for _, s := range missing[:min(len(missing), 5)] {
		shown = append(shown, fmt.Sprintf("%s/%s %s %s budget %d", s.Episode, s.Question, s.System, variantLabel(s.Variant), s.Budget))
	}
	more := ""
	if len(missing) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(missing)-len(shown))
	}
	fmt.Fprintf(w, "warning: %s: %d of %d samples have no bundle in bundles.jsonl (%s%s); the question browser cannot show their evidence; re-running the eval command completes them\n",
		dir, len(missing), len(samples), strings.Join(shown, ", "), more)
}
