// Package loadtest holds test helpers shared by the benchmark loaders'
// tests: golden files (go test -update rewrites them, through
// pkg/table/tabletest), episode rendering and temporary fixtures.
package loadtest

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/table/tabletest"
)

// The -update flag that tabletest.Golden reads by name; declared here
// because only test binaries import this package.
var _ = flag.Bool("update", false, "rewrite golden files")

// Golden compares got with the golden file at path, or rewrites it when the
// tests run with -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	tabletest.Golden(t, path, got)
}

// JSON renders episodes as indented JSON for golden files.
func JSON(t testing.TB, eps []datasets.Episode) []byte {
	t.Helper()
	b, err := json.MarshalIndent(eps, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// WriteFile writes data to name under a fresh temporary directory and
// returns its path; name may contain slashes.
func WriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// WantError fails unless err is non-nil and contains every part.
func WantError(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error containing %q, got nil", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// Interactions returns the episode's interactions in order.
func Interactions(ep datasets.Episode) []*dialog.Interaction {
	var out []*dialog.Interaction
	for _, s := range ep.Steps {
		if s.Interaction != nil {
			out = append(out, s.Interaction)
		}
	}
	return out
}

// Lines fails unless got equals want, printing both one item a line.
func Lines(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
