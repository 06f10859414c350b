package runners

import (
	"sync"

	"github.com/arbor-eval/arbor/pkg/record"
)

// resumable is a record log that a resumed run consults: a key counts as
// done when it is recorded, unless its latest record failed and the run
// redoes failures (Plan.RetryErrors), in which case the new record
// supersedes the old line.
type resumable[T any] struct {
	*record.Log[T]
	key    func(T) string
	failed func(T) bool
	retry  bool
	mu     sync.Mutex
	redo   map[string]bool
	// failedBefore holds the keys whose latest record, when the log was
	// opened, had failed.
	failedBefore map[string]bool
}

// openResumable opens the log at path; with retry, keys whose latest record
// failed are marked to be redone.
func openResumable[T any](path string, key func(T) string, failed func(T) bool, retry bool) (*resumable[T], error) {
	l, prev, err := record.OpenLog(path, key)
	if err != nil {
		return nil, err
	}
	r := &resumable[T]{Log: l, key: key, failed: failed, retry: retry, redo: map[string]bool{}, failedBefore: map[string]bool{}}
	for _, rec := range record.Latest(prev, key) {
		if failed(rec) {
			r.failedBefore[key(rec)] = true
			if retry {
				r.redo[key(rec)] = true
			}
		}
	}
	return r, nil
}

// done reports whether k is recorded and not due to be redone.
func (r *resumable[T]) done(k string) bool {
	if !r.Has(k) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.redo[k]
}

// write records rec; a redone record supersedes the old line. With retry, a
// failed record is itself marked to be redone (merge: a later source's good
// record replaces it).
func (r *resumable[T]) write(rec T) error {
	k := r.key(rec)
	r.mu.Lock()
	redo := r.redo[k]
	if r.retry && r.failed(rec) {
		r.redo[k] = true
	} else {
		delete(r.redo, k)
	}
	r.mu.Unlock()
	if redo {
		return r.Supersede(rec)
	}
	_, err := r.Append(rec)
	return err
}
