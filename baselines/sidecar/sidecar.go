// Package sidecar runs memory systems that live outside arbor (Mem0, A-MEM,
// Graphiti, LiCoMemory: paper §6.1) through their real libraries in helper
// processes ("sidecars") that speak JSON lines on stdin/stdout
// (PROTOCOL.md). One process serves one episode at a time; a Pool starts
// one per concurrently running episode and reuses it, reset, for the next.
//
// A System is the memory.System of one episode on one process. The bundle a
// sidecar returns is recounted with arbor's token counter and packed to the
// query's budget in the sidecar's rank order; runners.Prefiltered asks for
// twice the answer budget first (paper appendix C.4) and packs again.
package sidecar

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// Version is the protocol version arbor speaks; a sidecar's hello must
// answer with the same.
const Version = 1

// Spec says how to start one system's sidecar and what to tell it.
type Spec struct {
	// System is arbor's name for it ("mem0", "amem", "graphiti", "licomemory").
	System string
	// Command is the argv that starts one process; Dir its working folder.
	Command []string
	Dir     string
	// Env is added to arbor's environment (KEY=value); API keys travel here
	// and never in the protocol.
	Env []string
	// Install says how to install or start the sidecar; every error names it.
	Install string
	// Timeout bounds each request after the handshake; StartTimeout bounds
	// the start and handshake.
	Timeout      time.Duration
	StartTimeout time.Duration
	// TopK is how many units a recall asks for (paper appendix C.1:
	// "Up to 50 memory units before final evidence packing").
	TopK int
	// Hello is sent at start: endpoints and the system's options.
	Hello Hello
	// Chats, when set, are the chat endpoints the processes are spread
	// over: process n gets Chats[n mod len] as Hello.Chat.
	Chats []Endpoint
}

func (s *Spec) fail(format string, args ...any) error {
	return fmt.Errorf("%s sidecar: %s", s.System, fmt.Sprintf(format, args...))
}

func (s *Spec) hint() string {
	if s.Install == "" {
		return "check bridges." + s.System + ".command"
	}
	return s.Install
}

// Hello is the handshake request.
type Hello struct {
	Protocol int    `json:"protocol"`
	System   string `json:"system"`
	// Chat and Embed are the endpoints the sidecar's library calls.
	Chat  Endpoint `json:"chat"`
	Embed Endpoint `json:"embed"`
	// Options are the system's own settings (bridges.<system>.options plus
	// arbor's: benchmark, update_every, ...).
	Options map[string]any `json:"options,omitempty"`
}

// Endpoint is an OpenAI-compatible endpoint as a sidecar sees it.
type Endpoint struct {
	// BaseURL ends in /v1, as OpenAI clients expect.
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
	// APIKeyEnv names the environment variable holding the key, if any.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// Dim is the embedding dimension (embed only).
	Dim int `json:"dim,omitempty"`
	// Temperature is sent with every chat call the sidecar can control.
	Temperature *float64 `json:"temperature,omitempty"`
}

// HelloReply is the handshake answer.
type HelloReply struct {
	Protocol int    `json:"protocol"`
	System   string `json:"system"`
	// Library and LibraryVersion name what is really installed;
	// WrittenAgainst is the version the sidecar was written and tested for.
	Library        string `json:"library"`
	LibraryVersion string `json:"library_version"`
	WrittenAgainst string `json:"written_against"`
}

// WireUsage is a sidecar's model calls for one role since its previous reply.
type WireUsage struct {
	Calls            int `json:"calls"`
	Errors           int `json:"errors"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// WireInteraction is an interaction as sent in commit.
type WireInteraction struct {
	ID      string     `json:"id"`
	Session string     `json:"session,omitempty"`
	Time    string     `json:"time,omitempty"` // RFC 3339; empty when unknown
	Turns   []WireTurn `json:"turns"`
}

// WireTurn is one message of an interaction.
type WireTurn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// WireItem is one unit of a recall reply, in the system's rank order.
type WireItem struct {
	Text    string   `json:"text"`
	Score   float64  `json:"score"`
	Time    string   `json:"time,omitempty"`
	Sources []string `json:"sources"`
	Channel string   `json:"channel,omitempty"`
}

// FlushReply is the sidecar's account of its ingestion once everything
// committed so far is really processed.
type FlushReply struct {
	// Interactions received; Pending buffered for a later batch (Graphiti's
	// every-8 updates on BranchMemEval); Failed whose ingestion raised.
	Interactions int `json:"interactions"`
	Pending      int `json:"pending"`
	Failed       int `json:"failed"`
	// Units is what the library holds for the episode (memories, notes,
	// facts, chunks).
	Units int `json:"units"`
}

// Pool starts and reuses the processes of one system.
type Pool struct {
	spec    Spec
	counter tokens.Counter

	mu      sync.Mutex
	idle    []*proc
	live    map[*proc]bool
	started int
	closed  bool
}

// NewPool makes a pool for spec; no process starts before the first episode.
// Counter counts evidence tokens in the answer model's tokenizer.
func NewPool(spec Spec, counter tokens.Counter) *Pool {
	if spec.Timeout <= 0 {
		spec.Timeout = 5 * time.Minute
	}
	if spec.StartTimeout <= 0 {
		spec.StartTimeout = time.Minute
	}
	if spec.TopK <= 0 {
		spec.TopK = 50
	}
	spec.Hello.Protocol, spec.Hello.System = Version, spec.System
	return &Pool{spec: spec, counter: counter, live: map[*proc]bool{}}
}

// Factory makes the memory.System of one episode: an idle process reset
// for it, or a new one.
func (p *Pool) Factory() memory.Factory {
	return func(ctx context.Context, episode string) (memory.System, error) {
		pr, err := p.acquire(ctx)
		if err != nil {
			return nil, err
		}
		if err := pr.call(ctx, "reset", map[string]string{"episode": episode}, nil, p.spec.Timeout); err != nil {
			p.release(pr)
			return nil, err
		}
		return &System{pool: p, proc: pr, episode: episode, errorsBase: pr.modelErrors}, nil
	}
}

// Check starts one process, performs the handshake and stops it
// (`arbor endpoints check`).
func (p *Pool) Check(ctx context.Context) (HelloReply, error) {
	pr, err := start(ctx, &p.spec, p.spec.Hello)
	if err != nil {
		return HelloReply{}, err
	}
	defer pr.close()
	return pr.hello, nil
}

// Spec returns the pool's spec with its defaults applied.
func (p *Pool) Spec() Spec { return p.spec }

// Live counts the running processes (idle or serving an episode).
func (p *Pool) Live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.live)
}

func (p *Pool) acquire(ctx context.Context) (*proc, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, p.spec.fail("the pool is closed")
	}
	if n := len(p.idle); n > 0 {
		pr := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return pr, nil
	}
	hello := p.spec.Hello
	if n := len(p.spec.Chats); n > 0 {
		hello.Chat = p.spec.Chats[p.started%n]
	}
	p.started++
	p.mu.Unlock()
	pr, err := start(ctx, &p.spec, hello)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		pr.close()
		return nil, p.spec.fail("the pool is closed")
	}
	p.live[pr] = true
	return pr, nil
}

// release takes a process back: a healthy one waits for the next episode,
// a broken one is gone for good (the next episode starts a fresh one).
func (p *Pool) release(pr *proc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.broken != nil || p.closed {
		delete(p.live, pr)
		pr.close()
		return
	}
	p.idle = append(p.idle, pr)
}

// Close stops every process of the pool.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	all := make([]*proc, 0, len(p.live))
	for pr := range p.live {
		all = append(all, pr)
	}
	p.live, p.idle = map[*proc]bool{}, nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, pr := range all {
		wg.Go(pr.close)
	}
	wg.Wait()
	return nil
}

// System is one episode's memory in a sidecar process.
type System struct {
	pool    *Pool
	episode string

	mu        sync.Mutex
	proc      *proc // nil once closed
	committed int
	dirty     bool // committed since the last flush
	last      FlushReply
	// errorsBase is the process's model-error count when the episode began;
	// errors is the episode's, frozen at Close.
	errorsBase, errors int
}

// Health reports the failed model calls the sidecar's library made in this
// episode (the run records them as degraded).
func (s *System) Health() memory.Health {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		s.errors = s.proc.modelErrors - s.errorsBase
	}
	return memory.Health{ModelErrors: s.errors}
}

// Commit sends the interaction; the sidecar replies when its library has
// taken it in (or buffered it for a batch).
func (s *System) Commit(ctx context.Context, in dialog.Interaction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return errClosed
	}
	w := WireInteraction{ID: in.ID, Session: in.Session, Turns: make([]WireTurn, len(in.Turns))}
	if !in.Time.IsZero() {
		w.Time = in.Time.UTC().Format(time.RFC3339)
	}
	for i, t := range in.Turns {
		w.Turns[i] = WireTurn{Role: t.Role, Content: t.Content}
	}
	if err := s.proc.call(ctx, "commit", map[string]any{"interaction": w}, nil, s.pool.spec.Timeout); err != nil {
		return fmt.Errorf("commit %s: %w", in.ID, err)
	}
	s.committed++
	s.dirty = true
	return nil
}

// Flush waits until the sidecar has processed everything committed and
// returns its counts; an interaction the sidecar lost is an error.
func (s *System) Flush(ctx context.Context) (FlushReply, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flush(ctx)
}

func (s *System) flush(ctx context.Context) (FlushReply, error) {
	if s.proc == nil {
		return FlushReply{}, errClosed
	}
	var r FlushReply
	if err := s.proc.call(ctx, "flush", nil, &r, s.pool.spec.Timeout); err != nil {
		return r, err
	}
	if r.Interactions != s.committed {
		return r, s.pool.spec.fail("flush: holds %d interactions, arbor committed %d (ingestion lost some silently)", r.Interactions, s.committed)
	}
	s.last, s.dirty = r, false
	return r, nil
}

// Recall asks the sidecar for up to TopK units, recounts them with arbor's
// counter and keeps, in the sidecar's order, those that fit q.Budget.
func (s *System) Recall(ctx context.Context, q memory.Query) (memory.Bundle, error) {
	if q.Variant != "" {
		return memory.Bundle{}, s.pool.spec.fail("has no variant %q", q.Variant)
	}
	if q.Budget <= 0 {
		return memory.Bundle{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return memory.Bundle{}, errClosed
	}
	if s.dirty {
		if _, err := s.flush(ctx); err != nil {
			return memory.Bundle{}, err
		}
	}
	req := map[string]any{"query": q.Text, "k": s.pool.spec.TopK, "budget": q.Budget}
	if !q.Time.IsZero() {
		req["time"] = q.Time.UTC().Format(time.RFC3339)
	}
	var rep struct {
		Items []WireItem `json:"items"`
	}
	if err := s.proc.call(ctx, "recall", req, &rep, s.pool.spec.Timeout); err != nil {
		return memory.Bundle{}, err
	}
	items := make([]memory.Item, 0, len(rep.Items))
	for i, w := range rep.Items {
		it, err := s.item(w)
		if err != nil {
			return memory.Bundle{}, s.pool.spec.fail("recall item %d: %v", i, err)
		}
		if it.Text != "" {
			items = append(items, it)
		}
	}
	return memory.Bundle{Items: memory.PackInOrder(items, q.Budget)}, nil
}

func (s *System) item(w WireItem) (memory.Item, error) {
	ch := memory.ChannelFact
	switch w.Channel {
	case "", "fact":
	case "turn", "summary", "record", "local":
		ch = memory.Channel(w.Channel)
	default:
		return memory.Item{}, fmt.Errorf("channel %q is not one of fact, turn, summary, record, local", w.Channel)
	}
	if len(w.Sources) == 0 || slices.Contains(w.Sources, "") {
		return memory.Item{}, fmt.Errorf("cites no interaction (sources %q)", w.Sources)
	}
	var t time.Time
	if w.Time != "" {
		var err error
		if t, err = time.Parse(time.RFC3339, w.Time); err != nil {
			return memory.Item{}, fmt.Errorf("time %q: not RFC 3339", w.Time)
		}
	}
	text := strings.TrimSpace(w.Text)
	if text != "" && !t.IsZero() {
		// Stamped as the native baselines stamp their units, so that the
		// answer model can date every piece of evidence alike.
		text = "[" + dialog.FormatTime(t) + "] " + text
	}
	return memory.NewItem(s.pool.counter, ch, text, t, w.Sources...), nil
}

// Close cleans the episode's state out of the process and hands it back to
// the pool; a process that failed during the episode is stopped instead.
func (s *System) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return nil
	}
	pr := s.proc
	s.errors = pr.modelErrors - s.errorsBase
	s.proc = nil
	if pr.broken == nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.pool.spec.Timeout)
		_ = pr.call(ctx, "reset", map[string]string{"episode": ""}, nil, s.pool.spec.Timeout)
		cancel()
	}
	s.pool.release(pr)
	return nil
}

// Library is what the sidecar's handshake said is installed.
func (s *System) Library() HelloReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return HelloReply{}
	}
	return s.proc.hello
}
