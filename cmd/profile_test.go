package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfile: --cpuprofile writes a pprof file (gzip-compressed
// protobuf) covering the command; a file that cannot be created leaves the
// command to run without one.
func TestCPUProfile(t *testing.T) {
	var out bytes.Buffer
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&out)
	defer func() { cpuProfile, stopProfile = "", func() {}; rootCmd.SetArgs(nil) }()

	path := filepath.Join(t.TempDir(), "cpu.prof")
	rootCmd.SetArgs([]string{"version", "--cpuprofile", path})
	if err := rootCmd.Execute(); err != nil {
		t.Fatal(err)
	}
	stopProfile()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("profile is %d bytes, not gzip", len(b))
	}

	stopProfile = func() {}
	rootCmd.SetArgs([]string{"version", "--cpuprofile", filepath.Join(t.TempDir(), "missing", "cpu.prof")})
	out.Reset()
	if err := rootCmd.Execute(); err != nil {
		t.Errorf("an unwritable profile failed the command: %v", err)
	}
	stopProfile()
	if !strings.Contains(out.String(), "running without a profile") {
		t.Errorf("no warning for an unwritable profile: %q", out.String())
	}
}
