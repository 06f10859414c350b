// Command arbor runs ArborMem and its baselines over long-term memory
// benchmarks and renders the paper's tables.
package main

import (
	"os"

	"github.com/arbor-eval/arbor/cmd"
)

func main() { os.Exit(cmd.Execute()) }
