package layers

import (
	"strings"
	"testing"
)

// arbor is the module's layer table, top first: a package's non-test files
// import only from layers below its own, and from its own layer only where
// sideways lists the import. docs/ARCHITECTURE.md draws the same table;
// change both together.
var arbor = Rules{
	TableFile: "internal/layers/layers_test.go",
	Layers: []Layer{
		// Programs: the arbor binary, hand-run tools and this checker.
		// Nothing imports them.
		{"programs", []string{".", "scripts/qwen3-ranks", "internal/layers"}},
		// The cobra commands: parse flags, build a config, call one function.
		{"cmd", []string{"cmd"}},
		// Run(Plan), dry-run plans, report, merge, explain, perf: the only
		// place where datasets, systems, answerers and scorers meet.
		// arbor serve, a service beside the runners: the same memory, live.
		{"runners", []string{"runners", "serve"}},
		// The speaking fake endpoint: answers every prompt with the offline
		// rules, so it stands above everything whose replies it imitates.
		{"fake", []string{"fake"}},
		// What consumes episodes and the library: the answer step, the
		// baselines and their sidecar bridge, the scorers, and the
		// benchmarks' shared input builder.
		{"methods", []string{"answer", "answer/spans", "baselines", "baselines/sidecar", "scoring", "internal/benchinput"}},
		// One loader (and for BranchMemEval the generator) per benchmark,
		// and the loaders' shared test helper.
		{"benchmarks", []string{"datasets/beam", "datasets/branchmemeval", "datasets/locomo", "datasets/longmemeval", "datasets/internal/loadtest"}},
		// The episode model and loader registry, and the loaders' decoding
		// helpers: what scoring needs without any one benchmark.
		{"episodes", []string{"datasets", "datasets/internal/loadkit"}},
		// The library: the memory seam, ArborMem and its subpackages, model
		// clients, tokens, indexes, tables, records. It imports nothing of
		// the module outside pkg/, which is what makes it a library. Beside
		// it, realdeps: how tests report a missing real component, and
		// vecfixture: the dense-vector fixtures of search tests (only tests
		// import either).
		{"library", []string{"pkg/...", "internal/realdeps", "internal/vecfixture"}},
	},
	Sideways: []Edge{
		// The extractive answerer's span finder is shared by the answer
		// step and the baselines that answer from their own text.
		{"answer", "answer/spans"},
		{"baselines", "answer/spans"},
		// Within the library, packages import each other freely; the go
		// command already refuses cycles.
		{"pkg/...", "pkg/..."},
	},
}

// TestImportsRunDownhill applies the table to every package of the module.
func TestImportsRunDownhill(t *testing.T) {
	root, module, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Load(root, module)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) < 10 {
		t.Fatalf("loaded only %d packages from %s: the walk is broken", len(g), root)
	}
	for _, p := range arbor.Check(g) {
		t.Error(p)
	}
}

// TestCheck runs the checker on a small synthetic graph that passes, and on
// changes to it that must each be reported (or, for the pattern, not).
func TestCheck(t *testing.T) {
	rules := Rules{
		TableFile: "table",
		Layers: []Layer{
			{"top", []string{"."}},
			{"cmd", []string{"cmd"}},
			{"mid", []string{"a", "b", "c"}},
			{"lib", []string{"pkg/..."}},
		},
		Sideways: []Edge{{"a", "b"}, {"pkg/...", "pkg/..."}},
	}
	base := func() Graph {
		return Graph{".": {"cmd"}, "cmd": {"a", "c"}, "a": {"b", "pkg/x"}, "b": {}, "c": {"pkg/y"},
			"pkg/x": {}, "pkg/y": {"pkg/x"}, "pkg/x/xtest": {"pkg/x"}}
	}
	cases := []struct {
		name   string
		change func(Graph)
		want   []string // substrings, one per expected problem, in sorted order
	}{
		{"downhill and allowed sideways", func(Graph) {}, nil},
		{"upward", func(g Graph) { g["pkg/x"] = []string{"a"} },
			[]string{`pkg/x (layer "lib") imports a (layer "mid", above it)`}},
		{"upward to cmd", func(g Graph) { g["c"] = []string{"cmd"} },
			[]string{`c (layer "mid") imports cmd (layer "cmd", above it)`}},
		{"sideways not listed", func(g Graph) { g["b"] = []string{"c"} },
			[]string{`b imports c, both in layer "mid"`}},
		{"sideways allowed one way only", func(g Graph) { g["a"] = []string{"pkg/x"}; g["b"] = []string{"a"} },
			[]string{`b imports a, both in layer "mid"`, "sideways import a -> b is allowed but no longer made"}},
		{"unknown package", func(g Graph) { g["d"] = []string{"pkg/x"} },
			[]string{"d is in no layer: add it to the layer table in table"}},
		{"pattern accepts new library packages", func(g Graph) { g["pkg/x/rules"] = []string{"pkg/x", "pkg/y"}; g["c"] = []string{"pkg/x/rules"} }, nil},
		{"test helper in production", func(g Graph) { g["b"] = []string{"pkg/x/xtest"} },
			[]string{"b imports pkg/x/xtest in a non-test file"}},
		{"stale entry", func(g Graph) { delete(g, "c"); g["cmd"] = []string{"a"} },
			[]string{`layer "mid" lists c, which matches no package`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := base()
			c.change(g)
			got := rules.Check(g)
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(c.want), strings.Join(got, "\n"))
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
