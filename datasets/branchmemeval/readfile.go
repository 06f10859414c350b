package branchmemeval

import "github.com/arbor-eval/arbor/datasets/internal/loadkit"

// ReadFile reads a BranchMemEval file whole for Parse, refusing at once a
// file that cannot be JSON (such as /dev/zero, which would otherwise be
// read until memory runs out) and one larger than loadkit.MaxWholeFile.
func ReadFile(path string) ([]byte, error) {
	return loadkit.ReadJSONFile(path, loadkit.MaxWholeFile)
}
