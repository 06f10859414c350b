package cmd

import (
	"bytes"
	"strings"
	"testing"
)

func TestDatasetsInspect(t *testing.T) {
	var out, errOut bytes.Buffer
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&errOut)
	// Cobra keeps flag values between runs, so the run without --data goes first.
	rootCmd.SetArgs([]string{"datasets", "inspect", "locomo"})
	if err := rootCmd.Execute(); err == nil || !strings.Contains(err.Error(), "--data") {
		t.Errorf("missing --data: err %v", err)
	}
	// BranchMemEval embeds its default set, so it needs no --data.
	rootCmd.SetArgs([]string{"datasets", "inspect", "branchmemeval"})
	if err := rootCmd.Execute(); err != nil || !strings.Contains(out.String(), "(embedded default)") {
		t.Errorf("branchmemeval without --data: err %v, output %q", err, out.String())
	}
	out.Reset()
	rootCmd.SetArgs([]string{"datasets", "inspect", "locomo", "--data", "../datasets/locomo/testdata/locomo10.json", "--categories", "1,2,3,4"})
	defer rootCmd.SetArgs(nil)
	if err := rootCmd.Execute(); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"episodes 2 sessions 5", "questions 12 (abstention 0, with evidence 9)", "1 multi-hop 4", "warning: sha256 differs"} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
