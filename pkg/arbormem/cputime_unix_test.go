//go:build unix

package arbormem

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used so far;
// benchmarks of CPU-bound work report it beside wall time, which on a shared
// machine measures the neighbours too.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
