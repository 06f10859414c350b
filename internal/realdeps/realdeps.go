// Package realdeps lets a test that drives a real component (Node's Mem0
// sidecar, a headless Chromium, the Python sidecars) skip on a developer's
// machine that lacks it, but fail in CI, where .ci/run installs every such
// component: a skip there would let CI pass without the component ever
// being tested.
package realdeps

import (
	"os"
	"strconv"
	"testing"
)

// InCI reports whether the CI environment variable says the tests run in CI
// (CI=true, as .ci/run and the usual CI services set it).
func InCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// Missing ends the test for a missing real component: a skip with msg
// (which says how to install it), or in CI a failure.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s (CI=true: .ci/run installs this component, so its absence fails the test instead of skipping it)", msg)
	}
	t.Skip(msg)
}
