package tokens

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// fakeRemote answers len(text)+1000 so remote and fallback counts are
// distinguishable, and fails while fail is set.
type fakeRemote struct {
	mu    sync.Mutex
	calls int
	fail  bool
}

func (f *fakeRemote) Tokenize(_ context.Context, text string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail {
		return 0, errors.New("endpoint down")
	}
	return len(text) + 1000, nil
}

type fixedCounter int

func (c fixedCounter) Count(string) int { return int(c) }

func TestRemoteCachesAndFallsBack(t *testing.T) {
	fr := &fakeRemote{}
	c := NewRemote(fr, fixedCounter(7))
	c.cooldown = 0 // retry the server at once after a failure

	steps := []struct {
		text string
		fail bool
		want int
	}{
		{"hello", false, 1005},
		{"hello", false, 1005}, // cached: no new call
		{"other", true, 7},     // server down: fallback
		{"other", false, 1005}, // fallback results are not cached
		{"hello", true, 1005},  // a cached count survives an outage
	}
	for i, s := range steps {
		fr.fail = s.fail
		if got := c.Count(s.text); got != s.want {
			t.Fatalf("step %d: Count(%q) = %d, want %d", i, s.text, got, s.want)
		}
	}
	want := RemoteStats{Calls: 3, Hits: 2, Fallbacks: 1}
	if got := c.Stats(); got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	if fr.calls != 3 {
		t.Fatalf("server called %d times, want 3", fr.calls)
	}
}

func TestRemoteCooldown(t *testing.T) {
	fr := &fakeRemote{fail: true}
	c := NewRemote(fr, fixedCounter(3))
	for range 5 {
		if got := c.Count("x"); got != 3 {
			t.Fatalf("Count = %d, want the fallback's 3", got)
		}
	}
	// Only the first failure reaches the server; the rest fall back at once.
	if fr.calls != 1 || c.Stats().Fallbacks != 5 {
		t.Fatalf("calls %d, fallbacks %d; want 1 and 5", fr.calls, c.Stats().Fallbacks)
	}
}

func TestRemoteNilFallbackIsQwen3(t *testing.T) {
	c := NewRemote(&fakeRemote{fail: true}, nil)
	if got, want := c.Count("Hello, my dog is cute"), 6; got != want {
		t.Fatalf("Count = %d, want %d", got, want)
	}
}

// TestVerifiedCountsLocallyAndSwitchesOnMismatch: counts come from the
// local counter without waiting for the server; one text in every is
// checked, and the first disagreement makes every later count remote.
func TestVerifiedCountsLocallyAndSwitchesOnMismatch(t *testing.T) {
	tests := []struct {
		name      string
		local     Counter
		wantAfter int // count of "abc" after the verifications
		mismatch  bool
	}{
		{"agreeing", lenCounter(1000), 1003, false},
		{"disagreeing", fixedCounter(7), 1003, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fr := &fakeRemote{}
			c := NewVerified(fr, tc.local, 2)
			for i, text := range []string{"a", "bb", "ccc", "dddd"} {
				if got, want := c.CountContext(context.Background(), text), tc.local.Count(text); got != want {
					t.Fatalf("count %d: %d, want the local %d", i, got, want)
				}
			}
			c.Wait()
			st := c.Stats()
			if st.Verified != 2 || fr.calls != 2 {
				t.Fatalf("verified %d texts with %d calls, want 2 of 4 (every 2nd)", st.Verified, fr.calls)
			}
			if (st.Mismatches > 0) != tc.mismatch {
				t.Fatalf("mismatches %d, want mismatch=%v", st.Mismatches, tc.mismatch)
			}
			got := c.Count("abc")
			if !tc.mismatch {
				if got != tc.local.Count("abc") {
					t.Fatalf("after agreement: %d, want the local count", got)
				}
				return
			}
			if got != tc.wantAfter {
				t.Fatalf("after a mismatch: %d, want the server's %d", got, tc.wantAfter)
			}
		})
	}
}

// lenCounter counts len(text)+offset, as fakeRemote does with 1000.
type lenCounter int

func (c lenCounter) Count(s string) int { return len(s) + int(c) }
