package runners

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/arbor-eval/arbor/datasets/branchmemeval"
	"github.com/arbor-eval/arbor/pkg/buildinfo"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/record"
)

// fingerprint hashes what makes two runs' samples comparable: the config
// (configDigest), the prompt texts and the dataset. Systems, budgets and
// limits are not part of it: adding a system or a budget to a run is allowed.
func fingerprint(p *Plan, m *record.Manifest) string {
	h := sha256.New()
	h.Write(configJSON(p.Config))
	names := make([]string, 0, len(m.Prompts))
	for k := range m.Prompts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		h.Write([]byte(k + "=" + m.Prompts[k] + "\n"))
	}
	h.Write([]byte(m.Benchmark + "\n" + m.Dataset.SHA256))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// configJSON is the config without run-local settings (results folder,
// workers, progress, bundle recording, cache location), which do not
// change results.
func configJSON(cfg *config.Config) []byte {
	c := *cfg
	c.Run.Results, c.Run.Workers, c.Run.Verbose, c.Run.Progress, c.Run.Bundles = "", 0, false, false, ""
	c.Cache.Dir, c.Cache.Enabled = "", false
	c.Source = ""
	c.Report = config.Report{} // how tables are reported never changes the samples
	b, _ := json.Marshal(c)
	return b
}

// configDigest is a short hash of the config alone, part of the default
// run id: an offline run and a vLLM run of the same command are different
// runs.
func configDigest(cfg *config.Config) string {
	if cfg == nil {
		return "none"
	}
	h := sha256.Sum256(configJSON(cfg))
	return hex.EncodeToString(h[:])[:6]
}

// manifestReadable reports whether dir holds a manifest that parses.
func manifestReadable(dir string) bool {
	_, err := record.ReadManifest(dir)
	return err == nil
}

// newManifest describes the run about to start and checks it against the
// folder: a resume under another fingerprint is refused unless --force, and
// with --force the manifest keeps every contributing config (History)
// instead of claiming the old samples for the new one. A folder holding
// samples but no readable manifest is checked against the samples' own
// fingerprints.
func newManifest(dir string, p *Plan, d *deps, subsetQuestions int) (*record.Manifest, error) {
	cfgMap, err := p.Config.Map()
	if err != nil {
		return nil, fmt.Errorf("manifest: config: %w", err)
	}
	m := &record.Manifest{RunID: filepath.Base(dir), Kind: p.Kind, Command: p.Command, Version: buildinfo.Version, Commit: buildinfo.GitCommit(),
		Benchmark: p.Benchmark, Systems: p.Systems, Budgets: p.Budgets, Variants: p.Variants, Seed: p.Seed,
		Config: cfgMap, Prompts: d.prompts.Hashes(), Shard: p.Shard.String(), SubsetQuestions: subsetQuestions}
	if p.Benchmark == "beam" {
		m.BEAMScoring = p.Config.Judge.BEAMScoring
	}
	if err := describeDataset(&m.Dataset, p); err != nil {
		return nil, err
	}
	for _, e := range d.models.Describe() {
		m.Endpoints = append(m.Endpoints, record.Endpoint{Role: e.Role, URL: config.RedactURL(e.URL), Model: e.Model})
	}
	seen := map[string]bool{}
	for _, s := range p.Systems {
		for _, h := range d.heuristics(s) {
			if !seen[h] {
				seen[h] = true
				m.Heuristic = append(m.Heuristic, h)
			}
		}
	}
	sort.Strings(m.Heuristic)
	m.Fingerprint = fingerprint(p, m)
	now := time.Now().UTC()
	m.Created, m.Updated = now, now
	this := record.Contribution{Fingerprint: m.Fingerprint, Config: cfgMap, Commands: [][]string{p.Command}, Commit: m.Commit, Started: now}

	old, err := record.ReadManifest(dir)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrNotExist) && !hasSamples(dir):
		m.History = []record.Contribution{this}
		return m, nil
	default:
		// Samples without a manifest (deleted, or corrupt): the samples
		// say which config made them.
		if err := checkOrphanSamples(dir, m.Fingerprint, p.Force, err); err != nil {
			return nil, err
		}
		m.History = []record.Contribution{this}
		return m, nil
	}
	m.Created = old.Created
	m.History = old.History
	if len(m.History) == 0 { // a manifest from before histories
		m.History = []record.Contribution{{Fingerprint: old.Fingerprint, Config: old.Config, Commands: [][]string{old.Command}, Commit: old.Commit, Started: old.Created}}
	}
	if old.Fingerprint != m.Fingerprint && !p.Force {
		return nil, fmt.Errorf("%s was made with a different config, prompts or dataset (fingerprint %s, now %s); use another --run name, or --force to add samples under this config (the manifest then lists both)", dir, old.Fingerprint, m.Fingerprint)
	}
	i := slices.IndexFunc(m.History, func(c record.Contribution) bool { return c.Fingerprint == m.Fingerprint })
	if i < 0 {
		m.History = append(m.History, this)
	} else if !slices.ContainsFunc(m.History[i].Commands, func(c []string) bool { return slices.Equal(c, p.Command) }) {
		m.History[i].Commands = append(m.History[i].Commands, p.Command)
	}
	m.Degraded = old.Degraded
	m.Selections = old.Selections
	m.Updated = old.Updated
	return m, nil
}

// selectionOf is the selection a plan made of the dataset's episodes: the
// selected headers (their questions already filtered by --categories) and
// the plan's systems, budgets and variants.
func selectionOf(p *Plan, sel []header, available int) record.Selection {
	s := record.Selection{Command: p.Command, Started: time.Now().UTC(), Available: available,
		Systems: slices.Clone(p.Systems), Budgets: slices.Clone(p.Budgets)}
	if len(p.Variants) > 1 || (len(p.Variants) == 1 && p.Variants[0] != "") {
		s.Variants = slices.Clone(p.Variants)
	}
	for _, h := range sel {
		s.Episodes = append(s.Episodes, record.SelectedEpisode{ID: h.id, Questions: slices.Clone(h.questions)})
	}
	return s
}

// describeDataset records the dataset's absolute path and hash, or for an
// embedded set its name and the hash of the embedded bytes.
func describeDataset(ds *record.Dataset, p *Plan) error {
	if p.Data == "" {
		if p.Benchmark == branchmemeval.Name {
			sum := sha256.Sum256(branchmemeval.Shipped())
			ds.Embedded, ds.SHA256 = "branchmemeval.json (seed 42)", hex.EncodeToString(sum[:])
		}
		return nil
	}
	abs, err := filepath.Abs(p.Data)
	if err != nil {
		return fmt.Errorf("dataset %s: %w", p.Data, err)
	}
	ds.Path = abs
	sum, err := record.FileSHA256(p.Data)
	if err != nil {
		return fmt.Errorf("hash dataset: %w", err)
	}
	ds.SHA256 = sum
	return nil
}

func hasSamples(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "samples.jsonl"))
	return err == nil && st.Size() > 0
}

// checkOrphanSamples accepts a folder whose manifest is missing or unreadable
// only when every recorded sample carries this run's fingerprint (or with
// --force); otherwise resuming would mix samples of two configs unseen.
func checkOrphanSamples(dir, fp string, force bool, cause error) error {
	samples, err := record.ReadLog[record.Sample](filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		return fmt.Errorf("%s: manifest unreadable (%v) and samples unreadable: %w", dir, cause, err)
	}
	other := map[string]int{}
	for _, s := range samples {
		if s.Fingerprint != fp {
			other[s.Fingerprint]++
		}
	}
	if len(other) == 0 || force {
		return nil
	}
	what := fmt.Sprintf("%d of %d samples were made under another config", sumValues(other), len(samples))
	if other[""] > 0 {
		what = fmt.Sprintf("%d of %d samples do not say which config made them", other[""], len(samples))
	}
	return fmt.Errorf("%s: manifest.json is missing or unreadable (%v) and %s; resuming could mix two configs: use another --run name, or --force to resume anyway", dir, cause, what)
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// countContributions sets each history entry's sample count from the
// samples' own fingerprints (latest record per key).
func countContributions(m *record.Manifest, samples []record.Sample) {
	by := map[string]int{}
	for _, s := range record.Latest(samples, record.Sample.Key) {
		by[s.Fingerprint]++
	}
	for i := range m.History {
		m.History[i].Samples = by[m.History[i].Fingerprint]
	}
}
