// Package staletemp removes the temporary files a killed writer left
// behind: a write made through a temporary file renames it within
// milliseconds, so one older than a minute belongs to a process that died
// mid-write. pkg/record (atomic writes of run files) and pkg/llm (the
// response cache) both clean up with it.
package staletemp

import (
	"os"
	"path/filepath"
	"time"
)

// Age is how old a temporary file must be to be taken for a killed
// writer's.
const Age = time.Minute

// Remove deletes the regular files of dir for which match (nil: every
// file) holds and that were last modified more than Age ago, and returns
// how many it removed. A file it cannot remove (a read-only folder) is left
// for a later call.
func Remove(dir string, match func(name string) bool) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	cutoff := time.Now().Add(-Age)
	n := 0
	for _, e := range ents {
		if match != nil && !match(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}
