package runners

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
)

// TestEvalPublicBenchmarkFixtures runs `arbor eval` end to end, offline, with
// every native system on the fixtures written in each official format
// (issue 6): every question yields one sample per system, none an error, and
// every sample is scored.
func TestEvalPublicBenchmarkFixtures(t *testing.T) {
	cases := []struct{ bench, data string }{
		{"longmemeval", "../datasets/longmemeval/testdata/longmemeval_s_cleaned.json"},
		{"longmemeval", "../datasets/longmemeval/testdata/longmemeval_oracle.json"},
		{"locomo", "../datasets/locomo/testdata/locomo10.json"},
		{"beam", "../datasets/beam/testdata/chats/100K"},
	}
	for _, c := range cases {
		t.Run(c.bench+"/"+filepath.Base(c.data), func(t *testing.T) {
			eps, err := datasets.Load(deadline(t), c.bench, c.data, datasets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			nq := 0
			for _, e := range eps {
				nq += len(e.Questions())
			}
			if nq == 0 {
				t.Fatal("fixture has no questions")
			}
			cfg := testConfig(t)
			var out strings.Builder
			res, err := Run(deadline(t), Plan{Benchmark: c.bench, Data: c.data, Config: cfg, Out: &out, Log: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			if want := nq * len(DefaultSystems); len(res.Samples) != want {
				t.Fatalf("%d samples, want %d (%d questions × %d systems)", len(res.Samples), want, nq, len(DefaultSystems))
			}
			for _, s := range res.Samples {
				if s.Error != "" {
					t.Errorf("%s: %s", s.Key(), s.Error)
				}
				if len(s.Scores) == 0 {
					t.Errorf("%s: not scored", s.Key())
				}
			}
			if !strings.Contains(out.String(), "Answer accuracy") {
				t.Errorf("no accuracy table printed:\n%s", out.String())
			}
		})
	}
}
