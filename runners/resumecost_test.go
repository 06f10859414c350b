package runners

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
)

// TestResumeKeepsCostsAndBundles: a model-backed ArborMem run resumed after
// k of its samples were recorded (as a kill leaves it: samples on disk, no
// episode record, no bundles of theirs) records the same ingest calls and
// tokens per episode as the uninterrupted run, for every k, and ends with a
// bundle for every sample. A question skipped on resume must not move its
// query-time calls into the episode's ingest count: ArborMem's commit of
// the question's interaction reuses the localization its recall made.
func TestResumeKeepsCostsAndBundles(t *testing.T) {
	cfg, _ := speakingCached(t)
	cfg.Run.Results = t.TempDir()
	run := func(name string) *Outcome {
		t.Helper()
		res, err := Run(slowDeadline(t), Plan{Benchmark: "branchmemeval", Limit: 3, Systems: []string{"arbormem"}, RunID: name,
			Config: cfg, Out: io.Discard, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ref := run("whole")
	lines := bytes.SplitAfter(readFile(t, filepath.Join(ref.Dir, "samples.jsonl")), []byte("\n"))
	if len(lines) < 4 {
		t.Fatalf("%d samples: too few to resume from", len(lines))
	}
	for _, k := range []int{1, len(lines) / 2, len(lines) - 1} {
		name := "resumed-" + string(rune('a'+k%26))
		dir := filepath.Join(cfg.Run.Results, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "samples.jsonl"), bytes.Join(lines[:k], nil), 0o644); err != nil {
			t.Fatal(err)
		}
		got := run(name)
		if len(got.Episodes) != len(ref.Episodes) {
			t.Fatalf("k=%d: %d episode records, want %d", k, len(got.Episodes), len(ref.Episodes))
		}
		want := map[string]record.EpisodeStat{}
		for _, e := range ref.Episodes {
			want[e.Key()] = e
		}
		for _, e := range got.Episodes {
			w := want[e.Key()]
			for role, c := range w.Calls {
				g := e.Calls[role]
				if g.Count != c.Count || g.PromptTokens != c.PromptTokens || g.CompletionTokens != c.CompletionTokens {
					t.Errorf("k=%d, episode %s, %s ingest: %d calls / %d prompt / %d completion tokens, uninterrupted %d / %d / %d",
						k, e.Episode, role, g.Count, g.PromptTokens, g.CompletionTokens, c.Count, c.PromptTokens, c.CompletionTokens)
				}
			}
			for role := range e.Calls {
				if _, ok := w.Calls[role]; !ok {
					t.Errorf("k=%d, episode %s: ingest calls of role %s the uninterrupted run did not make", k, e.Episode, role)
				}
			}
		}
		bundles, err := record.ReadLog[record.Bundle](filepath.Join(dir, "bundles.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, b := range bundles {
			have[b.Key()] = true
		}
		for _, s := range got.Samples {
			if !have[s.Key()] {
				t.Errorf("k=%d: sample %s has no bundle", k, s.Key())
			}
		}
		if missing := missingBundles(dir, got.Samples); len(missing) > 0 {
			t.Errorf("k=%d: report names %d missing bundles", k, len(missing))
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b, "\n")
}
