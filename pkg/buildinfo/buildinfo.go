// Package buildinfo reports arbor's version and the git commit it was built
// from, for `arbor version` and run manifests.
package buildinfo

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
)

// Version is arbor's release version; set with -ldflags "-X ...buildinfo.Version=…".
var Version = "0.1.0-dev"

// Commit is the git commit; set with -ldflags, else read from the binary's VCS
// stamp, else from `git rev-parse` in the working directory.
var Commit = ""

var once sync.Once

// GitCommit returns the commit, or "unknown".
func GitCommit() string {
	once.Do(func() {
		if Commit != "" {
			return
		}
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					Commit = s.Value
				}
			}
		}
		if Commit == "" {
			// The repo builds with -buildvcs=false on this machine's GOFLAGS.
			if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
				Commit = strings.TrimSpace(string(out))
			}
		}
		if Commit == "" {
			Commit = "unknown"
		}
	})
	return Commit
}

// String is "arbor <version> (commit <sha>)".
func String() string { return "arbor " + Version + " (commit " + GitCommit() + ")" }
