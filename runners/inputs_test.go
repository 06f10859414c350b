package runners

import (
	"context"
	"io"
	"slices"
	"testing"
)

// TestLimitBeforeShard: the shards of a limited plan split the same
// episodes the unsharded limited plan runs.
func TestLimitBeforeShard(t *testing.T) {
	hs := []header{{id: "a"}, {id: "b"}, {id: "c"}, {id: "d"}, {id: "e"}, {id: "f"}}
	var union []string
	for k := 1; k <= 2; k++ {
		sel, err := selectHeaders(&Plan{Limit: 4, Shard: Shard{K: k, N: 2}}, hs)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range sel {
			union = append(union, h.id)
		}
	}
	slices.Sort(union)
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(union, want) {
		t.Errorf("shards of --limit 4 cover %v, want %v", union, want)
	}
}

// TestBenchmarkNameIsCaseInsensitive: "BranchMemEval" runs and records
// the canonical name.
func TestBenchmarkNameIsCaseInsensitive(t *testing.T) {
	cfg := testConfig(t)
	res, err := Run(context.Background(), Plan{Benchmark: "BranchMemEval", Limit: 1, Systems: []string{"recent"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) == 0 || res.Samples[0].Benchmark != "branchmemeval" {
		t.Errorf("samples: %d, benchmark %q", len(res.Samples), res.Samples[0].Benchmark)
	}
	if _, err := Run(context.Background(), Plan{Benchmark: "nope", Config: cfg, Out: io.Discard, Log: io.Discard}); err == nil {
		t.Error("unknown benchmark accepted")
	}
}
