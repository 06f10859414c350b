package record

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestForestKey: a forest is keyed like the episode record of its memory
// instance, so a reader finds one from the other; the view round-trips
// through a log untouched.
func TestForestKey(t *testing.T) {
	for _, c := range []struct {
		f    Forest
		e    EpisodeStat
		same bool
	}{
		{Forest{Benchmark: "b", Episode: "e", System: "arbormem"}, EpisodeStat{Benchmark: "b", Episode: "e", System: "arbormem"}, true},
		{Forest{Benchmark: "b", Episode: "e", System: "arbormem", Variant: "v", Variants: []string{"v", "w"}}, EpisodeStat{Benchmark: "b", Episode: "e", System: "arbormem", Variant: "v"}, true},
		{Forest{Benchmark: "b", Episode: "e", System: "arbormem"}, EpisodeStat{Benchmark: "b", Episode: "e", System: "arbormem", Variant: "v"}, false},
		{Forest{Benchmark: "b", Episode: "e1", System: "arbormem"}, EpisodeStat{Benchmark: "b", Episode: "e", System: "arbormem"}, false},
	} {
		if got := c.f.Key() == c.e.Key(); got != c.same {
			t.Errorf("%+v and %+v: same key %v, want %v", c.f, c.e, got, c.same)
		}
	}
	path := filepath.Join(t.TempDir(), "forests.jsonl")
	l, _, err := OpenLog(path, Forest.Key)
	if err != nil {
		t.Fatal(err)
	}
	view := json.RawMessage(`{"nodes":[{"id":"t1","root":"t1","summary":"a </script> b"}],"roots":["t1"]}`)
	if err := l.Supersede(Forest{Benchmark: "b", Episode: "e", System: "arbormem", View: view}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLog[Forest](path)
	if err != nil || len(got) != 1 {
		t.Fatalf("read %d forests: %v", len(got), err)
	}
	var a, b any
	if json.Unmarshal(got[0].View, &a) != nil || json.Unmarshal(view, &b) != nil {
		t.Fatal("the view is not JSON after the round trip")
	}
	if ja, jb := mustJSON(t, a), mustJSON(t, b); ja != jb {
		t.Errorf("view %s, want %s", ja, jb)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
