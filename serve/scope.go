package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/dialog"
)

// scopeName is what a scope may be called: it names a bucket of the store
// and a folder of temporary snapshot files, so no separators, no dot
// segments, bounded length.
var scopeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// validScope reports whether name may name a scope.
func validScope(name string) bool { return scopeName.MatchString(name) }

// scope is one loaded memory: one ArborMem instance, its turns serialised by
// mu. A turn's commit runs in the background after its reply (pending); the
// next request of the scope waits for it, so the forest it reads is always
// whole.
type scope struct {
	name string
	mu   sync.Mutex
	sys  *arbormem.System
	// pending is closed when the last background commit has finished
	// (nil: none); commitErr is its error, reported by the next request.
	pending   chan struct{}
	commitErr error
	// sinceSnap counts commits after the stored snapshot; seq is the
	// store's sequence number of the last committed interaction.
	sinceSnap int
	seq       uint64

	// guarded by table.mu
	refs     int
	lastUsed time.Time
}

// settle waits for the scope's background commit; sc.mu is held.
func (sc *scope) settle() error {
	if sc.pending != nil {
		<-sc.pending
		sc.pending = nil
	}
	err := sc.commitErr
	sc.commitErr = nil
	return err
}

// table holds the loaded scopes: loaded on first use, unloaded when idle or
// when more than max are loaded (least recently used first).
type table struct {
	s       *Server
	mu      sync.Mutex
	scopes  map[string]*scope
	loading map[string]chan struct{}
	// leaving holds the scopes being unloaded, closed when done: a load
	// or a forget of the same name waits, so that a late snapshot never
	// lands after either.
	leaving map[string]chan struct{}
}

func newTable(s *Server) *table {
	return &table{s: s, scopes: map[string]*scope{}, loading: map[string]chan struct{}{}, leaving: map[string]chan struct{}{}}
}

// acquire returns the loaded scope, loading it from the store if needed;
// release must follow.
func (t *table) acquire(ctx context.Context, name string) (*scope, error) {
	for {
		t.mu.Lock()
		if sc, ok := t.scopes[name]; ok {
			sc.refs++
			sc.lastUsed = time.Now()
			t.mu.Unlock()
			return sc, nil
		}
		if wait, ok := t.loading[name]; ok {
			t.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if leaving, ok := t.leaving[name]; ok {
			t.mu.Unlock()
			select {
			case <-leaving:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		t.loading[name] = done
		t.mu.Unlock()
		sc, err := t.s.load(ctx, name)
		t.mu.Lock()
		delete(t.loading, name)
		close(done)
		if err != nil {
			t.mu.Unlock()
			return nil, err
		}
		sc.refs, sc.lastUsed = 1, time.Now()
		t.scopes[name] = sc
		evict := t.overflowLocked()
		t.mu.Unlock()
		t.s.unloadAll(evict)
		return sc, nil
	}
}

// release ends a request's use of sc; scopes beyond max_scopes that are
// now idle are unloaded.
func (t *table) release(sc *scope) {
	t.mu.Lock()
	sc.refs--
	sc.lastUsed = time.Now()
	evict := t.overflowLocked()
	t.mu.Unlock()
	t.s.unloadAll(evict)
}

// overflowLocked takes out of the table the least recently used idle
// scopes beyond max_scopes, for the caller to unload.
func (t *table) overflowLocked() []*scope {
	over := len(t.scopes) - t.s.cfg.Serve.MaxScopes
	if over <= 0 {
		return nil
	}
	var idle []*scope
	for _, sc := range t.scopes {
		if sc.refs == 0 {
			idle = append(idle, sc)
		}
	}
	sort.Slice(idle, func(i, j int) bool { return idle[i].lastUsed.Before(idle[j].lastUsed) })
	if len(idle) > over {
		idle = idle[:over]
	}
	for _, sc := range idle {
		delete(t.scopes, sc.name)
	}
	return idle
}

// idle takes out of the table the scopes unused for longer than d.
func (t *table) idle(d time.Duration) []*scope {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*scope
	for name, sc := range t.scopes {
		if sc.refs == 0 && time.Since(sc.lastUsed) > d {
			delete(t.scopes, name)
			out = append(out, sc)
		}
	}
	return out
}

// drop takes name out of the table once no request uses it, no load or
// unload of it is under way, and marks it leaving in the same step (left
// ends that), so that nothing loads it again until the caller is done. It
// returns the scope, nil when it was not loaded.
func (t *table) drop(ctx context.Context, name string) (sc *scope, left func(), err error) {
	for {
		t.mu.Lock()
		var wait <-chan struct{}
		if ch, ok := t.leaving[name]; ok {
			wait = ch
		} else if ch, ok := t.loading[name]; ok {
			wait = ch
		}
		sc = t.scopes[name]
		if wait == nil && (sc == nil || sc.refs == 0) {
			delete(t.scopes, name)
			left := t.leaveLocked(name)
			t.mu.Unlock()
			return sc, left, nil
		}
		t.mu.Unlock()
		var busy <-chan time.Time
		if wait == nil { // in use: requests hold no channel to wait on
			busy = time.After(10 * time.Millisecond)
		}
		select {
		case <-wait:
		case <-busy:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// all takes every scope out of the table (shutdown).
func (t *table) all() []*scope {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*scope, 0, len(t.scopes))
	for name, sc := range t.scopes {
		delete(t.scopes, name)
		out = append(out, sc)
	}
	return out
}

// loaded lists the names of the loaded scopes.
func (t *table) loaded() map[string]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]bool, len(t.scopes))
	for name := range t.scopes {
		out[name] = true
	}
	return out
}

// load rebuilds a scope from the store: its snapshot, then the interactions
// committed after it, committed again.
func (s *Server) load(ctx context.Context, name string) (*scope, error) {
	sys, err := s.newSystem()
	if err != nil {
		return nil, err
	}
	snap, tail, err := s.store.Open(name)
	if err != nil {
		return nil, err
	}
	sc := &scope{name: name, sys: sys}
	if snap != nil {
		dir, err := os.MkdirTemp(s.tmpDir, "load-*")
		if err != nil {
			return nil, fmt.Errorf("scope %s: %w", name, err)
		}
		defer os.RemoveAll(dir)
		for file, data := range snap.Files {
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(file)), data, 0o600); err != nil {
				return nil, fmt.Errorf("scope %s: %w", name, err)
			}
		}
		if err := sys.Load(ctx, dir); err != nil {
			return nil, fmt.Errorf("scope %s: snapshot: %w", name, err)
		}
		sc.seq = snap.Seq
	}
	for _, in := range tail {
		sc.seq++
		sc.sinceSnap++
		if err := sys.Commit(ctx, in); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// The same interaction failed when it was first committed (its
			// reply already went out): the memory goes on without it.
			s.log.Warn("replayed interaction not committed", "scope", name, "id", in.ID, "err", err)
		}
	}
	s.metrics.loads.Inc()
	return sc, nil
}

// commit records in as committed to sc (durably first, so that a restart
// replays it) and commits it to the memory; sc.mu is held.
func (s *Server) commit(ctx context.Context, sc *scope, in dialog.Interaction) error {
	if err := s.record(sc, in); err != nil {
		return err
	}
	return s.remember(ctx, sc, in)
}

// record appends in to the scope's log: from here on a restart commits it.
func (s *Server) record(sc *scope, in dialog.Interaction) error {
	seq, err := s.store.Append(sc.name, in)
	if err != nil {
		return err
	}
	sc.seq = seq
	return nil
}

// remember commits a recorded interaction to the scope's memory, and
// snapshots the memory every snapshot_every commits.
func (s *Server) remember(ctx context.Context, sc *scope, in dialog.Interaction) error {
	start := time.Now()
	err := sc.sys.Commit(ctx, in)
	s.metrics.phase.WithLabelValues("commit").Observe(time.Since(start).Seconds())
	sc.sinceSnap++
	if err != nil {
		return fmt.Errorf("scope %s: commit %s: %w", sc.name, in.ID, err)
	}
	if sc.sinceSnap >= s.cfg.Serve.SnapshotEvery {
		return s.snapshot(ctx, sc)
	}
	return nil
}

// snapshot stores sc's memory as it is now; sc.mu is held and no commit
// is running.
func (s *Server) snapshot(ctx context.Context, sc *scope) error {
	if sc.sinceSnap == 0 {
		return nil
	}
	dir, err := os.MkdirTemp(s.tmpDir, "save-*")
	if err != nil {
		return fmt.Errorf("scope %s: snapshot: %w", sc.name, err)
	}
	defer os.RemoveAll(dir)
	if err := sc.sys.Save(ctx, dir); err != nil {
		return fmt.Errorf("scope %s: snapshot: %w", sc.name, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("scope %s: snapshot: %w", sc.name, err)
	}
	snap := Snapshot{Seq: sc.seq, Files: map[string][]byte{}}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("scope %s: snapshot: %w", sc.name, err)
		}
		snap.Files[e.Name()] = b
	}
	if err := s.store.PutSnapshot(sc.name, snap); err != nil {
		return err
	}
	sc.sinceSnap = 0
	return nil
}

// unloadAll unloads scopes taken out of the table, in the background: a
// request does not wait for another scope's snapshot. Close waits for them.
func (s *Server) unloadAll(scs []*scope) {
	for _, sc := range scs {
		left := s.scopes.leave(sc.name)
		s.unloading.Add(1)
		go func() {
			defer s.unloading.Done()
			defer left()
			s.unload(sc)
		}()
	}
}

// leave marks name as leaving until the returned func is called: loads and
// forgets of it wait meanwhile. name must not be leaving already, which
// holds for a scope just taken out of the table (its load waited).
func (t *table) leave(name string) func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.leaveLocked(name)
}

// leaveLocked is leave with t.mu held.
func (t *table) leaveLocked(name string) func() {
	done := make(chan struct{})
	t.leaving[name] = done
	return func() {
		t.mu.Lock()
		delete(t.leaving, name)
		t.mu.Unlock()
		close(done)
	}
}

// unload finishes a scope taken out of the table: its background commit,
// then a snapshot so that the next load replays little.
func (s *Server) unload(sc *scope) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if err := sc.settle(); err != nil {
		s.log.Warn("commit failed before unload", "scope", sc.name, "err", err)
	}
	if err := s.snapshot(context.Background(), sc); err != nil {
		s.log.Warn("snapshot failed at unload; the next load replays the log", "scope", sc.name, "err", err)
	}
	s.metrics.unloads.Inc()
}
