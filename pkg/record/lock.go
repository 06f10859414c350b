package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LockFile is the file inside a run folder that its writer holds locked.
const LockFile = ".lock"

// ErrLocked is wrapped by LockDir's error when another process holds the
// run folder.
var ErrLocked = errors.New("run folder in use")

// Lock is an exclusive advisory lock on a run folder: one writer per run, so
// that two processes never interleave records on one line of samples.jsonl.
// The kernel releases it when the process exits, also on a crash or SIGKILL,
// so a stale lock file never blocks a resume.
type Lock struct {
	f *os.File
}

// LockDir takes the run folder dir for this process, creating dir if needed.
// A folder held by another process is refused at once (no waiting) with one
// line naming the holder's pid and command, which the holder wrote into the
// lock file.
func LockDir(dir string, command []string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if held {
		b, _ := os.ReadFile(path)
		f.Close()
		holder := strings.TrimSpace(string(b))
		if holder == "" {
			holder = "another process"
		}
		return nil, fmt.Errorf("%s: %w by %s; wait for it to finish or choose another --run", dir, ErrLocked, holder)
	}
	// Only the holder writes the file, so truncating it is safe.
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d (%s)\n", os.Getpid(), strings.Join(command, " "))
	}
	return &Lock{f: f}, nil
}

// Unlock releases the folder. The file stays: removing it would let a third
// process lock a new inode while a second still waits on the old one.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	unlock(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}

// Holder reports whether a process holds run folder dir's lock (an eval or
// merge still writing it) and, if so, who, as the holder wrote it into the
// lock file. It never takes the lock from a writer: it probes only when the
// lock file names a holder (a writer that finished emptied it), and then
// with a shared lock that it releases at once, so a writer starting at
// that instant is refused only if it loses a race of microseconds.
func Holder(dir string) (string, bool) {
	path := filepath.Join(dir, LockFile)
	b, err := os.ReadFile(path)
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	held, err := tryShared(f)
	if err != nil || !held {
		unlock(f)
		return "", false // a killed writer's stale name
	}
	return strings.TrimSpace(string(b)), true
}
