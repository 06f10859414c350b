package realdeps

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"
)

// Chromium finds a headless-capable Chromium on PATH; without one the test
// ends as Missing says.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, "browser test skipped: no chromium on PATH (Debian: apt-get install chromium)")
	return ""
}

// Browse opens url in headless Chromium (bin) and returns the DOM after the
// page's scripts ran; with shot set, it saves a screenshot there instead.
// The virtual time budget lets lazily loaded data and timers run first.
func Browse(t testing.TB, bin, url, shot string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(), "--virtual-time-budget=10000", "--window-size=1400,1600"}, extra...)
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	} else {
		args = append(args, "--dump-dom")
	}
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, errb.String())
	}
	return out.String()
}
