package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// probe is an in-memory endpoint that tracks its own concurrency.
type probe struct {
	name     string
	cur, max atomic.Int64
	calls    atomic.Int64
	delay    time.Duration
	err      error
}

func (p *probe) call(ctx context.Context) error {
	p.calls.Add(1)
	c := p.cur.Add(1)
	defer p.cur.Add(-1)
	for {
		m := p.max.Load()
		if c <= m || p.max.CompareAndSwap(m, c) {
			break
		}
	}
	select {
	case <-time.After(p.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	return p.err
}

func probePool(opts PoolOptions, caps []int, probes ...*probe) *Pool[*probe] {
	ms := make([]Member[*probe], len(probes))
	for i, p := range probes {
		ms[i] = Member[*probe]{Client: p, URL: p.name, MaxInflight: caps[i]}
	}
	return NewPool(ms, opts)
}

func callProbe(ctx context.Context, p *probe) error { return p.call(ctx) }

func TestPoolRespectsCapsAndBalances(t *testing.T) {
	a, b := &probe{name: "a", delay: 2 * time.Millisecond}, &probe{name: "b", delay: 2 * time.Millisecond}
	pool := probePool(PoolOptions{Role: "t"}, []int{2, 3}, a, b)
	if pool.Capacity() != 5 {
		t.Fatalf("capacity %d", pool.Capacity())
	}
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			if err := pool.Do(context.Background(), callProbe); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if a.max.Load() > 2 || b.max.Load() > 3 {
		t.Errorf("max concurrency a=%d (cap 2) b=%d (cap 3)", a.max.Load(), b.max.Load())
	}
	if a.calls.Load()+b.calls.Load() != 40 || a.calls.Load() < 8 || b.calls.Load() < 8 {
		t.Errorf("calls a=%d b=%d", a.calls.Load(), b.calls.Load())
	}
}

func TestPoolWaitEndsWithContext(t *testing.T) {
	a := &probe{name: "a", delay: time.Hour}
	pool := probePool(PoolOptions{Role: "t"}, []int{1}, a)
	hold, release := context.WithCancel(context.Background())
	go pool.Do(hold, callProbe)
	for a.cur.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := pool.Do(ctx, callProbe)
	if !errors.Is(err, context.DeadlineExceeded) || a.calls.Load() != 1 {
		t.Fatalf("err %v, calls %d", err, a.calls.Load())
	}
	release()
}

func TestPoolTimeoutIsRetryableAndCounted(t *testing.T) {
	a := &probe{name: "a", delay: time.Hour}
	pool := NewPool([]Member[*probe]{{Client: a, URL: "a", MaxInflight: 1, Timeout: 10 * time.Millisecond}}, PoolOptions{Role: "t", FailuresToEject: 2, EjectFor: time.Hour})
	err := pool.Do(context.Background(), callProbe)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err %v, want ErrTimeout", err)
	}
	if pool.Stats()[0].Failures != 1 {
		t.Errorf("failures %d", pool.Stats()[0].Failures)
	}
	// A caller giving up is not the endpoint's fault.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(2 * time.Millisecond); cancel() }()
	err = NewPool([]Member[*probe]{{Client: a, URL: "a", MaxInflight: 1}}, PoolOptions{}).Do(ctx, callProbe)
	if errors.Is(err, ErrTimeout) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled caller: %v", err)
	}
	if pool.Stats()[0].Failures != 1 {
		t.Errorf("failures %d", pool.Stats()[0].Failures)
	}
}

func TestPoolEjectsAndReprobes(t *testing.T) {
	bad := &probe{name: "bad", err: fmt.Errorf("%w: refused", ErrTransport)}
	good := &probe{name: "good"}
	pool := probePool(PoolOptions{Role: "t", FailuresToEject: 3, EjectFor: 60 * time.Millisecond}, []int{4, 4}, bad, good)
	for range 20 {
		pool.Do(context.Background(), callProbe)
	}
	if bad.calls.Load() != 3 || !pool.Stats()[0].Ejected {
		t.Fatalf("bad endpoint got %d calls (want 3, then ejected); stats %+v", bad.calls.Load(), pool.Stats())
	}
	time.Sleep(70 * time.Millisecond)
	for range 10 {
		pool.Do(context.Background(), callProbe)
	}
	// One probe after EjectFor, which fails and ejects it again.
	if bad.calls.Load() != 4 || !pool.Stats()[0].Ejected {
		t.Fatalf("bad endpoint got %d calls after re-probe, want 4", bad.calls.Load())
	}
	// Success restores it.
	bad.err = nil
	time.Sleep(70 * time.Millisecond)
	for range 10 {
		pool.Do(context.Background(), callProbe)
	}
	if s := pool.Stats()[0]; s.Ejected || s.Failures != 0 || bad.calls.Load() < 6 {
		t.Fatalf("restored endpoint: %+v, calls %d", s, bad.calls.Load())
	}
}

func TestPoolNon5xxDoesNotEject(t *testing.T) {
	a := &probe{name: "a", err: &StatusError{Code: 400}}
	pool := probePool(PoolOptions{Role: "t", FailuresToEject: 1, EjectFor: time.Hour}, []int{1}, a)
	for range 3 {
		pool.Do(context.Background(), callProbe)
	}
	if a.calls.Load() != 3 || pool.Stats()[0].Ejected {
		t.Fatalf("calls %d stats %+v", a.calls.Load(), pool.Stats())
	}
}

func TestPoolPickAvoidsFailures(t *testing.T) {
	ps := []*probe{{name: "a"}, {name: "b"}, {name: "c"}}
	pool := probePool(PoolOptions{}, []int{1, 1, 1}, ps...)
	failed := func(ms ...*member[*probe]) *attempt {
		a := &attempt{}
		for _, m := range ms {
			a.fail(m)
		}
		return a
	}
	for i := range 9 {
		avoid := pool.members[i%3]
		m, _ := pool.pick(time.Now(), failed(avoid))
		if m == avoid {
			t.Fatalf("pick %d chose the failed member %s", i, m.URL)
		}
	}
	// A healthy member that is busy is waited for rather than going back
	// to the one that failed (a dead endpoint is always free).
	pool.members[1].inflight, pool.members[2].inflight = 1, 1
	if m, _ := pool.pick(time.Now(), failed(pool.members[0])); m != nil {
		t.Fatalf("got %s, want to wait for a busy member that has not failed", m.URL)
	}
	// When every member has failed the request, a free one is tried again.
	if m, _ := pool.pick(time.Now(), failed(pool.members...)); m != pool.members[0] {
		t.Fatalf("got %v, want the only free member once all have failed", m)
	}
}

func TestPoolAllEjectedWaitsForReprobe(t *testing.T) {
	a := &probe{name: "a", err: fmt.Errorf("%w: reset", ErrTransport)}
	pool := probePool(PoolOptions{Role: "t", FailuresToEject: 1, EjectFor: 30 * time.Millisecond}, []int{2}, a)
	pool.Do(context.Background(), callProbe)
	a.err = nil
	start := time.Now()
	if err := pool.Do(context.Background(), callProbe); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Fatalf("request went to an ejected endpoint after %v", waited)
	}
}
