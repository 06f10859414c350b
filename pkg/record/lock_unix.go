//go:build unix

package record

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without blocking; held reports that
// another open file description holds it.
func tryLock(f *os.File) (held bool, err error) { return tryFlock(f, syscall.LOCK_EX) }

// tryShared takes a shared flock on f without blocking; held reports that
// another open file description holds the exclusive lock.
func tryShared(f *os.File) (held bool, err error) { return tryFlock(f, syscall.LOCK_SH) }

// tryFlock takes flock how (LOCK_EX or LOCK_SH) on f without blocking.
func tryFlock(f *os.File, how int) (held bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true, nil
		}
		return false, err
	}
}

func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
