package record

import (
	"slices"
	"testing"
)

func TestBranchPath(t *testing.T) {
	parents := map[string]string{"c": "b", "b": "a", "a": "", "x": "y", "y": "x"}
	parentOf := func(id string) (string, bool) { p, ok := parents[id]; return p, ok }
	for _, c := range []struct {
		id    string
		limit int
		want  []string
	}{
		{"c", 100, []string{"a", "b", "c"}},
		{"a", 100, []string{"a"}},
		{"", 100, nil},
		{"x", 100, []string{"y", "x"}}, // a cycle stops
		{"c", 2, []string{"b", "c"}},   // the limit stops
		{"unknown", 100, []string{"unknown"}},
	} {
		if got := BranchPath(c.id, parentOf, c.limit); !slices.Equal(got, c.want) {
			t.Errorf("BranchPath(%q, %d) = %v, want %v", c.id, c.limit, got, c.want)
		}
	}
}

func TestBundleKeyIsSampleKey(t *testing.T) {
	s := Sample{Benchmark: "b", Episode: "e", Question: "q", System: "s", Variant: "v", Budget: 7}
	if got := (Bundle{Benchmark: "b", Episode: "e", Question: "q", System: "s", Variant: "v", Budget: 7}).Key(); got != s.Key() {
		t.Errorf("bundle key %q != sample key %q", got, s.Key())
	}
	if TextRef("a") == TextRef("b") || len(TextRef("a")) != 32 {
		t.Error("TextRef does not tell texts apart")
	}
}
