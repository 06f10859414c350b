package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Member is one endpoint of a pool.
type Member[T any] struct {
	Client T
	// URL identifies the endpoint in errors and logs (no credentials).
	URL string
	// MaxInflight bounds concurrent requests to this endpoint.
	MaxInflight int
	// Timeout bounds one request (0: none beyond the caller's context).
	Timeout time.Duration
}

// PoolOptions configure ejection of failing endpoints.
type PoolOptions struct {
	// Role names the pool in errors and logs.
	Role string
	// FailuresToEject consecutive failures (connection errors, timeouts,
	// 5xx, garbled replies) take an endpoint out for EjectFor; then one
	// probe request is let through, and success restores it. 0 never ejects.
	FailuresToEject int
	EjectFor        time.Duration
	// DeadAfter gives the role up once every endpoint has been failing
	// (connection errors, timeouts, 5xx; no success since) for this long:
	// from then on every call fails at once with a *DeadError, instead of
	// spending its retries and backoff on servers that are gone while the
	// run crawls. 0 never gives up.
	DeadAfter time.Duration
	// Logger receives ejections (nil: silent).
	Logger *slog.Logger
}

// ErrDead is wrapped by a *DeadError: every endpoint of a role has been
// failing for longer than PoolOptions.DeadAfter. It is not retried.
var ErrDead = errors.New("every endpoint failing")

// DeadError says which role gave up, after how long, and the last failure.
type DeadError struct {
	Role string
	// For is how long every endpoint had been failing (DeadAfter).
	For time.Duration
	// Last is the last failure, naming its endpoint.
	Last string
}

// Error reads "chat: every endpoint failing for 1m0s (last: ...)".
func (e *DeadError) Error() string {
	return fmt.Sprintf("%s: %v for %s (last: %s)", e.Role, ErrDead, e.For, e.Last)
}

// Unwrap makes errors.Is(err, ErrDead) hold.
func (e *DeadError) Unwrap() error { return ErrDead }

// Pool spreads requests over endpoints serving the same model: each request
// goes to the endpoint with the fewest requests in flight (ties rotate), never
// past an endpoint's MaxInflight; when every endpoint is full the caller
// waits for a free slot or for its context to end.
type Pool[T any] struct {
	opts    PoolOptions
	mu      sync.Mutex
	members []*member[T]
	cursor  int
	wake    chan struct{} // closed on every release while someone waits
}

type member[T any] struct {
	Member[T]
	inflight     int
	requests     int64
	failures     int
	ejectedUntil time.Time
	// failingSince is the first endpoint fault since the last success
	// (zero while healthy or not yet tried); lastErr the latest fault.
	failingSince time.Time
	lastErr      string
}

// NewPool returns a pool over ms (MaxInflight < 1 counts as 1).
func NewPool[T any](ms []Member[T], opts PoolOptions) *Pool[T] {
	p := &Pool[T]{opts: opts}
	for _, m := range ms {
		m.MaxInflight = max(m.MaxInflight, 1)
		p.members = append(p.members, &member[T]{Member: m})
	}
	return p
}

// Capacity is the sum of the members' MaxInflight.
func (p *Pool[T]) Capacity() int {
	n := 0
	for _, m := range p.members {
		n += m.MaxInflight
	}
	return n
}

// attempt is shared between the retry layer and the pool through the
// context: the pool notes which endpoints failed this request, and the next
// attempt goes to another one, waiting for a busy healthy endpoint rather
// than returning at once to a failed one (a dead endpoint fails fast and has
// nothing in flight, so "least in flight" alone would keep choosing it
// until it is ejected). Only when every usable endpoint has failed the
// request is a failed one tried again.
type attempt struct {
	mu     sync.Mutex
	failed map[any]bool
}

func (a *attempt) avoids(m any) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.failed[m]
}

func (a *attempt) fail(m any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failed == nil {
		a.failed = map[any]bool{}
	}
	a.failed[m] = true
}

type attemptKey struct{}

// Do runs fn on a chosen endpoint with that endpoint's timeout. Errors are
// prefixed with the role and endpoint; a timeout with the caller's context
// still alive becomes ErrTimeout.
func (p *Pool[T]) Do(ctx context.Context, fn func(context.Context, T) error) error {
	if len(p.members) == 0 {
		return fmt.Errorf("%s: no endpoints configured", p.opts.Role)
	}
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	m, err := p.acquire(ctx, a)
	if errors.Is(err, ErrDead) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%s: waiting for a free endpoint: %w", p.opts.Role, err)
	}
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if m.Timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, m.Timeout)
	}
	err = fn(cctx, m.Client)
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) && !errors.Is(err, ErrTimeout) {
		err = fmt.Errorf("%w after %s: %v", ErrTimeout, m.Timeout, err)
	}
	cancel()
	p.release(m, err, err != nil && ctx.Err() == nil && endpointFault(err))
	if err != nil {
		if a != nil {
			a.fail(m)
		}
		return fmt.Errorf("%s endpoint %s: %w", p.opts.Role, m.URL, err)
	}
	return nil
}

func (p *Pool[T]) acquire(ctx context.Context, a *attempt) (*member[T], error) {
	for {
		p.mu.Lock()
		now := time.Now()
		if err := p.deadLocked(now); err != nil {
			p.mu.Unlock()
			return nil, err
		}
		m, reprobe := p.pick(now, a)
		if m != nil {
			m.inflight++
			m.requests++
			p.mu.Unlock()
			return m, nil
		}
		if p.wake == nil {
			p.wake = make(chan struct{})
		}
		wake := p.wake
		// A caller waiting for an ejected endpoint wakes when the role
		// would be given up, so that it fails then rather than at the next
		// re-probe.
		if d, failing := p.failingForLocked(now); failing && p.opts.DeadAfter > 0 {
			if left := p.opts.DeadAfter - d; reprobe == 0 || left < reprobe {
				reprobe = max(left, time.Millisecond)
			}
		}
		p.mu.Unlock()
		var timer *time.Timer
		var timeout <-chan time.Time
		if reprobe > 0 {
			timer = time.NewTimer(reprobe)
			timeout = timer.C
		}
		select {
		case <-wake:
		case <-timeout:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// pick chooses a member (nil if none has a free slot) and, when some are
// ejected, how long until the first may be probed again. A member that
// already failed this request is chosen only when no other usable member
// exists, busy or not. Called with p.mu held.
func (p *Pool[T]) pick(now time.Time, a *attempt) (*member[T], time.Duration) {
	var best, avoided *member[T]
	var reprobe time.Duration
	busyFresh := false // a member that has not failed this request is full
	n := len(p.members)
	start := p.cursor
	p.cursor = (p.cursor + 1) % n
	for i := range n {
		m := p.members[(start+i)%n]
		if p.ejected(m) && now.Before(m.ejectedUntil) {
			if d := m.ejectedUntil.Sub(now); reprobe == 0 || d < reprobe {
				reprobe = d
			}
			continue
		}
		limit := m.MaxInflight
		if p.ejected(m) {
			limit = 1 // probing after ejection: one request at a time
		}
		failed := a.avoids(m)
		if m.inflight >= limit {
			busyFresh = busyFresh || !failed
			continue
		}
		if failed {
			avoided = m
			continue
		}
		if best == nil || m.inflight < best.inflight {
			best = m
		}
	}
	if best == nil && !busyFresh {
		best = avoided
	}
	return best, reprobe
}

func (p *Pool[T]) ejected(m *member[T]) bool {
	return p.opts.FailuresToEject > 0 && m.failures >= p.opts.FailuresToEject
}

// Failing reports how long every endpoint has been failing (the time since
// the last of them started to fail), and false while any is healthy or
// untried: what a progress line shows while a run stalls on dead servers.
func (p *Pool[T]) Failing() (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failingForLocked(time.Now())
}

func (p *Pool[T]) failingForLocked(now time.Time) (time.Duration, bool) {
	if len(p.members) == 0 {
		return 0, false
	}
	var latest time.Time
	for _, m := range p.members {
		if m.failingSince.IsZero() {
			return 0, false
		}
		if m.failingSince.After(latest) {
			latest = m.failingSince
		}
	}
	return now.Sub(latest), true
}

// Dead returns a *DeadError once every endpoint has been failing for
// PoolOptions.DeadAfter, else nil.
func (p *Pool[T]) Dead() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.deadLocked(time.Now())
}

func (p *Pool[T]) deadLocked(now time.Time) error {
	if p.opts.DeadAfter <= 0 {
		return nil
	}
	d, failing := p.failingForLocked(now)
	if !failing || d < p.opts.DeadAfter {
		return nil
	}
	last := ""
	var lastAt time.Time
	for _, m := range p.members {
		if !m.failingSince.Before(lastAt) {
			lastAt, last = m.failingSince, m.URL+": "+m.lastErr
		}
	}
	return &DeadError{Role: p.opts.Role, For: p.opts.DeadAfter, Last: last}
}

func (p *Pool[T]) release(m *member[T], err error, fault bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.inflight--
	switch {
	case err == nil:
		m.failures = 0
		m.failingSince = time.Time{}
	case fault:
		if m.failingSince.IsZero() {
			m.failingSince = time.Now()
		}
		m.lastErr = err.Error()
		if len(m.lastErr) > 200 { // not inside a rune: the text is shown
			m.lastErr = strings.ToValidUTF8(m.lastErr[:200], "") + "…"
		}
		m.failures++
		if p.ejected(m) {
			m.ejectedUntil = time.Now().Add(p.opts.EjectFor)
			if p.opts.Logger != nil {
				p.opts.Logger.Warn("endpoint ejected", "role", p.opts.Role, "url", m.URL,
					"consecutive_failures", m.failures, "retry_in", p.opts.EjectFor)
			}
		}
	}
	if p.wake != nil {
		close(p.wake)
		p.wake = nil
	}
}

// MemberStats is one endpoint's state.
type MemberStats struct {
	URL      string
	Requests int64
	Inflight int
	Failures int
	Ejected  bool
}

// Stats returns the members' state.
func (p *Pool[T]) Stats() []MemberStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	out := make([]MemberStats, len(p.members))
	for i, m := range p.members {
		out[i] = MemberStats{URL: m.URL, Requests: m.requests, Inflight: m.inflight, Failures: m.failures,
			Ejected: p.ejected(m) && now.Before(m.ejectedUntil)}
	}
	return out
}

// PoolChat is a Client that sends each request through p.
func PoolChat(p *Pool[Client]) Client {
	return chatFunc(func(ctx context.Context, req ChatRequest) (resp ChatResponse, err error) {
		err = p.Do(ctx, func(ctx context.Context, c Client) error {
			resp, err = c.Chat(ctx, req)
			return err
		})
		return resp, err
	})
}

// PoolEmbed is an Embedder of dimension dim that sends each call through p.
func PoolEmbed(p *Pool[Embedder], dim int) Embedder {
	return embedFunc{dim: func() int { return dim }, fn: func(ctx context.Context, texts []string) (out [][]float32, err error) {
		err = p.Do(ctx, func(ctx context.Context, e Embedder) error {
			out, err = e.Embed(ctx, texts)
			return err
		})
		return out, err
	}}
}

// PoolRerank is a Reranker that sends each call through p.
func PoolRerank(p *Pool[Reranker]) Reranker {
	return rerankFunc(func(ctx context.Context, q string, docs []string) (out []float64, err error) {
		err = p.Do(ctx, func(ctx context.Context, r Reranker) error {
			out, err = r.Rerank(ctx, q, docs)
			return err
		})
		return out, err
	})
}

// PoolTokenizer is a Tokenizer that sends each call through p.
func PoolTokenizer(p *Pool[Tokenizer]) Tokenizer {
	return tokenizeFunc(func(ctx context.Context, text string) (n int, err error) {
		err = p.Do(ctx, func(ctx context.Context, t Tokenizer) error {
			n, err = t.Tokenize(ctx, text)
			return err
		})
		return n, err
	})
}

// DisplayURL drops credentials (user:password@) from an endpoint URL so it
// can be printed, logged and stored in manifests.
func DisplayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable url)"
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}
