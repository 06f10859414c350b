package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// TestPerfTraceFlags: `arbor perf --trace` reads --latency as perf does,
// one latency or one per role (it read a duration flag that perf's string
// flag had replaced, and failed at once).
func TestPerfTraceFlags(t *testing.T) {
	for _, lat := range []string{"2ms", "chat=2ms,embed=1ms"} {
		var out bytes.Buffer
		rootCmd.SetOut(&out)
		rootCmd.SetErr(&out)
		rootCmd.SetArgs([]string{"perf", "--trace", "--turns", "1", "--latency", lat})
		err := rootCmd.Execute()
		rootCmd.SetArgs(nil)
		if err != nil {
			t.Fatalf("--latency %s: %v\n%s", lat, err, out.String())
		}
		if !strings.Contains(out.String(), "per committed turn") {
			t.Errorf("--latency %s: no trace summary:\n%s", lat, out.String())
		}
	}
}
