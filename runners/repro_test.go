package runners

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-eval/arbor/pkg/table"
)

// renderedTables renders every table report builds for dir in every format
// (Markdown, CSV, JSON, LaTeX, HTML), intervals shown, keyed by name.format;
// skip names tables left out (timings, which are measurements).
func renderedTables(t *testing.T, dir string, skip ...string) map[string][]byte {
	t.Helper()
	o := DefaultReportOptions()
	o.Stats.Resamples = 400
	o.CIForm = table.CIBrackets
	o.OutDir = t.TempDir()
	_, ts, err := report(dir, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, nt := range o.withForm(ts) {
		if contains(skip, nt.name) {
			continue
		}
		csv, err := nt.t.CSV()
		if err != nil {
			t.Fatal(err)
		}
		js, err := nt.t.JSON()
		if err != nil {
			t.Fatal(err)
		}
		tex, err := nt.t.LaTeX("tab:" + nt.name)
		if err != nil {
			t.Fatal(err)
		}
		out[nt.name+".md"] = []byte(nt.t.Markdown())
		out[nt.name+".csv"], out[nt.name+".json"], out[nt.name+".tex"] = csv, js, tex
		out[nt.name+".html"] = []byte(nt.t.HTML())
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func sameRendered(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rendered tables, want %d", what, len(got), len(want))
	}
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: no %s", what, name)
		} else if !bytes.Equal(g, w) {
			t.Errorf("%s: %s differs:\n--- got ---\n%s\n--- want ---\n%s", what, name, g, w)
		}
	}
}

// shuffleLog rewrites a JSONL log with its lines in a random order.
func shuffleLog(t *testing.T, path string, seed uint64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	f.Close()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dropHalf keeps every other line of a JSONL log: a run killed midway.
func dropHalf(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	var keep [][]byte
	for i, l := range lines {
		if i%2 == 0 {
			keep = append(keep, l)
		}
	}
	if err := os.WriteFile(path, append(bytes.Join(keep, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTablesArePureFunctionOfSamples (issue 29): the same eval with one
// worker and with four, a resume of a half-finished run, and the first run
// with samples.jsonl and episodes.jsonl shuffled render byte-identical
// tables in every format, intervals and comparisons included. Timings
// (the latency table) are measurements and differ between runs; the
// shuffled copy renders them identically too.
func TestTablesArePureFunctionOfSamples(t *testing.T) {
	plan := func(workers int) (Plan, string) {
		cfg := testConfig(t)
		cfg.Run.Workers = workers
		return Plan{Benchmark: "branchmemeval", Limit: 3, Systems: []string{"bm25", "recent", "arbormem"}, RunID: "repro",
			Config: cfg, Out: io.Discard, Log: io.Discard}, filepath.Join(cfg.Run.Results, "repro")
	}
	p1, dir1 := plan(1)
	if _, err := Run(deadline(t), p1); err != nil {
		t.Fatal(err)
	}
	p4, dir4 := plan(4)
	if _, err := Run(deadline(t), p4); err != nil {
		t.Fatal(err)
	}
	want := renderedTables(t, dir1, "latency")
	sameRendered(t, "4 workers", renderedTables(t, dir4, "latency"), want)

	pr, dirR := plan(2)
	if _, err := Run(deadline(t), pr); err != nil {
		t.Fatal(err)
	}
	dropHalf(t, filepath.Join(dirR, "samples.jsonl"))
	if _, err := Run(deadline(t), pr); err != nil {
		t.Fatal(err)
	}
	sameRendered(t, "resumed", renderedTables(t, dirR, "latency"), want)

	full := renderedTables(t, dir1)
	for seed := range uint64(3) {
		shuffleLog(t, filepath.Join(dir1, "samples.jsonl"), seed+1)
		shuffleLog(t, filepath.Join(dir1, "episodes.jsonl"), seed+1)
		sameRendered(t, "shuffled", renderedTables(t, dir1), full)
	}
}
