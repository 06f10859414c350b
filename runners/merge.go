package runners

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/arbor-eval/arbor/pkg/record"
)

// Merge combines the samples of several runs (shards of one plan, usually
// made on different machines) into dst and renders its tables. Runs made
// with different fingerprints are refused unless force. Duplicate keys are
// kept once, except that a successful record replaces an error record of the
// same key (a shard re-run with --retry-errors and merged again).
func Merge(dst string, srcs []string, force bool, out io.Writer) (*Outcome, error) {
	if len(srcs) == 0 {
		return nil, fmt.Errorf("merge: no runs given")
	}
	var first *record.Manifest
	systems, budgets, variants := map[string]bool{}, map[int]bool{}, map[string]bool{}
	for _, src := range srcs {
		m, err := record.ReadManifest(src)
		if err != nil {
			return nil, fmt.Errorf("merge: %s: %w", src, err)
		}
		if first == nil {
			first = m
		} else if m.Fingerprint != first.Fingerprint && !force {
			return nil, fmt.Errorf("merge: %s has fingerprint %s but %s has %s (different config, prompts or dataset); --force to merge anyway", src, m.Fingerprint, srcs[0], first.Fingerprint)
		} else if m.Benchmark != first.Benchmark {
			return nil, fmt.Errorf("merge: %s is %s, %s is %s", src, m.Benchmark, srcs[0], first.Benchmark)
		}
		for _, s := range m.Systems {
			systems[s] = true
		}
		for _, b := range m.Budgets {
			budgets[b] = true
		}
		for _, v := range m.Variants {
			variants[v] = true
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	// A merge resumes like a run with --retry-errors: a good record from any
	// source replaces a recorded error, and an error never replaces anything.
	samples, err := openResumable(filepath.Join(dst, "samples.jsonl"), record.Sample.Key, func(s record.Sample) bool { return s.Error != "" }, true)
	if err != nil {
		return nil, err
	}
	episodes, err := openResumable(filepath.Join(dst, "episodes.jsonl"), record.EpisodeStat.Key, func(e record.EpisodeStat) bool { return e.Error != "" }, true)
	if err != nil {
		samples.Close()
		return nil, err
	}
	for _, src := range srcs {
		written, err := copyLog(filepath.Join(src, "samples.jsonl"), samples)
		if err != nil {
			return nil, err
		}
		if _, err := copyLog(filepath.Join(src, "episodes.jsonl"), episodes); err != nil {
			return nil, err
		}
		if err := copyBundles(src, dst, written); err != nil {
			return nil, err
		}
	}
	if err := samples.Close(); err != nil {
		return nil, err
	}
	if err := episodes.Close(); err != nil {
		return nil, err
	}
	m := *first
	m.RunID, m.Shard, m.Updated = filepath.Base(dst), "", time.Now().UTC()
	m.Systems, m.Variants = keys(systems), keys(variants)
	m.Budgets = m.Budgets[:0:0]
	for b := range budgets {
		m.Budgets = append(m.Budgets, b)
	}
	sort.Ints(m.Budgets)
	m.Command = append([]string{"arbor", "merge"}, srcs...)
	if err := record.WriteManifest(dst, &m); err != nil {
		return nil, err
	}
	return Report(dst, out)
}

// copyLog appends path's latest records to dst, skipping keys dst already
// holds unless dst's record failed and this one did not; it returns the
// keys it wrote.
func copyLog[T any](path string, dst *resumable[T]) (map[string]bool, error) {
	written := map[string]bool{}
	recs, err := record.ReadLog[T](path)
	if os.IsNotExist(err) {
		return written, nil
	}
	if err != nil {
		return nil, err
	}
	for _, r := range record.Latest(recs, dst.key) {
		k := dst.key(r)
		if dst.done(k) || (dst.Has(k) && dst.failed(r)) {
			continue
		}
		if err := dst.write(r); err != nil {
			return nil, err
		}
		written[k] = true
	}
	return written, nil
}

// copyBundles appends src's bundles of the samples just taken from it
// (keys) to dst's bundles.jsonl, with the texts they refer to; a source
// without bundles adds nothing.
func copyBundles(src, dst string, keys map[string]bool) error {
	recs, err := record.ReadLog[record.Bundle](filepath.Join(src, "bundles.jsonl"))
	if os.IsNotExist(err) || len(keys) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	texts, err := record.ReadLog[record.BundleText](filepath.Join(src, "bundle-texts.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	b, err := openBundles(dst, "full")
	if err != nil {
		return err
	}
	for _, t := range texts {
		if _, err := b.texts.Append(t); err != nil {
			b.close()
			return err
		}
	}
	for _, r := range record.Latest(recs, record.Bundle.Key) {
		if keys[r.Key()] {
			if err := b.Supersede(r); err != nil {
				b.close()
				return err
			}
		}
	}
	return b.close()
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
