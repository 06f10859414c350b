// Package buildinfo reports arbor's version and the git commit it was built
// from, for `arbor version` and run manifests.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Version is arbor's release version; set with -ldflags "-X ...buildinfo.Version=…".
var Version = "0.1.0-dev"

// Commit is the git commit of the binary: set with -ldflags "-X
// github.com/arbor-eval/arbor/pkg/buildinfo.Commit=$(git rev-parse HEAD)",
// else read from the binary's VCS stamp (go build with -buildvcs). It is
// never read from the current directory: a binary run from another checkout
// would record that checkout's commit, not its own.
var Commit = ""

var once sync.Once

// GitCommit returns the binary's commit ("<sha>", "<sha>+dirty" when built
// from a modified tree), or "unknown" when the binary carries none (go run,
// -buildvcs=false).
func GitCommit() string {
	once.Do(func() {
		if Commit != "" {
			return
		}
		if bi, ok := debug.ReadBuildInfo(); ok {
			Commit = fromSettings(bi.Settings)
		}
		if Commit == "" {
			Commit = "unknown"
		}
	})
	return Commit
}

func fromSettings(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
}

// String is "arbor <version> (commit <sha>)".
func String() string { return "arbor " + Version + " (commit " + GitCommit() + ")" }
