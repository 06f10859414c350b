package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanAndDryRun runs `arbor plan` and --dry-run on the shipped LoCoMo
// fixture: both count the same plan from the data (--replay replays it),
// print its counts and leave no results.
func TestPlanAndDryRun(t *testing.T) {
	const data = "../datasets/locomo/testdata/locomo10.json"
	results := t.TempDir()
	for _, args := range [][]string{
		{"plan", "eval", "locomo", "--data", data, "--systems", "recent,bm25", "--results", results},
		{"eval", "locomo", "--data", data, "--systems", "recent,bm25", "--results", results, "--dry-run"},
		{"plan", "sweep", "--benchmark", "locomo", "--data", data, "--systems", "bm25", "--budgets", "256,32k", "--results", results},
		{"plan", "ablate", "--benchmark", "locomo", "--data", data, "--subset", "1", "--results", results},
		{"plan", "latency", "--benchmark", "locomo", "--data", data, "--systems", "bm25", "--results", results},
		{"plan", "eval", "locomo", "--data", data, "--systems", "bm25", "--results", results, "--replay"},
	} {
		var out bytes.Buffer
		rootCmd.SetOut(&out)
		rootCmd.SetErr(&out)
		rootCmd.SetArgs(args)
		if err := rootCmd.Execute(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		kind := args[0]
		if kind == "plan" {
			kind = args[1]
		}
		head := "Plan of "
		if args[len(args)-1] == "--replay" {
			head = "Dry run of "
		}
		for _, want := range []string{head + kind + " on locomo", "Model calls by role", "Every role is local", "Estimated wall time"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out.String())
			}
		}
	}
	rootCmd.SetArgs(nil)
	// Cobra keeps flag values between runs: leave no command in dry-run mode.
	for _, path := range [][]string{{"eval"}, {"sweep", "budgets"}, {"ablate"}, {"latency"}} {
		if c, _, err := rootCmd.Find(path); err == nil {
			c.Flags().Set("dry-run", "false")
			c.Flags().Set("replay", "false")
		}
	}
	if entries, _ := filepathGlob(results); len(entries) != 0 {
		t.Errorf("dry runs left results behind: %v", entries)
	}
}

func filepathGlob(dir string) ([]string, error) { return filepath.Glob(filepath.Join(dir, "*")) }
