package textmemo

import (
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestMemo checks that a memo returns f's results, computes a remembered
// text once, recomputes an evicted one, and is safe under concurrent use.
func TestMemo(t *testing.T) {
	var calls atomic.Int64
	m := New(4, func(s string) int { calls.Add(1); return len(s) })
	if got := m.Get("abc"); got != 3 {
		t.Fatalf("Get(abc) = %d, want 3", got)
	}
	m.Get("abc")
	if n := calls.Load(); n != 1 {
		t.Fatalf("f called %d times for one text, want 1", n)
	}
	for i := range 40 { // more texts than slots: some are evicted
		m.Get(fmt.Sprint("text ", i))
	}
	calls.Store(0)
	if got := m.Get("abc"); got != 3 || calls.Load() > 1 {
		t.Fatalf("after evictions Get(abc) = %d with %d calls", got, calls.Load())
	}
	ResetAll()
	calls.Store(0)
	m.Get("abc")
	if calls.Load() != 1 {
		t.Fatal("after ResetAll a text is still remembered")
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				s := fmt.Sprint(g*i%13, "x")
				if got := m.Get(s); got != len(s) {
					t.Errorf("Get(%q) = %d", s, got)
				}
			}
		}()
	}
	wg.Wait()
}

// TestGetWith: a memo made without f computes with the caller's function,
// once per remembered key.
func TestGetWith(t *testing.T) {
	m := New[int](4, nil)
	calls := 0
	get := func(key string, v int) int {
		return m.GetWith(key, func() int { calls++; return v })
	}
	if got := get("k", 7); got != 7 {
		t.Fatalf("GetWith(k) = %d, want 7", got)
	}
	if got := get("k", 9); got != 7 || calls != 1 {
		t.Fatalf("second GetWith(k) = %d after %d computations, want the remembered 7 after 1", got, calls)
	}
}

// TestInternBytes: the key comes back as one shared copy, independent of
// the caller's buffer, with the value computed from that copy once.
func TestInternBytes(t *testing.T) {
	m := New[string](4, nil)
	calls := 0
	upper := func(s string) string { calls++; return strings.ToUpper(s) }
	buf := []byte("word")
	k1, v1 := m.InternBytes(buf, upper)
	copy(buf, "XXXX")
	k2, v2 := m.InternBytes([]byte("word"), upper)
	if k1 != "word" || v1 != "WORD" || k2 != "word" || v2 != "WORD" || calls != 1 {
		t.Fatalf("InternBytes = (%q, %q), (%q, %q) after %d computations; want (word, WORD) twice after 1", k1, v1, k2, v2, calls)
	}
	if unsafe.StringData(k1) != unsafe.StringData(k2) {
		t.Error("the remembered key is not shared")
	}
	if got := m.GetWith("word", func() string { return "other" }); got != "WORD" {
		t.Errorf("GetWith after InternBytes = %q, want WORD", got)
	}
}

// TestOnReset: ResetAll calls every function registered with OnReset.
func TestOnReset(t *testing.T) {
	var n atomic.Int64
	OnReset(func() { n.Add(1) })
	ResetAll()
	ResetAll()
	if got := n.Load(); got != 2 {
		t.Fatalf("two ResetAll calls ran the reset %d times, want 2", got)
	}
}

// TestGetShared: a shared key finds what Get stored and the other way
// round, computing once, and is remembered without a copy.
func TestGetShared(t *testing.T) {
	calls := 0
	m := New(4, func(s string) string { calls++; return strings.ToUpper(s) })
	key := strings.Repeat("evidence ", 10)
	if got := m.GetShared(key); got != strings.ToUpper(key) || calls != 1 {
		t.Fatalf("GetShared = %q after %d computations", got, calls)
	}
	if got := m.Get(strings.Clone(key)); got != strings.ToUpper(key) || calls != 1 {
		t.Fatalf("Get after GetShared = %q after %d computations, want the remembered value after 1", got, calls)
	}
	sl := m.slots[maphash.String(m.seed, key)%uint64(len(m.slots))].Load()
	if unsafe.StringData(sl.key) != unsafe.StringData(key) {
		t.Error("the shared key was copied")
	}
	m.Get("other")
	if got := m.GetShared("other"); got != "OTHER" || calls != 2 {
		t.Fatalf("GetShared after Get = %q after %d computations, want OTHER after 2", got, calls)
	}
}
