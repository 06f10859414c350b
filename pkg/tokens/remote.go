package tokens

import (
	"context"
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"
)

// Remote counts tokens through a server, e.g. vLLM's /tokenize. An
// llm.Tokenizer satisfies it.
type Remote interface {
	Tokenize(ctx context.Context, text string) (int, error)
}

// Cache bound and retry pause for RemoteCounter. A full cache is dropped
// whole: budgets recount the same texts within one episode, so a cold cache
// costs a few round trips, not correctness.
const (
	remoteCacheMax = 1 << 18
	remoteCooldown = 5 * time.Second
	remoteTimeout  = 30 * time.Second
)

// RemoteCounter counts through a Remote (the serving model's own tokenizer,
// so counts are exact even for a model that is not Qwen3), caching counts by
// the text's SHA-256. When the server fails, the fallback counts instead and
// the failure is counted; the server is not asked again for a few seconds so
// that a dead endpoint does not stall every budget check. Fallback counts
// are not cached. Safe for concurrent use.
//
// Built with NewVerified, it counts with the exact local counter instead and
// checks one text in every against the server in the background, so that
// no count waits for a round trip; the first disagreement (the served model
// does not share the local tokenizer) switches it to asking the server for
// every count.
type RemoteCounter struct {
	remote   Remote
	fallback Counter
	cooldown time.Duration
	timeout  time.Duration
	// every > 0: local counts, one in every verified remotely.
	every    int64
	seen     atomic.Int64
	mismatch atomic.Bool
	wg       sync.WaitGroup

	mu        sync.RWMutex
	cache     map[[32]byte]int
	downUntil time.Time

	calls, hits, fallbacks, verified, mismatches atomic.Int64
}

// NewRemote wraps r; fallback nil means Default(), loaded only when first
// needed, so a healthy server spares start-up the vocabulary load.
func NewRemote(r Remote, fallback Counter) *RemoteCounter {
	return &RemoteCounter{
		remote:   r,
		fallback: fallback,
		cooldown: remoteCooldown,
		timeout:  remoteTimeout,
		cache:    make(map[[32]byte]int),
	}
}

// NewVerified counts with local (nil: Default(), the exact Qwen3 counter)
// and verifies one counted text in every against r in the background; every
// <= 0 is NewRemote (every count asks the server).
func NewVerified(r Remote, local Counter, every int) *RemoteCounter {
	c := NewRemote(r, local)
	c.every = int64(max(every, 0))
	return c
}

// ContextCounter is a Counter whose server calls can carry the caller's
// context, so that they are accounted with the caller's other model calls
// (llm.WithUsage) and end with it.
type ContextCounter interface {
	Counter
	CountContext(ctx context.Context, text string) int
}

// CountContext counts text with c, passing ctx when c takes one.
func CountContext(ctx context.Context, c Counter, text string) int {
	if cc, ok := c.(ContextCounter); ok {
		return cc.CountContext(ctx, text)
	}
	return c.Count(text)
}

// Count is CountContext without a caller's context.
func (c *RemoteCounter) Count(text string) int { return c.CountContext(context.Background(), text) }

// CountContext returns the local count while verification agrees (see
// NewVerified), otherwise the server's count or the fallback's.
func (c *RemoteCounter) CountContext(ctx context.Context, text string) int {
	if c.every > 0 && !c.mismatch.Load() {
		n := c.local().Count(text)
		if (c.seen.Add(1)-1)%c.every == 0 {
			c.wg.Add(1)
			go c.verify(context.WithoutCancel(ctx), text, n)
		}
		return n
	}
	return c.remoteCount(ctx, text)
}

// verify asks the server for text's count and compares it with the local
// count n; a server failure proves nothing and is only counted as such.
func (c *RemoteCounter) verify(ctx context.Context, text string, n int) {
	defer c.wg.Done()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	c.calls.Add(1)
	m, err := c.remote.Tokenize(ctx, text)
	if err != nil || m < 0 {
		return
	}
	c.verified.Add(1)
	if m != n {
		c.mismatches.Add(1)
		c.mismatch.Store(true)
	}
}

// Wait blocks until background verifications have finished.
func (c *RemoteCounter) Wait() { c.wg.Wait() }

func (c *RemoteCounter) local() Counter {
	if c.fallback == nil {
		return Default()
	}
	return c.fallback
}

// remoteCount returns the server's count for text, or the fallback's.
func (c *RemoteCounter) remoteCount(ctx context.Context, text string) int {
	key := sha256.Sum256([]byte(text))
	c.mu.RLock()
	n, ok := c.cache[key]
	down := time.Now().Before(c.downUntil)
	c.mu.RUnlock()
	if ok {
		c.hits.Add(1)
		return n
	}
	if down {
		return c.fallbackCount(text)
	}
	c.calls.Add(1)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	n, err := c.remote.Tokenize(ctx, text)
	cancel()
	if err != nil || n < 0 {
		c.mu.Lock()
		c.downUntil = time.Now().Add(c.cooldown)
		c.mu.Unlock()
		return c.fallbackCount(text)
	}
	c.mu.Lock()
	if len(c.cache) >= remoteCacheMax {
		clear(c.cache)
	}
	c.cache[key] = n
	c.mu.Unlock()
	return n
}

func (c *RemoteCounter) fallbackCount(text string) int {
	c.fallbacks.Add(1)
	return c.local().Count(text)
}

// RemoteStats reports how a RemoteCounter's counts were obtained.
type RemoteStats struct {
	Calls     int64 `json:"calls"`     // server requests made
	Hits      int64 `json:"hits"`      // answered from the cache
	Fallbacks int64 `json:"fallbacks"` // answered by the fallback counter
	// Verified counts local counts checked against the server (NewVerified);
	// Mismatches those the server disagreed with.
	Verified   int64 `json:"verified,omitempty"`
	Mismatches int64 `json:"mismatches,omitempty"`
}

// Stats returns the counters so far; a run records Fallbacks so that inexact
// budgets can be told apart.
func (c *RemoteCounter) Stats() RemoteStats {
	return RemoteStats{Calls: c.calls.Load(), Hits: c.hits.Load(), Fallbacks: c.fallbacks.Load(),
		Verified: c.verified.Load(), Mismatches: c.mismatches.Load()}
}
