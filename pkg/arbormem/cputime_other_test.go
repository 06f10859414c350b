//go:build !unix

package arbormem

import "time"

// processCPU is unknown here: CPU-time figures read 0.
func processCPU() time.Duration { return 0 }
