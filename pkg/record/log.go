package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Log is an append-only JSONL file of records of type T. Every Append is one
// write(2) of a complete line (AppendNew one of complete lines), so a
// killed process loses at most the line it was writing; Open detects such
// a torn last line and cuts it off.
type Log[T any] struct {
	mu   sync.Mutex
	f    *os.File
	path string
	key  func(T) string
	seen map[string]bool
	// Repaired is the number of bytes cut from a torn last line at Open.
	Repaired int64
}

// OpenLog opens (creating if needed) the log at path, repairs a torn last
// line, and indexes the keys already recorded. A malformed line that is not
// the last is an error naming the line: it means the file was edited by hand.
func OpenLog[T any](path string, key func(T) string) (*Log[T], []T, error) {
	recs, good, size, err := readLog[T](path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	l := &Log[T]{f: f, path: path, key: key, seen: map[string]bool{}}
	if good < size {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("repair %s: %w", path, err)
		}
		l.Repaired = size - good
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, nil, err
	}
	for _, r := range recs {
		l.seen[key(r)] = true
	}
	return l, recs, nil
}

// ReadLog reads every complete record of a log without modifying it; a torn
// last line is ignored.
func ReadLog[T any](path string) ([]T, error) {
	recs, _, _, err := readLog[T](path)
	return recs, err
}

// readLog returns the records, the byte offset just after the last good
// line, and the file size.
func readLog[T any](path string) ([]T, int64, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var (
		recs []T
		off  int64
		line int
	)
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			line++
			complete := b[len(b)-1] == '\n'
			var rec T
			body := bytes.TrimSpace(b)
			if len(body) == 0 && complete {
				off += int64(len(b))
				continue
			}
			if jerr := json.Unmarshal(body, &rec); jerr != nil || !complete {
				if !complete || isLast(r) {
					// A torn final line from a killed writer: not fatal.
					return recs, off, st.Size(), nil
				}
				return nil, 0, 0, fmt.Errorf("%s: line %d: %v", path, line, jerr)
			}
			recs = append(recs, rec)
			off += int64(len(b))
		}
		if err == io.EOF {
			return recs, off, st.Size(), nil
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

func isLast(r *bufio.Reader) bool {
	_, err := r.Peek(1)
	return err != nil
}

// Has reports whether a record with this key is already in the log.
func (l *Log[T]) Has(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[key]
}

// Append writes rec as one line unless its key is already recorded; it
// reports whether it wrote.
func (l *Log[T]) Append(rec T) (bool, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return false, fmt.Errorf("encode record: %w", err)
	}
	b = append(b, '\n')
	k := l.key(rec)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[k] {
		return false, nil
	}
	if _, err := l.f.Write(b); err != nil {
		return false, fmt.Errorf("append %s: %w", l.path, err)
	}
	l.seen[k] = true
	return true, nil
}

// AppendNew writes a line for each of recs whose key is neither recorded
// nor earlier in recs, in order and in one write(2), and reports how many
// it wrote: a bundle's new evidence texts, which were a write each.
func (l *Log[T]) AppendNew(recs []T) (int, error) {
	l.mu.Lock()
	fresh := make([]int, 0, len(recs))
	batch := map[string]bool{}
	for i, r := range recs {
		if k := l.key(r); !l.seen[k] && !batch[k] {
			batch[k] = true
			fresh = append(fresh, i)
		}
	}
	l.mu.Unlock()
	if len(fresh) == 0 {
		return 0, nil
	}
	// Encoded outside the lock, as Append does; a record another writer
	// recorded meanwhile is left out below.
	lines := make([][]byte, len(fresh))
	for j, i := range fresh {
		b, err := json.Marshal(recs[i])
		if err != nil {
			return 0, fmt.Errorf("encode record: %w", err)
		}
		lines[j] = append(b, '\n')
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var buf []byte
	var keys []string
	for j, i := range fresh {
		if k := l.key(recs[i]); !l.seen[k] {
			buf = append(buf, lines[j]...)
			keys = append(keys, k)
		}
	}
	if len(buf) == 0 {
		return 0, nil
	}
	if _, err := l.f.Write(buf); err != nil {
		return 0, fmt.Errorf("append %s: %w", l.path, err)
	}
	for _, k := range keys {
		l.seen[k] = true
	}
	return len(keys), nil
}

// Supersede writes rec even if its key is already recorded: the newer line
// replaces the older one for every reader (see Latest). Used to redo error
// samples on resume.
func (l *Log[T]) Supersede(rec T) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append %s: %w", l.path, err)
	}
	l.seen[l.key(rec)] = true
	return nil
}

// Latest keeps the last record of each key, in the order of those last
// records, so that a superseding line wins.
func Latest[T any](recs []T, key func(T) string) []T {
	last := make(map[string]int, len(recs))
	for i, r := range recs {
		last[key(r)] = i
	}
	out := make([]T, 0, len(last))
	for i, r := range recs {
		if last[key(r)] == i {
			out = append(out, r)
		}
	}
	return out
}

// Close syncs and closes the file.
func (l *Log[T]) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.Sync(); err != nil {
		l.f.Close()
		return err
	}
	return l.f.Close()
}
