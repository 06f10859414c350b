package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/forestview"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/text"
)

// ScopeHeader names a request's memory scope; without it the OpenAI
// request's "user" field does.
const ScopeHeader = "X-Arbor-Memory"

// HeuristicHeader is set to "true" on every reply made without a model
// (extractive answer, rule-based memory operations).
const HeuristicHeader = "X-Arbor-Heuristic"

func (s *Server) routes() {
	mux := http.NewServeMux()
	handle := func(pattern, route string, h func(http.ResponseWriter, *http.Request) int) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			code := h(w, r)
			s.metrics.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
		})
	}
	handle("GET /", "page", s.index)
	handle("GET /healthz", "healthz", func(w http.ResponseWriter, _ *http.Request) int {
		return writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "heuristic": s.Heuristic()})
	})
	metrics := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		// Metrics name scopes' counts, not their content, but they are the
		// server's, so they need what any API call needs.
		if ac := s.auth.check(r); ac.status != 0 {
			fail(w, ac.status, "not authorized")
			return
		}
		metrics.ServeHTTP(w, r)
	})
	handle("POST /v1/chat/completions", "chat", s.chat)
	handle("GET /v1/memory", "scopes", s.listScopes)
	handle("GET /v1/memory/{scope}/recall", "recall", s.withScope(s.recall))
	handle("POST /v1/memory/{scope}/commit", "commit", s.withScope(s.commitAPI))
	handle("GET /v1/memory/{scope}/forest", "forest", s.withScope(s.forest))
	handle("DELETE /v1/memory/{scope}", "forget", s.forget)
	s.mux = mux
}

// apiError is the OpenAI-style error body.
type apiError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

func writeJSON(w http.ResponseWriter, code int, v any) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
	return code
}

func fail(w http.ResponseWriter, code int, format string, args ...any) int {
	var e apiError
	e.Error.Message = fmt.Sprintf(format, args...)
	e.Error.Type = strings.ReplaceAll(strings.ToLower(http.StatusText(code)), " ", "_")
	return writeJSON(w, code, e)
}

// authorize checks the caller and the scope; it returns 0 when the request
// may go on, else the status it was refused with.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, scope string) int {
	ac := s.auth.check(r)
	switch {
	case ac.status == http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="arbor"`)
		return fail(w, ac.status, "a valid bearer token is required")
	case ac.status != 0:
		return fail(w, ac.status, "no tokens are configured (serve.tokens): only loopback clients are served")
	case !validScope(scope):
		return fail(w, http.StatusBadRequest, "scope %q: want 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", text.ClipRunes(scope, 80))
	case !ac.allows(scope):
		return fail(w, http.StatusForbidden, "this token may not use scope %q", scope)
	}
	return 0
}

// decode reads a JSON body of at most max_body_bytes into v.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) int {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.Serve.MaxBodyBytes)
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(w, http.StatusRequestEntityTooLarge, "request body over %d bytes (serve.max_body_bytes)", s.cfg.Serve.MaxBodyBytes)
		}
		return fail(w, http.StatusBadRequest, "request body: %v", err)
	}
	return 0
}

// withScope authorizes a memory-API request for its {scope} and runs h with
// the scope loaded, its turns serialised and its last commit settled.
func (s *Server) withScope(h func(w http.ResponseWriter, r *http.Request, sc *scope) int) func(http.ResponseWriter, *http.Request) int {
	return func(w http.ResponseWriter, r *http.Request) int {
		name := r.PathValue("scope")
		if code := s.authorize(w, r, name); code != 0 {
			return code
		}
		sc, leave, err := s.enter(r.Context(), name)
		if err != nil {
			return fail(w, http.StatusInternalServerError, "load scope %s: %v", name, err)
		}
		defer leave()
		return h(w, r, sc)
	}
}

// enter loads scope name and takes its turn lock once its last commit has
// settled; leave gives both back.
func (s *Server) enter(ctx context.Context, name string) (sc *scope, leave func(), err error) {
	sc, err = s.scopes.acquire(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	sc.mu.Lock()
	if err := sc.settle(); err != nil {
		s.log.Warn("background commit failed", "scope", name, "err", err)
	}
	return sc, func() {
		sc.mu.Unlock()
		s.scopes.release(sc)
	}, nil
}

// recall is GET /v1/memory/{scope}/recall?q=&budget=: the evidence bundle a
// question would be answered from, with its localization trace.
func (s *Server) recall(w http.ResponseWriter, r *http.Request, sc *scope) int {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		return fail(w, http.StatusBadRequest, "q: the question is missing")
	}
	budget := s.cfg.Serve.Budget
	if b := r.URL.Query().Get("budget"); b != "" {
		n, err := config.ParseBudget(b)
		if err != nil {
			return fail(w, http.StatusBadRequest, "budget: %v", err)
		}
		budget = n
	}
	start := time.Now()
	bundle, err := sc.sys.Recall(r.Context(), memory.Query{ID: "recall", Text: q, Time: time.Now().UTC(), Budget: budget})
	s.metrics.phase.WithLabelValues("recall").Observe(time.Since(start).Seconds())
	if err != nil {
		return fail(w, http.StatusInternalServerError, "recall: %v", err)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"scope": sc.name, "budget": budget, "tokens": bundle.Tokens(),
		"heuristic": s.Heuristic(), "bundle": bundle})
}

// commitRequest is the body of POST /v1/memory/{scope}/commit: an
// interaction that happened elsewhere.
type commitRequest struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	User      string    `json:"user"`
	Assistant string    `json:"assistant"`
}

// commitAPI is POST /v1/memory/{scope}/commit: the interaction is committed
// before the reply, which names the node and its parent.
func (s *Server) commitAPI(w http.ResponseWriter, r *http.Request, sc *scope) int {
	var req commitRequest
	if code := s.decode(w, r, &req); code != 0 {
		return code
	}
	if strings.TrimSpace(req.User) == "" {
		return fail(w, http.StatusBadRequest, "user: the user message is missing")
	}
	in := s.interaction(sc, req.ID, req.Time, req.User, req.Assistant)
	if _, ok := sc.sys.Forest().Lookup(in.ID); ok {
		return fail(w, http.StatusConflict, "id %q is already committed to scope %s", in.ID, sc.name)
	}
	if err := s.commit(r.Context(), sc, in); err != nil {
		return fail(w, http.StatusInternalServerError, "%v", err)
	}
	parent, _ := sc.sys.ParentOf(in.ID)
	return writeJSON(w, http.StatusOK, map[string]any{"scope": sc.name, "id": in.ID, "parent": parent, "heuristic": s.Heuristic()})
}

// interaction builds the interaction of one turn; id and at default to the
// scope's next number and now.
func (s *Server) interaction(sc *scope, id string, at time.Time, user, assistant string) dialog.Interaction {
	if id == "" {
		id = fmt.Sprintf("t%06d", sc.seq+1)
	}
	if at.IsZero() {
		at = time.Now().UTC()
	}
	turns := []dialog.Turn{{Role: dialog.RoleUser, Content: user}}
	if assistant != "" {
		turns = append(turns, dialog.Turn{Role: dialog.RoleAssistant, Content: assistant})
	}
	return dialog.Interaction{ID: id, Time: at, Turns: turns}
}

// forest is GET /v1/memory/{scope}/forest: branches, nodes and summaries.
func (s *Server) forest(w http.ResponseWriter, _ *http.Request, sc *scope) int {
	return writeJSON(w, http.StatusOK, forestview.Of(sc.name, sc.sys))
}

// listScopes is GET /v1/memory: the scopes the caller may use.
func (s *Server) listScopes(w http.ResponseWriter, r *http.Request) int {
	ac := s.auth.check(r)
	if ac.status != 0 {
		return fail(w, ac.status, "not authorized")
	}
	names, err := s.store.Scopes()
	if err != nil {
		return fail(w, http.StatusInternalServerError, "%v", err)
	}
	loaded := s.scopes.loaded()
	type entry struct {
		Scope  string `json:"scope"`
		Loaded bool   `json:"loaded"`
	}
	out := []entry{}
	for _, n := range names {
		if ac.allows(n) {
			out = append(out, entry{n, loaded[n]})
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"scopes": out})
}

// forget is DELETE /v1/memory/{scope}: the scope's memory is dropped and
// deleted from storage.
func (s *Server) forget(w http.ResponseWriter, r *http.Request) int {
	name := r.PathValue("scope")
	if code := s.authorize(w, r, name); code != 0 {
		return code
	}
	sc, left, err := s.scopes.drop(r.Context(), name)
	if err != nil {
		return fail(w, http.StatusServiceUnavailable, "scope %s is busy: %v", name, err)
	}
	// Until the store has forgotten it, the scope is not loaded again.
	defer left()
	if sc != nil {
		sc.mu.Lock()
		_ = sc.settle()
		sc.mu.Unlock()
	}
	if err := s.store.Delete(name); err != nil {
		return fail(w, http.StatusInternalServerError, "%v", err)
	}
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent
}

// background commits a recorded interaction to the scope's memory after
// its reply; sc.mu is held by the caller, and the next request of the scope
// waits for it (settle).
func (s *Server) background(sc *scope, in dialog.Interaction) {
	done := make(chan struct{})
	sc.pending = done
	go func() {
		defer close(done)
		// The commit outlives the request: a caller that hangs up after its
		// reply must not lose the turn.
		sc.commitErr = s.remember(context.Background(), sc, in)
	}()
}
