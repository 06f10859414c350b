package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestPlainLinesWhenNotATerminal(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, "eval", 4, true)
	r.SetInterval(0)
	r.Add(1, "acc 100.0%")
	r.Add(3, "acc 75.0%")
	r.Finish()
	r.Finish()
	out := b.String()
	if strings.Contains(out, "\r") {
		t.Fatalf("carriage return written to a non-terminal: %q", out)
	}
	if !strings.Contains(out, "eval: 1/4 (25%) acc 100.0%") || !strings.Contains(out, "4/4 done") {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if strings.Count(out, "done in") != 1 {
		t.Fatalf("Finish printed twice:\n%s", out)
	}
}

func TestIntervalThrottlesLines(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, "x", 100, false)
	r.SetInterval(time.Hour)
	for i := 0; i < 100; i++ {
		r.Add(1, "")
	}
	if n := strings.Count(b.String(), "\n"); n != 1 {
		t.Fatalf("want 1 line (the first), got %d", n)
	}
}

func TestSetMovesToAbsoluteCount(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, "load", 10, false)
	r.SetInterval(0)
	r.Set(4, "")
	r.Set(3, "") // never backwards
	r.Set(10, "")
	r.Finish()
	if !strings.Contains(b.String(), "load: 4/10") || !strings.Contains(b.String(), "10/10 done") || strings.Contains(b.String(), "3/10") {
		t.Fatalf("unexpected output:\n%s", b.String())
	}
}

func TestBytesOnlyForBigFiles(t *testing.T) {
	var b bytes.Buffer
	small := NewBytes(&b, "read", false)
	small.Update(1, 2)
	small.Update(2, 2)
	small.Finish()
	if b.Len() != 0 {
		t.Fatalf("a small file printed %q", b.String())
	}
	big := NewBytes(&b, "read", false)
	const total = 100 << 20
	for _, done := range []int64{25 << 20, 50 << 20, total} {
		big.Update(done, total)
	}
	big.Finish()
	if out := b.String(); !strings.Contains(out, "read (MB): 25/100") || !strings.Contains(out, "100/100 done") {
		t.Fatalf("unexpected output:\n%s", out)
	}
}

// TestETAIgnoresSkippedAndIsSmoothed: resumed units do not make the rest
// look fast, and one slow window moves the estimate only part of the way.
func TestETAIgnoresSkippedAndIsSmoothed(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, "eval", 1000, false)
	now := r.start
	r.now = func() time.Time { return now }
	r.SetInterval(time.Hour)
	r.Skip(900, "") // resumed: 900 of 1000 already done
	if got := r.etaString(); got != "?" {
		t.Fatalf("eta before any work = %s, want ?", got)
	}
	now = now.Add(10 * time.Second)
	r.Add(10, "") // 1 unit/s
	if got := r.etaString(); got != "1m30s" {
		t.Fatalf("eta = %s, want 1m30s (90 left at 1/s; the 900 resumed do not count)", got)
	}
	now = now.Add(20 * time.Second)
	r.Add(10, "") // 0.5 unit/s in this window
	// smoothed: 0.3·0.5 + 0.7·1 = 0.85/s; 80 left → 94s
	if got := r.etaString(); got != "1m34s" {
		t.Fatalf("smoothed eta = %s, want 1m34s", got)
	}
}
