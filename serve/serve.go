// Package serve is `arbor serve`: ArborMem as a live, persistent memory in
// front of any OpenAI-compatible chat model. A caller sends only the new
// user message and a memory scope; the server localizes the turn in the
// scope's forest, assembles the paper's message layout within the
// configured budget (paper §4.3, appendix D), forwards it to the chat role's
// endpoints through the same client pool the benchmarks use, relays the
// reply, and commits the finished interaction in the background (§4.4). The
// same arbormem.System the tables measured does the work; with the offline
// default the reply is the extractive answerer's and the memory is
// heuristic, and every response says so.
//
// Memory lives in an embedded database (Store) as the committed
// interactions plus periodic snapshots, so that a killed process loses at
// most the commit in flight and a restart rebuilds every scope.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/answer"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// Options configure a Server.
type Options struct {
	// Config is the run configuration; its serve section and model roles
	// are used.
	Config *config.Config
	// DataDir holds the memory database (memory.db) and temporary snapshot
	// files.
	DataDir string
	// Logger receives warnings; nil uses slog.Default(). Request bodies
	// and tokens are never logged.
	Logger *slog.Logger
}

// Server is a running memory service; Handler serves its HTTP API.
type Server struct {
	cfg      *config.Config
	models   *provider.Set
	prompts  *prompt.Set
	answerer answer.Answerer
	store    Store
	tmpDir   string
	log      *slog.Logger
	scopes   *table
	metrics  *metrics
	auth     authorizer
	mux      *http.ServeMux
	stop     chan struct{}
	stopped  chan struct{}
	// unloading counts scopes being unloaded in the background.
	unloading sync.WaitGroup
	closing   sync.Once
	closeErr  error
}

// New opens the memory database in opts.DataDir and builds the model
// clients. It makes no network call.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Config == nil {
		return nil, errors.New("serve: nil config")
	}
	if opts.DataDir == "" {
		return nil, errors.New("serve: no data directory (--data-dir)")
	}
	tmp := filepath.Join(opts.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("serve: data directory: %w", err)
	}
	// Snapshot files of a killed process are of no use: the database holds
	// what was committed.
	if old, err := os.ReadDir(tmp); err == nil {
		for _, e := range old {
			_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
	store, err := OpenBolt(filepath.Join(opts.DataDir, "memory.db"))
	if err != nil {
		return nil, err
	}
	s, err := NewWithStore(ctx, opts, store)
	if err != nil {
		store.Close()
		return nil, err
	}
	return s, nil
}

// NewWithStore is New with a store of the caller's (a shared database
// later; tests).
func NewWithStore(ctx context.Context, opts Options, store Store) (*Server, error) {
	cfg := opts.Config
	models, err := provider.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	prompts, err := prompt.Load(cfg.PromptsDir)
	if err != nil {
		return nil, err
	}
	ans, err := answer.New(cfg, models.Chat, prompts)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	tmp := filepath.Join(opts.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("serve: data directory: %w", err)
	}
	s := &Server{cfg: cfg, models: models, prompts: prompts, answerer: ans, store: store, tmpDir: tmp, log: log,
		auth: newAuthorizer(cfg.Serve.Tokens), stop: make(chan struct{}), stopped: make(chan struct{})}
	s.scopes = newTable(s)
	s.metrics = newMetrics(s)
	if _, err := s.newSystem(); err != nil {
		return nil, err
	}
	s.routes()
	go s.janitor()
	return s, nil
}

// newSystem builds an empty ArborMem instance as the benchmarks do.
func (s *Server) newSystem() (*arbormem.System, error) {
	return arbormem.New(s.cfg.ArborMem, arbormem.DepsFor(s.cfg, s.cfg.ArborMem, s.models, s.prompts, false))
}

// Heuristic reports whether replies and memory operations are the offline
// rule-based stand-ins (no chat model configured).
func (s *Server) Heuristic() bool {
	return s.answerer.Heuristic() || !s.cfg.UseChat(s.cfg.ArborMem.Extractors)
}

// Handler is the server's HTTP API.
func (s *Server) Handler() http.Handler { return s.mux }

// janitor unloads idle scopes until Close.
func (s *Server) janitor() {
	defer close(s.stopped)
	every := s.cfg.Serve.IdleTimeout / 4
	if every < time.Second {
		every = time.Second
	}
	tk := time.NewTicker(every)
	defer tk.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tk.C:
			s.unloadAll(s.scopes.idle(s.cfg.Serve.IdleTimeout))
		}
	}
}

// Close finishes every scope's pending commit, snapshots it, and closes
// the database and the model clients. It may be called more than once.
func (s *Server) Close() error {
	s.closing.Do(func() {
		close(s.stop)
		<-s.stopped
		s.unloadAll(s.scopes.all())
		s.unloading.Wait()
		s.closeErr = errors.Join(s.store.Close(), s.models.Close())
	})
	return s.closeErr
}

// ListenAndServe serves on addr until ctx is done, then shuts down
// gracefully (requests in flight finish, pending commits are written).
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return errors.Join(err, s.Close())
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	return errors.Join(err, s.Close())
}
