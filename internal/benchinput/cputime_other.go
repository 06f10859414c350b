//go:build !unix

package benchinput

import "time"

// ProcessCPU is unknown here: CPU-time figures read 0.
func ProcessCPU() time.Duration { return 0 }
