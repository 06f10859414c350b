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
