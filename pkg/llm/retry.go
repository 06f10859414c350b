package llm

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
)

// Retrier retries transient failures (see Retryable) with exponential
// backoff and jitter, waiting at least as long as a Retry-After asks. It
// never retries other 4xx replies or a cancelled caller, and never sleeps
// past the caller's context.
type Retrier struct {
	// MaxAttempts bounds attempts, the first included (< 1 counts as 1).
	MaxAttempts int
	// BaseDelay doubles per attempt up to MaxDelay; the wait is drawn
	// uniformly from [d/2, d] so that many clients do not retry in step.
	BaseDelay, MaxDelay time.Duration
	// Role names the layer in logs.
	Role   string
	Logger *slog.Logger
}

// NewRetrier returns the retry policy of cfg for role.
func NewRetrier(cfg config.Retry, role string, logger *slog.Logger) Retrier {
	return Retrier{MaxAttempts: cfg.MaxAttempts, BaseDelay: cfg.BaseDelay, MaxDelay: cfg.MaxDelay, Role: role, Logger: logger}
}

// Do calls fn until it succeeds, fails for good, or the attempts or the
// context run out.
func (r Retrier) Do(ctx context.Context, fn func(context.Context) error) error {
	ctx = context.WithValue(ctx, attemptKey{}, &attempt{})
	for n := 1; ; n++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		retry, after := Retryable(err)
		if !retry {
			return err
		}
		if n >= r.MaxAttempts {
			if n > 1 {
				return fmt.Errorf("gave up after %d attempts: %w", n, err)
			}
			return err
		}
		wait := max(r.backoff(n), after)
		noteRetry(ctx)
		if r.Logger != nil {
			r.Logger.Debug("retrying model call", "role", r.Role, "attempt", n, "wait", wait, "error", err)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w while waiting to retry after %d attempts; last error: %w", ctx.Err(), n, err)
		}
	}
}

// backoff is the jittered wait after the n-th failed attempt.
func (r Retrier) backoff(n int) time.Duration {
	if r.BaseDelay <= 0 {
		return 0
	}
	d := r.BaseDelay
	for i := 1; i < n && d < time.Duration(1)<<40 && (r.MaxDelay <= 0 || d < r.MaxDelay); i++ {
		d *= 2
	}
	if r.MaxDelay > 0 && d > r.MaxDelay {
		d = r.MaxDelay
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// RetryChat retries next's transient failures.
func RetryChat(next Client, r Retrier) Client { return aroundChat(next, r.Do) }

// RetryEmbed retries next's transient failures.
func RetryEmbed(next Embedder, r Retrier) Embedder { return aroundEmbed(next, r.Do) }

// RetryRerank retries next's transient failures.
func RetryRerank(next Reranker, r Retrier) Reranker { return aroundRerank(next, r.Do) }

// RetryTokenizer retries next's transient failures.
func RetryTokenizer(next Tokenizer, r Retrier) Tokenizer { return aroundTokenizer(next, r.Do) }
