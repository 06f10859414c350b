package sidecar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRequired: a bridge that is not installed fails `endpoints check`
// only when the command names it (--bridges, --systems); otherwise the
// check passes with a note naming it.
func TestCheckRequired(t *testing.T) {
	_, cfg := fakeModels(t)
	cfg.Bridges.AMem.Command = []string{os.Args[0]}
	cfg.Bridges.Mem0.Command = []string{filepath.Join(t.TempDir(), "not-installed")}
	t.Setenv("ARBOR_FAKE_SIDECAR", "ok")
	for _, tc := range []struct {
		name     string
		required []string
		fail     bool
	}{
		{"optional", nil, false},
		{"required amem only", []string{"amem"}, false},
		{"required mem0", []string{"mem0"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			err := RunCheckRequired(t.Context(), cfg, []string{"amem", "mem0"}, tc.required, &b)
			if (err != nil) != tc.fail {
				t.Fatalf("err = %v, want failure %v\n%s", err, tc.fail, b.String())
			}
			if !tc.fail && !strings.Contains(b.String(), "note: optional bridges not available: mem0") {
				t.Errorf("no note names the missing optional bridge:\n%s", b.String())
			}
			if tc.fail && !strings.Contains(err.Error(), "mem0") {
				t.Errorf("error does not name mem0: %v", err)
			}
		})
	}
}
