// Package tabletest compares rendered tables with golden files in tests.
package tabletest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Updating reports whether the test binary runs with -update=true. The flag
// itself is declared by each test package (this package declaring it would
// clash with a package that already does), so it is read by name.
func Updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Golden compares got with the file at path, or rewrites the file when the
// tests run with -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s (rerun the test with -update to create it): %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file (rerun with -update to accept):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
