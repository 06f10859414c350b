package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEvalWithoutBenchmarkListsThem: `arbor eval` with no benchmark names
// every benchmark in its error; one benchmark passes.
func TestEvalWithoutBenchmarkListsThem(t *testing.T) {
	c := &cobra.Command{Use: "eval"}
	err := oneBenchmark(c, nil)
	if err == nil {
		t.Fatal("no benchmark accepted")
	}
	for _, b := range []string{"beam", "branchmemeval", "locomo", "longmemeval"} {
		if !strings.Contains(err.Error(), b) {
			t.Errorf("error %q does not list %s", err, b)
		}
	}
	if err := oneBenchmark(c, []string{"locomo"}); err != nil {
		t.Errorf("one benchmark refused: %v", err)
	}
	if err := oneBenchmark(c, []string{"locomo", "beam"}); err == nil {
		t.Error("two benchmarks accepted")
	}
}
