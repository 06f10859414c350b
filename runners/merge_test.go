package runners

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
)

// TestMergeAgainReplacesRetriedErrors merges a shard, answers its failed
// question again (--retry-errors supersedes the error line in the shard) and
// merges again: the merged run must carry the new answer, not keep the error
// because its key was already there.
func TestMergeAgainReplacesRetriedErrors(t *testing.T) {
	src, dst := filepath.Join(t.TempDir(), "shard"), filepath.Join(t.TempDir(), "merged")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := record.WriteManifest(src, &record.Manifest{RunID: "shard", Kind: "eval", Benchmark: "locomo", Fingerprint: "f", Systems: []string{"bm25"}, Budgets: []int{100}}); err != nil {
		t.Fatal(err)
	}
	base := record.Sample{Benchmark: "locomo", Episode: "e", Question: "e:0", System: "bm25", Budget: 100, Primary: "f1", EvidenceRecall: -1}
	failed := base
	failed.Error = "answer: endpoint down"
	ok := base
	ok.Prediction, ok.Scores = "Paris", map[string]record.ScoreRecord{"f1": {Score: 1}}
	epFailed := record.EpisodeStat{Benchmark: "locomo", Episode: "e", System: "bm25", Error: "commit e-1: endpoint down"}
	epOK := epFailed
	epOK.Error, epOK.Committed = "", 3

	samples, _, err := record.OpenLog(filepath.Join(src, "samples.jsonl"), record.Sample.Key)
	if err != nil {
		t.Fatal(err)
	}
	episodes, _, err := record.OpenLog(filepath.Join(src, "episodes.jsonl"), record.EpisodeStat.Key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := samples.Append(failed); err != nil {
		t.Fatal(err)
	}
	if _, err := episodes.Append(epFailed); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(dst, []string{src}, false, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := samples.Supersede(ok); err != nil {
		t.Fatal(err)
	}
	if err := episodes.Supersede(epOK); err != nil {
		t.Fatal(err)
	}
	if err := samples.Close(); err != nil {
		t.Fatal(err)
	}
	if err := episodes.Close(); err != nil {
		t.Fatal(err)
	}
	// Merging twice more must neither lose the answer nor grow the file.
	for range 2 {
		if _, err := Merge(dst, []string{src}, false, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := record.ReadLog[record.Sample](filepath.Join(dst, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	latest := record.Latest(recs, record.Sample.Key)
	if len(latest) != 1 || latest[0].Error != "" || latest[0].Prediction != "Paris" {
		t.Fatalf("merged samples after the retry: %+v, want the answered sample", latest)
	}
	if len(recs) != 2 {
		t.Errorf("merged samples.jsonl has %d lines, want 2 (the error and the line superseding it)", len(recs))
	}
	eps, err := record.ReadLog[record.EpisodeStat](filepath.Join(dst, "episodes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if l := record.Latest(eps, record.EpisodeStat.Key); len(l) != 1 || l[0].Error != "" || l[0].Committed != 3 {
		t.Fatalf("merged episode records after the retry: %+v", l)
	}
}
