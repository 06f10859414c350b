package llm

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Call is one metered model call as a CallTrace records it.
type Call struct {
	Role, Purpose string
	Start, End    time.Time
	Err           bool
}

// CallTrace records the metered model calls made under a context (arbor
// perf --trace draws them on a timeline, to show what is on a commit's
// critical path). Safe for concurrent use; a nil *CallTrace records
// nothing.
type CallTrace struct {
	mu    sync.Mutex
	calls []Call
}

type traceKey struct{}

// WithCallTrace returns a context whose metered calls are recorded in the
// returned trace.
func WithCallTrace(ctx context.Context) (context.Context, *CallTrace) {
	t := &CallTrace{}
	return context.WithValue(ctx, traceKey{}, t), t
}

func traceFrom(ctx context.Context) *CallTrace {
	t, _ := ctx.Value(traceKey{}).(*CallTrace)
	return t
}

func (t *CallTrace) add(c Call) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.calls = append(t.calls, c)
	t.mu.Unlock()
}

// Take returns the calls recorded since the last Take, in order of start,
// and forgets them.
func (t *CallTrace) Take() []Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.calls
	t.calls = nil
	slices.SortStableFunc(out, func(a, b Call) int { return a.Start.Compare(b.Start) })
	return out
}
