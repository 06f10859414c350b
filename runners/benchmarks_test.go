package runners

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table/tabletest"
	"github.com/arbor-eval/arbor/scoring"
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

// TestEvalBEAMScoringMode: judge.beam_scoring (--beam-scoring) reaches the
// scorer, the manifest and the table caption.
func TestEvalBEAMScoringMode(t *testing.T) {
	const data = "../datasets/beam/testdata/chats/100K"
	for _, mode := range []string{"corrected", "official"} {
		cfg := testConfig(t, "judge: {beam_scoring: "+mode+"}\n")
		var out strings.Builder
		res, err := Run(deadline(t), Plan{Benchmark: "beam", Data: data, Config: cfg, Systems: []string{"bm25"}, Out: &out, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		official := mode == "official"
		for _, s := range res.Samples {
			if strings.HasPrefix(s.Primary, "beam-rubric-official") != official {
				t.Errorf("%s: %s scored by %s", mode, s.Key(), s.Primary)
			}
		}
		m, err := record.ReadManifest(res.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.BEAMScoring != mode {
			t.Errorf("manifest beam_scoring = %q, want %q", m.BEAMScoring, mode)
		}
		want := map[bool]string{true: "official BEAM evaluation code", false: "corrected BEAM protocol"}[official]
		if !strings.Contains(out.String(), want) {
			t.Errorf("%s: the printed caption does not name the protocol (%q):\n%s", mode, want, out.String())
		}
	}
}

// TestEvalLoCoMoEvidenceRecall: both recall figures on the LoCoMo fixture
// (golden), and the summary baseline's answer-in-bundle recall below its
// source recall: it cites every turn it summarises but keeps few answers.
func TestEvalLoCoMoEvidenceRecall(t *testing.T) {
	cfg := testConfig(t)
	res, err := Run(deadline(t), Plan{Benchmark: "locomo", Data: "../datasets/locomo/testdata/locomo10.json", Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	tb := scoring.RecallTable(res.Samples)
	tabletest.Golden(t, "testdata/golden/locomo-evidence-recall.md", []byte(tb.Markdown()))
	g := map[string]float64{}
	for _, r := range tb.Rows {
		for i, c := range tb.Columns {
			if r.Cells[i].Value != nil {
				g[r.Label+"/"+c.Name] = *r.Cells[i].Value
			}
		}
	}
	if a, s := g["Answer-in-bundle recall/Summary"], g["Source recall/Summary"]; !(a < s) {
		t.Errorf("summary: answer-in-bundle %.1f, source %.1f; want answer-in-bundle below source", a, s)
	}
	n := 0
	for _, s := range res.Samples {
		if s.AnswerInBundle != nil {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no sample recorded answer-in-bundle recall")
	}
}
