package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRetryRetriesOnlyTransientFailures(t *testing.T) {
	r := Retrier{MaxAttempts: 4, BaseDelay: time.Microsecond, MaxDelay: time.Millisecond}
	cases := []struct {
		err      error
		attempts int
	}{
		{&StatusError{Code: 400}, 1},
		{&StatusError{Code: 401}, 1},
		{&StatusError{Code: 404}, 1},
		{&StatusError{Code: 408}, 1},
		{&StatusError{Code: 422}, 1},
		{&StatusError{Code: 429}, 4},
		{&StatusError{Code: 500}, 4},
		{&StatusError{Code: 503}, 4},
		{fmt.Errorf("%w: connection refused", ErrTransport), 4},
		{fmt.Errorf("%w after 1s", ErrTimeout), 4},
		{malformed("truncated"), 4},
		{fmt.Errorf("%w: no messages", ErrBadRequest), 1},
		{errors.New("something unclassified"), 1},
	}
	for _, tc := range cases {
		n := 0
		err := r.Do(context.Background(), func(context.Context) error { n++; return tc.err })
		if n != tc.attempts || !errors.Is(err, tc.err) {
			t.Errorf("%v: %d attempts (want %d), err %v", tc.err, n, tc.attempts, err)
		}
		if tc.attempts > 1 && !strings.Contains(err.Error(), "gave up after 4 attempts") {
			t.Errorf("%v: error %q does not say how many attempts", tc.err, err)
		}
	}
}

func TestRetrySucceedsAndCountsRetries(t *testing.T) {
	r := Retrier{MaxAttempts: 5, BaseDelay: time.Microsecond}
	note := &callNote{}
	ctx := context.WithValue(context.Background(), noteKey{}, note)
	n := 0
	err := r.Do(ctx, func(context.Context) error {
		if n++; n < 3 {
			return &StatusError{Code: 502}
		}
		return nil
	})
	if err != nil || n != 3 || note.retries.Load() != 2 {
		t.Fatalf("err %v attempts %d retries %d", err, n, note.retries.Load())
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	r := Retrier{MaxAttempts: 3, BaseDelay: time.Microsecond, MaxDelay: time.Millisecond}
	n := 0
	start := time.Now()
	err := r.Do(context.Background(), func(context.Context) error {
		if n++; n == 1 {
			return &StatusError{Code: 429, RetryAfter: 120 * time.Millisecond}
		}
		return nil
	})
	if err != nil || time.Since(start) < 120*time.Millisecond {
		t.Fatalf("err %v after %v; want a wait of at least the Retry-After", err, time.Since(start))
	}
}

func TestRetryBoundedByContext(t *testing.T) {
	r := Retrier{MaxAttempts: 100, BaseDelay: time.Hour, MaxDelay: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err := r.Do(ctx, func(context.Context) error { return &StatusError{Code: 500} })
	var se *StatusError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &se) {
		t.Fatalf("err %v: want the deadline and the last error", err)
	}
}

func TestBackoffBounds(t *testing.T) {
	r := Retrier{BaseDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}
	for n := 1; n <= 40; n++ {
		d := min(10*time.Millisecond<<min(n-1, 30), 100*time.Millisecond)
		for range 20 {
			if got := r.backoff(n); got < d/2 || got > d {
				t.Fatalf("attempt %d: %v outside [%v, %v]", n, got, d/2, d)
			}
		}
	}
}
