package cmd

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// cpuProfile is the --cpuprofile file; profiling starts once flags are
// parsed (cobra's initializers run then) and stops when Execute returns,
// so the profile covers the command's whole path, the built binary's
// process included, which a benchmark of the runner leaves out.
var (
	cpuProfile  string
	stopProfile = func() {}
)

func init() {
	rootCmd.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the command to `FILE` (read it with go tool pprof)")
	cobra.OnInitialize(startProfile)
}

func startProfile() {
	if cpuProfile == "" {
		return
	}
	f, err := os.Create(cpuProfile)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		// A profile is a diagnostic: the command runs without it.
		fmt.Fprintf(rootCmd.ErrOrStderr(), "arbor: --cpuprofile %s: %v (running without a profile)\n", cpuProfile, err)
		if f != nil {
			f.Close()
		}
		return
	}
	stopProfile = func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(rootCmd.ErrOrStderr(), "arbor: --cpuprofile %s: %v\n", cpuProfile, err)
		}
	}
}
