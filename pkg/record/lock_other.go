//go:build !unix

package record

import "os"

// tryLock is a no-op where flock does not exist: one writer per run folder
// is then the user's responsibility.
func tryLock(*os.File) (bool, error) { return false, nil }

func unlock(*os.File) {}

func tryShared(*os.File) (bool, error) { return false, nil }
