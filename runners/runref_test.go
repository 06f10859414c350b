package runners

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/record"
)

func TestRunNamesAreNotPaths(t *testing.T) {
	for name, ok := range map[string]bool{"": true, "mine": true, "eval-bme-1a2b-shard1of2": true, "v1.2": true,
		"../../escape": false, "..": false, ".": false, "a/b": false, "/tmp/x": false, `a\b`: false, ".hidden": false} {
		if err := CheckRunName(name); (err == nil) != ok {
			t.Errorf("CheckRunName(%q) = %v", name, err)
		}
	}
}

// TestManifestConfigRebuildsTheRun: the config stored in a manifest (YAML
// keys, durations as strings) loads back to the same fingerprint, and a
// bare run id resolves under the results folder.
func TestManifestConfigRebuildsTheRun(t *testing.T) {
	cfg := testConfig(t, "arbormem: {tau: 7.5}\nretry: {base_delay: 150ms}\n")
	res, err := Run(context.Background(), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"recent"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	id := filepath.Base(res.Dir)
	if !strings.HasSuffix(id, "-"+configDigest(cfg)) {
		t.Errorf("run id %s does not carry the config digest %s", id, configDigest(cfg))
	}
	dir, err := ResolveRun(id, cfg.Run.Results)
	if err != nil || dir != res.Dir {
		t.Fatalf("ResolveRun(%s) = %s, %v", id, dir, err)
	}
	if _, err := ResolveRun("no-such-run", cfg.Run.Results); err == nil {
		t.Error("a missing run resolved")
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"base_delay": "150ms"`, `"tau": 7.5`, `"embedded": "branchmemeval.json`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("manifest lacks %s", want)
		}
	}
	data, source, notes, err := ManifestConfig(dir)
	if err != nil || len(notes) > 0 {
		t.Fatalf("ManifestConfig: %v %v", err, notes)
	}
	back, err := config.LoadYAML(data, source, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := record.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fp := fingerprint(&Plan{Config: back}, m); fp != m.Fingerprint {
		t.Errorf("config from the manifest has fingerprint %s, the run %s", fp, m.Fingerprint)
	}
}

// TestReportToAnotherFolder: a finished run in a read-only folder reports
// into --out without writing anything into the run.
func TestReportToAnotherFolder(t *testing.T) {
	cfg := testConfig(t)
	res, err := Run(context.Background(), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"recent"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(res.Dir, "tables")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(res.Dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(res.Dir, 0o755)
	out := filepath.Join(t.TempDir(), "tables")
	if _, err := ReportTo(res.Dir, out, io.Discard); err != nil {
		t.Fatalf("report of a read-only run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "main.md")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "tables")); !os.IsNotExist(err) {
		t.Errorf("report wrote into the run: %v", err)
	}
}
