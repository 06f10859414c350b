package runners

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLimitBeforeShard: the shards of a limited plan split the same
// episodes the unsharded limited plan runs.
func TestLimitBeforeShard(t *testing.T) {
	hs := []header{{id: "a"}, {id: "b"}, {id: "c"}, {id: "d"}, {id: "e"}, {id: "f"}}
	var union []string
	for k := 1; k <= 2; k++ {
		sel, _, err := selectHeaders(&Plan{Limit: 4, Shard: Shard{K: k, N: 2}}, hs)
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

// TestBadDataIsRefused: invalid UTF-8 in any benchmark file, and a file
// with no episodes, are one-line errors naming the file, not silent loads.
func TestBadDataIsRefused(t *testing.T) {
	dir := t.TempDir()
	corrupt := func(src, dst, after string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(b), after)
		if i < 0 {
			t.Fatalf("%s has no %q", src, after)
		}
		i += len(after)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, append(append(append([]byte{}, b[:i]...), 0xff), b[i:]...), 0o644); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	beam := filepath.Join(dir, "beam", "1")
	if err := os.CopyFS(beam, os.DirFS("../datasets/beam/testdata/chats/100K/1")); err != nil {
		t.Fatal(err)
	}
	corrupt(filepath.Join(beam, "chat.json"), filepath.Join(beam, "chat.json"), `"content": "`)
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	for _, tc := range []struct{ bench, data, want string }{
		{"locomo", corrupt("../datasets/locomo/testdata/locomo10.json", filepath.Join(dir, "lo.json"), `"text": "`), "invalid UTF-8"},
		{"longmemeval", corrupt("../datasets/longmemeval/testdata/longmemeval_oracle.json", filepath.Join(dir, "lme.json"), `"content": "`), "invalid UTF-8"},
		{"branchmemeval", corrupt("../datasets/branchmemeval/branchmemeval.json", filepath.Join(dir, "bme.json"), `"user": "`), "invalid UTF-8"},
		{"beam", beam, "invalid UTF-8"},
		{"locomo", empty, "holds no episodes"},
	} {
		_, err := Run(context.Background(), Plan{Benchmark: tc.bench, Data: tc.data, Systems: []string{"recent"}, Config: cfg, Out: io.Discard, Log: io.Discard})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %s: %v; want one line saying %q", tc.bench, filepath.Base(tc.data), err, tc.want)
		}
	}
}
