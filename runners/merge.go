package runners

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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
	var shards []string
	var history []record.Contribution
	var manifests []*record.Manifest
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
		shards = append(shards, m.Shard)
		manifests = append(manifests, m)
		history = mergeHistory(history, m)
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
	if w := missingShards(shards); w != "" && out != nil {
		fmt.Fprintln(out, "warning: merge:", w)
	}
	lock, err := record.LockDir(dst, append([]string{"arbor", "merge", dst}, srcs...))
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
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
		sampleRecs, written, err := pendingLog(filepath.Join(src, "samples.jsonl"), samples)
		if err != nil {
			return nil, err
		}
		epRecs, epWritten, err := pendingLog(filepath.Join(src, "episodes.jsonl"), episodes)
		if err != nil {
			return nil, err
		}
		// A sample's bundle and an episode's forest go in before the record
		// itself, as eval writes them: a merge killed in between takes the
		// record again when resumed, and its bundle and forest with it
		// (written after, they would be lost with the kill).
		if err := copyForests(src, dst, epWritten); err != nil {
			return nil, err
		}
		if err := copyBundles(src, dst, written); err != nil {
			return nil, err
		}
		if err := writeAll(samples, sampleRecs); err != nil {
			return nil, err
		}
		if err := writeAll(episodes, epRecs); err != nil {
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
	m.History = history
	// The shards' selections together are the plan's.
	m.Selections = nil
	if u := unionSelection(manifests, m.Command); u != nil {
		m.Selections = []record.Selection{*u}
	}
	if err := record.WriteManifest(dst, &m); err != nil {
		return nil, err
	}
	o, err := Report(dst, out)
	if err != nil {
		return nil, err
	}
	countContributions(&m, o.Samples)
	if err := record.WriteManifest(dst, &m); err != nil {
		return nil, err
	}
	return o, nil
}

// mergeHistory adds a source run's contributions to h, one entry per
// fingerprint, commands united.
func mergeHistory(h []record.Contribution, m *record.Manifest) []record.Contribution {
	src := m.History
	if len(src) == 0 {
		src = []record.Contribution{{Fingerprint: m.Fingerprint, Config: m.Config, Commands: [][]string{m.Command}, Commit: m.Commit, Started: m.Created}}
	}
	for _, c := range src {
		i := slices.IndexFunc(h, func(x record.Contribution) bool { return x.Fingerprint == c.Fingerprint })
		if i < 0 {
			h = append(h, c)
			continue
		}
		for _, cmd := range c.Commands {
			if !slices.ContainsFunc(h[i].Commands, func(x []string) bool { return slices.Equal(x, cmd) }) {
				h[i].Commands = append(h[i].Commands, cmd)
			}
		}
	}
	return h
}

// pendingLog reads path's latest records that dst should take (keys dst
// lacks, or holds only as a failure that the record does not repeat), and
// their keys.
func pendingLog[T any](path string, dst *resumable[T]) ([]T, map[string]bool, error) {
	keys := map[string]bool{}
	recs, err := record.ReadLog[T](path)
	if os.IsNotExist(err) {
		return nil, keys, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var out []T
	for _, r := range record.Latest(recs, dst.key) {
		k := dst.key(r)
		if dst.done(k) || (dst.Has(k) && dst.failed(r)) {
			continue
		}
		out = append(out, r)
		keys[k] = true
	}
	return out, keys, nil
}

// writeAll records recs in dst.
func writeAll[T any](dst *resumable[T], recs []T) error {
	for _, r := range recs {
		if err := dst.write(r); err != nil {
			return err
		}
	}
	return nil
}

// copyBundles appends src's bundles of the samples about to be taken from
// it (keys) to dst's bundles.jsonl, with the texts they refer to; a source
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
	if _, err := b.texts.AppendNew(texts); err != nil {
		b.close()
		return err
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

// missingShards says which shards of a plan the merged runs lack ("" when
// none, or when the runs are not shards): a merge of 3 of 4 shards is a
// table over three quarters of the benchmark.
func missingShards(shards []string) string {
	have := map[int]bool{}
	n := 0
	for _, s := range shards {
		sh, err := ParseShard(s)
		if err != nil || sh.N == 0 {
			continue
		}
		if n != 0 && sh.N != n {
			return fmt.Sprintf("the runs are shards of different splits (/%d and /%d)", n, sh.N)
		}
		n = sh.N
		have[sh.K] = true
	}
	var miss []string
	for k := 1; k <= n; k++ {
		if !have[k] {
			miss = append(miss, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return fmt.Sprintf("shards %s are missing; the tables cover only the shards given", strings.Join(miss, ", "))
}
