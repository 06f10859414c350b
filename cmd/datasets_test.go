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

func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	p := progressLines(&b)
	const total = 100 << 20
	for _, done := range []int64{5 << 20, 25 << 20, 26 << 20, total} {
		p(done, total)
	}
	got := strings.Count(b.String(), "\n")
	if got != 10 || !strings.HasPrefix(b.String(), "read 10% (25 of 100 MB)\nread 20% (25 of 100 MB)\nread 30% (100 of 100 MB)\n") {
		t.Errorf("lines:\n%s", b.String())
	}
	b.Reset()
	small := progressLines(&b)
	small(1, 2)
	small(2, 2)
	if b.Len() != 0 {
		t.Errorf("small file printed %q", b.String())
	}
}
