package serve

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/arbor-eval/arbor/pkg/dialog"
)

// Store keeps each scope's memory durably: the interactions committed to it,
// in order, and from time to time a snapshot of the memory after a prefix of
// them (FORMAT.md's files). A scope is rebuilt by loading its snapshot and
// committing the interactions after it again. Every write is one
// transaction, so a killed process loses at most the write in flight.
//
// Store is the seam for sharing memory between instances later: the one
// implementation here is an embedded bbolt database (BoltStore).
type Store interface {
	// Open returns the scope's last snapshot (nil when it has none) and the
	// interactions committed after it, in order. An unknown scope is empty.
	Open(scope string) (*Snapshot, []dialog.Interaction, error)
	// Append records an interaction as committed to scope and returns its
	// sequence number (1, 2, …).
	Append(scope string, in dialog.Interaction) (uint64, error)
	// PutSnapshot replaces the scope's snapshot; snap.Seq is the sequence
	// number of the last interaction it holds.
	PutSnapshot(scope string, snap Snapshot) error
	// Delete forgets the scope: its interactions and snapshot.
	Delete(scope string) error
	// Scopes lists the scopes that hold anything, sorted.
	Scopes() ([]string, error)
	Close() error
}

// Snapshot is a saved memory state: the files arbormem's Save writes, by
// name, and the sequence number of the last interaction they include.
type Snapshot struct {
	Seq   uint64
	Files map[string][]byte
}

// BoltStore is a Store in one bbolt file: a bucket per scope holding a "log"
// bucket (sequence number → interaction JSON), a "snap" bucket (file name →
// bytes) and the snapshot's sequence number under "snap_seq".
//
// bbolt (go.etcd.io/bbolt) was chosen over SQLite for a pure-Go build with
// no cgo and one writer: each Append is one fsynced transaction (README,
// dependency table, gives the measured rate).
type BoltStore struct {
	db *bolt.DB
}

var (
	bucketLog     = []byte("log")
	bucketSnap    = []byte("snap")
	keySnapSeq    = []byte("snap_seq")
	errNoSuchSnap = errors.New("snapshot without files")
)

// OpenBolt opens (creating it if needed) the database at path. Only one
// process may hold it: a second one waits up to a second, then fails.
func OpenBolt(path string) (*BoltStore, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("open memory store %s: %w", path, err)
	}
	return &BoltStore{db: db}, nil
}

func seqKey(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

// Open implements Store.
func (s *BoltStore) Open(scope string) (*Snapshot, []dialog.Interaction, error) {
	var snap *Snapshot
	var tail []dialog.Interaction
	err := s.db.View(func(tx *bolt.Tx) error {
		sb := tx.Bucket([]byte(scope))
		if sb == nil {
			return nil
		}
		var after uint64
		if v := sb.Get(keySnapSeq); len(v) == 8 {
			after = binary.BigEndian.Uint64(v)
			files := map[string][]byte{}
			if fb := sb.Bucket(bucketSnap); fb != nil {
				if err := fb.ForEach(func(k, v []byte) error {
					files[string(k)] = append([]byte(nil), v...)
					return nil
				}); err != nil {
					return err
				}
			}
			if len(files) == 0 {
				return errNoSuchSnap
			}
			snap = &Snapshot{Seq: after, Files: files}
		}
		lb := sb.Bucket(bucketLog)
		if lb == nil {
			return nil
		}
		c := lb.Cursor()
		for k, v := c.Seek(seqKey(after + 1)); k != nil; k, v = c.Next() {
			var in dialog.Interaction
			if err := json.Unmarshal(v, &in); err != nil {
				return fmt.Errorf("interaction %d: %w", binary.BigEndian.Uint64(k), err)
			}
			tail = append(tail, in)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("memory store: scope %s: %w", scope, err)
	}
	return snap, tail, nil
}

// Append implements Store.
func (s *BoltStore) Append(scope string, in dialog.Interaction) (uint64, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return 0, fmt.Errorf("memory store: scope %s: %w", scope, err)
	}
	var seq uint64
	err = s.db.Update(func(tx *bolt.Tx) error {
		sb, err := tx.CreateBucketIfNotExists([]byte(scope))
		if err != nil {
			return err
		}
		lb, err := sb.CreateBucketIfNotExists(bucketLog)
		if err != nil {
			return err
		}
		if seq, err = lb.NextSequence(); err != nil {
			return err
		}
		return lb.Put(seqKey(seq), b)
	})
	if err != nil {
		return 0, fmt.Errorf("memory store: scope %s: append: %w", scope, err)
	}
	return seq, nil
}

// PutSnapshot implements Store.
func (s *BoltStore) PutSnapshot(scope string, snap Snapshot) error {
	if len(snap.Files) == 0 {
		return fmt.Errorf("memory store: scope %s: %w", scope, errNoSuchSnap)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		sb, err := tx.CreateBucketIfNotExists([]byte(scope))
		if err != nil {
			return err
		}
		if sb.Bucket(bucketSnap) != nil {
			if err := sb.DeleteBucket(bucketSnap); err != nil {
				return err
			}
		}
		fb, err := sb.CreateBucket(bucketSnap)
		if err != nil {
			return err
		}
		for name, data := range snap.Files {
			if err := fb.Put([]byte(name), data); err != nil {
				return err
			}
		}
		return sb.Put(keySnapSeq, seqKey(snap.Seq))
	})
	if err != nil {
		return fmt.Errorf("memory store: scope %s: snapshot: %w", scope, err)
	}
	return nil
}

// Delete implements Store.
func (s *BoltStore) Delete(scope string) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte(scope)) == nil {
			return nil
		}
		return tx.DeleteBucket([]byte(scope))
	})
	if err != nil {
		return fmt.Errorf("memory store: scope %s: delete: %w", scope, err)
	}
	return nil
}

// Scopes implements Store.
func (s *BoltStore) Scopes() ([]string, error) {
	var out []string
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			out = append(out, string(name))
			return nil
		})
	})
	sort.Strings(out)
	return out, err
}

// Close implements Store.
func (s *BoltStore) Close() error { return s.db.Close() }
