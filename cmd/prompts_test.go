package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptsImportJudges: `arbor prompts import` given evaluation code (a
// checkout and a file) writes the official judges, says where each was read
// and which placeholder the code never fills, and refuses code holding none.
func TestPromptsImportJudges(t *testing.T) {
	fixtures := "../pkg/prompt/importer/testdata/judges"
	out := t.TempDir()
	var buf bytes.Buffer
	rootCmd.SetOut(&buf)
	rootCmd.SetErr(&buf)
	defer rootCmd.SetArgs(nil)
	rootCmd.SetArgs([]string{"prompts", "import", filepath.Join(fixtures, "beam"), filepath.Join(fixtures, "lme_evaluate_qa.py"), "--out", out})
	if err := rootCmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	for _, w := range []string{"wrote 7 prompts", "judge_beam_equivalence ← evaluation.py:", "judge_lme_abstention ← lme_evaluate_qa.py:",
		"placeholders the official code never fills:\n  judge_beam_rubric: <question>"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, buf.String())
		}
	}
	if files, _ := filepath.Glob(filepath.Join(out, "judge_*.tmpl")); len(files) != 7 {
		t.Errorf("%d judge templates written", len(files))
	}
	none := filepath.Join(t.TempDir(), "util.py")
	if err := os.WriteFile(none, []byte("def f(x):\n    return 'x: {}'.format(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	rootCmd.SetArgs([]string{"prompts", "import", none, "--out", t.TempDir()})
	if err := rootCmd.Execute(); err == nil || !strings.Contains(err.Error(), "holds no official judge prompt") {
		t.Errorf("code without a judge: err = %v", err)
	}
}
