package runners

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/record"
)

// fingerprint hashes what makes two runs' samples comparable: the config
// (without run-local settings such as the results folder, workers, progress
// and cache location), the prompt texts and the dataset. Systems, budgets and
// limits are not part of it: adding a system or a budget to a run is allowed.
func fingerprint(p *Plan, m *record.Manifest) string {
	c := *p.Config
	c.Run.Results, c.Run.Workers, c.Run.Verbose, c.Run.Progress, c.Run.Bundles = "", 0, false, false, ""
	c.Cache.Dir, c.Cache.Enabled = "", false
	c.Source = ""
	c.Report = config.Report{} // how tables are reported never changes the samples
	h := sha256.New()
	b, _ := json.Marshal(c)
	h.Write(b)
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
