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
type RemoteCounter struct {
	remote   Remote
	fallback Counter
	cooldown time.Duration
	timeout  time.Duration

	mu        sync.RWMutex
	cache     map[[32]byte]int
	downUntil time.Time

	calls, hits, fallbacks atomic.Int64
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

// Count returns the server's count for text, or the fallback's.
func (c *RemoteCounter) Count(text string) int {
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
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
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
	if c.fallback == nil {
		return Default().Count(text)
	}
	return c.fallback.Count(text)
}

// RemoteStats reports how a RemoteCounter's counts were obtained.
type RemoteStats struct {
	Calls     int64 `json:"calls"`     // server requests made
	Hits      int64 `json:"hits"`      // answered from the cache
	Fallbacks int64 `json:"fallbacks"` // answered by the fallback counter
}

// Stats returns the counters so far; a run records Fallbacks so that inexact
// budgets can be told apart.
func (c *RemoteCounter) Stats() RemoteStats {
	return RemoteStats{Calls: c.calls.Load(), Hits: c.hits.Load(), Fallbacks: c.fallbacks.Load()}
}
