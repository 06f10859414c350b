package runners

import (
	"io"
	"testing"

	"github.com/arbor-eval/arbor/pkg/progress"
	"github.com/arbor-eval/arbor/pkg/record"
)

// TestBarShowsAccuracyPerSystem: the bar's accuracy is per system, in the
// plan's order, not pooled.
func TestBarShowsAccuracyPerSystem(t *testing.T) {
	cfg := testConfig(t)
	r := &run{plan: &Plan{Systems: []string{"bm25", "arbormem"}, Config: cfg, Log: io.Discard}, acc: map[string]*runningAcc{}, toIngest: 10}
	r.bar = progress.New(io.Discard, "x", 10, false)
	if got := r.status(); got != "acc – · ingested 0/10" {
		t.Errorf("status before answers = %q", got)
	}
	score := func(sys string, v float64) record.Sample {
		return record.Sample{System: sys, Primary: "p", Scores: map[string]record.ScoreRecord{"p": {Score: v}}}
	}
	for _, s := range []record.Sample{score("arbormem", 1), score("bm25", 0), score("arbormem", 0), score("bm25", 0)} {
		r.progress(s)
	}
	if got, want := r.status(), "acc bm25 0.0% arbormem 50.0% · ingested 0/10"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
}

func TestFromCache(t *testing.T) {
	for _, tc := range []struct {
		calls map[string]record.Calls
		want  bool
	}{
		{nil, false},
		{map[string]record.Calls{"chat": {Count: 2, CacheHits: 2}}, true},
		{map[string]record.Calls{"chat": {Count: 2, CacheHits: 2}, "embed": {Count: 1}}, false},
	} {
		if got := fromCache(tc.calls); got != tc.want {
			t.Errorf("fromCache(%v) = %v", tc.calls, got)
		}
	}
}
