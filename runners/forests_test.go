package runners

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/arbor-eval/arbor/pkg/forestview"
	"github.com/arbor-eval/arbor/pkg/record"
)

// TestForestsRecorded: an eval run records one forest per episode for
// ArborMem and none for a baseline, keyed like the episode records, with
// every committed interaction a node and every question's chosen parent
// among them; the file is the same whatever the worker count (sorted by
// key), a resume with nothing to do adds nothing, a merge carries the
// forests, and run.bundles: off writes none.
func TestForestsRecorded(t *testing.T) {
	read := func(dir string) []record.Forest {
		t.Helper()
		fs, err := record.ReadLog[record.Forest](filepath.Join(dir, "forests.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		fs = record.Latest(fs, record.Forest.Key)
		sort.Slice(fs, func(i, j int) bool { return fs[i].Key() < fs[j].Key() })
		return fs
	}
	var byWorkers [][]record.Forest
	var first string
	for _, workers := range []int{1, 4} {
		cfg := testConfig(t)
		cfg.Run.Workers = workers
		plan := Plan{Benchmark: "branchmemeval", Limit: 3, Systems: []string{"bm25", "arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard}
		res, err := Run(deadline(t), plan)
		if err != nil {
			t.Fatal(err)
		}
		fs := read(res.Dir)
		byWorkers = append(byWorkers, fs)
		if first != "" {
			continue
		}
		first = res.Dir
		eps := map[string]record.EpisodeStat{}
		for _, e := range res.Episodes {
			if e.System == "arbormem" {
				eps[e.Key()] = e
			}
		}
		if len(fs) != len(eps) || len(fs) != 3 {
			t.Fatalf("%d forests for %d ArborMem episode records, want one each of 3", len(fs), len(eps))
		}
		nodes := map[string]map[string]bool{}
		for _, f := range fs {
			e, ok := eps[f.Key()]
			if !ok || f.System != "arbormem" || !slices.Equal(f.Variants, []string{""}) {
				t.Fatalf("forest %q (%s, variants %q) has no ArborMem episode record", f.Key(), f.System, f.Variants)
			}
			var v forestview.View
			if err := json.Unmarshal(f.View, &v); err != nil {
				t.Fatal(err)
			}
			if len(v.Nodes) != e.Committed || len(v.Roots) == 0 || v.Scope != f.Episode || !v.Heuristic {
				t.Errorf("%s: %d nodes, %d roots, scope %q; want %d nodes (the committed interactions)", f.Episode, len(v.Nodes), len(v.Roots), v.Scope, e.Committed)
			}
			nodes[f.Episode] = map[string]bool{}
			for _, n := range v.Nodes {
				nodes[f.Episode][n.ID] = true
			}
		}
		bundles, err := record.ReadLog[record.Bundle](filepath.Join(res.Dir, "bundles.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		chosen := 0
		for _, b := range bundles {
			if b.System == "arbormem" && b.Trace != nil && b.Trace.Parent != "" {
				chosen++
				if !nodes[b.Episode][b.Trace.Parent] {
					t.Errorf("%s: chosen parent %s is not in the episode's forest", b.Key(), b.Trace.Parent)
				}
			}
		}
		if chosen == 0 {
			t.Error("no question chose a parent: the highlight went untested")
		}
		before, _ := os.ReadFile(filepath.Join(res.Dir, "forests.jsonl"))
		if _, err := Run(deadline(t), plan); err != nil {
			t.Fatal(err)
		}
		if after, _ := os.ReadFile(filepath.Join(res.Dir, "forests.jsonl")); !bytes.Equal(before, after) {
			t.Error("a resume with nothing to do changed forests.jsonl")
		}
		merged := filepath.Join(cfg.Run.Results, "merged")
		if _, err := Merge(merged, []string{res.Dir}, false, io.Discard); err != nil {
			t.Fatal(err)
		}
		if got := read(merged); len(got) != len(fs) {
			t.Errorf("merge carried %d of %d forests", len(got), len(fs))
		}
	}
	a, _ := json.Marshal(byWorkers[0])
	b, _ := json.Marshal(byWorkers[1])
	if !bytes.Equal(a, b) {
		t.Error("the forests differ between 1 and 4 workers")
	}

	cfg := testConfig(t)
	cfg.Run.Bundles = "off"
	res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "forests.jsonl")); !os.IsNotExist(err) {
		t.Error("forests.jsonl written with run.bundles: off")
	}
}
