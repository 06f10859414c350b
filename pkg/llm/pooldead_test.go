package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPoolGivesUpOnDeadRole: once every endpoint has been failing for
// DeadAfter, calls fail at once with a *DeadError that names the role and
// the last failure, is not retried and reaches no endpoint; a role with a
// healthy endpoint, or with DeadAfter 0, is never given up.
func TestPoolGivesUpOnDeadRole(t *testing.T) {
	ctx := context.Background()
	down := errors.Join(ErrTransport, errors.New("connection refused"))
	a, b := &probe{name: "http://a", err: down}, &probe{name: "http://b", err: down}
	p := probePool(PoolOptions{Role: "chat", DeadAfter: time.Millisecond}, []int{1, 1}, a, b)
	if _, failing := p.Failing(); failing || p.Dead() != nil {
		t.Fatal("a pool never tried is failing")
	}
	_ = p.Do(ctx, callProbe)
	if _, failing := p.Failing(); failing {
		t.Fatal("failing with one endpoint untried")
	}
	_ = p.Do(ctx, callProbe)
	if _, failing := p.Failing(); !failing {
		t.Fatal("both endpoints failed, but the pool is not failing")
	}
	for p.Dead() == nil {
		time.Sleep(time.Millisecond) // until DeadAfter has passed
	}
	calls := a.calls.Load() + b.calls.Load()
	err := p.Do(ctx, callProbe)
	var de *DeadError
	if !errors.As(err, &de) || !errors.Is(err, ErrDead) {
		t.Fatalf("after DeadAfter: %v, want a *DeadError", err)
	}
	if de.Role != "chat" || !strings.Contains(err.Error(), "connection refused") || !strings.HasPrefix(de.Last, "http://") {
		t.Errorf("the error does not name the role and the last failure: %v", err)
	}
	if a.calls.Load()+b.calls.Load() != calls {
		t.Error("a call reached an endpoint of a dead role")
	}
	if retry, _ := Retryable(err); retry {
		t.Error("a dead role's error is retried")
	}
	r := Retrier{MaxAttempts: 6, BaseDelay: time.Hour}
	if err := r.Do(ctx, func(ctx context.Context) error { return p.Do(ctx, callProbe) }); !errors.Is(err, ErrDead) {
		t.Errorf("through the retrier: %v", err)
	}

	// One endpoint recovering keeps the role alive.
	c, d := &probe{name: "c", err: down}, &probe{name: "d", err: down}
	q := probePool(PoolOptions{Role: "embed", DeadAfter: time.Millisecond}, []int{1, 1}, c, d)
	_ = q.Do(ctx, callProbe)
	_ = q.Do(ctx, callProbe)
	c.err, d.err = nil, nil
	_ = q.Do(ctx, callProbe)
	if _, failing := q.Failing(); failing {
		t.Error("still failing after a success")
	}
	// DeadAfter 0: never given up.
	e := &probe{name: "e", err: down}
	never := probePool(PoolOptions{Role: "rerank"}, []int{1}, e)
	_ = never.Do(ctx, callProbe)
	time.Sleep(2 * time.Millisecond)
	if err := never.Dead(); err != nil {
		t.Errorf("DeadAfter 0 gave up: %v", err)
	}
	if err := never.Do(ctx, callProbe); errors.Is(err, ErrDead) || e.calls.Load() != 2 {
		t.Errorf("DeadAfter 0: %v after %d calls", err, e.calls.Load())
	}
}

// TestPoolWaitersGiveUp: a caller waiting for an ejected endpoint fails
// when the role is given up, not after the re-probe wait.
func TestPoolWaitersGiveUp(t *testing.T) {
	down := errors.Join(ErrTransport, errors.New("refused"))
	a := &probe{name: "a", err: down}
	p := probePool(PoolOptions{Role: "chat", FailuresToEject: 1, EjectFor: time.Hour, DeadAfter: 5 * time.Millisecond}, []int{1}, a)
	_ = p.Do(context.Background(), callProbe) // ejected for an hour
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Do(ctx, callProbe); !errors.Is(err, ErrDead) {
		t.Fatalf("waiting caller: %v, want ErrDead (not the context's end)", err)
	}
}
