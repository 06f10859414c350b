package realdeps

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissing runs a test that reports a missing component in a child
// process, with CI set and unset: it skips outside CI and fails in it.
func TestMissing(t *testing.T) {
	if os.Getenv("REALDEPS_CHILD") == "1" {
		Missing(t, "widget not installed")
		return
	}
	for _, c := range []struct {
		ci   string
		fail bool
		want string
	}{
		{"", false, "SKIP"}, {"false", false, "SKIP"}, {"true", true, "FAIL"}, {"1", true, "FAIL"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "REALDEPS_CHILD=1", "CI="+c.ci)
		out, err := cmd.CombinedOutput()
		if (err != nil) != c.fail || !strings.Contains(string(out), "--- "+c.want) || !strings.Contains(string(out), "widget not installed") {
			t.Errorf("CI=%q: err %v, output:\n%s", c.ci, err, out)
		}
	}
}
