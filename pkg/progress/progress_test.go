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

// TestDescribeFitsWidth: on an 80-column terminal the bar's description
// leaves room for the bar, the count and the elapsed time, however long
// the status (five systems' accuracies), and keeps the ETA.
func TestDescribeFitsWidth(t *testing.T) {
	long := "acc full 61.2% recent 50.1% bm25 55.0% summary 40.3% arbormem 70.2% · ingested 12345/67890"
	for _, width := range []int{80, 120, 200} {
		r := &Reporter{desc: "eval locomo", width: width, now: time.Now}
		d := r.describe(long)
		if n := len([]rune(d)); n+barReserve > width {
			t.Errorf("width %d: description of %d runes leaves no room for the bar: %q", width, n, d)
		}
		if !strings.Contains(d, "eta ") {
			t.Errorf("width %d: the ETA was cut: %q", width, d)
		}
	}
	r := &Reporter{desc: "eval", now: time.Now}
	if d := r.describe(long); !strings.HasSuffix(d, long) {
		t.Errorf("without a terminal width the status is cut: %q", d)
	}
}

// TestWeightedETA: nine hundred cheap units (a baseline's commits, 10 ms)
// and a hundred expensive ones (ArborMem's, 1 s), one at a time, the cheap
// ones dominating the first quarter as they do in a run. At a quarter of
// the units the count-based ETA (units left over the units-per-second seen)
// is off several-fold; the weighted one, from each class's time per unit,
// is within 30% of the truth.
func TestWeightedETA(t *testing.T) {
	const cheap, dear = 10 * time.Millisecond, time.Second
	clock := time.Unix(0, 0)
	r := New(nil, "eval", 1000, false)
	r.now = func() time.Time { return clock }
	r.start, r.eta.at = clock, clock
	r.Plan("bm25", 900)
	r.Plan("arbormem", 100)
	// The first quarter: 240 cheap units and 10 expensive ones.
	for i := range 250 {
		class, d := "bm25", cheap
		if i%25 == 24 {
			class, d = "arbormem", dear
		}
		clock = clock.Add(d)
		r.Work(class, 1, d, "")
	}
	truth := 660*cheap + 90*dear
	got, ok := r.weightedETA(clock)
	if !ok {
		t.Fatal("no weighted ETA after 250 measured units")
	}
	if ratio := got.Seconds() / truth.Seconds(); ratio < 0.7 || ratio > 1.3 {
		t.Errorf("weighted ETA %v, truth %v (ratio %.2f)", got, truth, ratio)
	}
	counted := 750 / (250 / clock.Sub(time.Unix(0, 0)).Seconds())
	if counted/truth.Seconds() > 0.5 {
		t.Fatalf("fixture too easy: the count-based ETA %.1fs is within 2x of %v", counted, truth)
	}
}

// TestJobETA: four long chains (ArborMem's instances: 40 commits of 1 s)
// beside twelve short ones (baselines: 40 free commits and one 1 s answer),
// all at once on sixteen workers. Early on only the short chains have
// finished units; the expensive class is priced by its prior (two round
// trips against an answer's one) until measured. The ETA is the longest
// chain's time left, not the units left over a rate: at a quarter of the
// long chains it is within 30% of the truth, where the class-sum ETA
// (weightedETA) is far off.
func TestJobETA(t *testing.T) {
	clock := time.Unix(0, 0)
	r := New(nil, "eval", 0, false)
	r.now = func() time.Time { return clock }
	r.start, r.eta.at = clock, clock
	r.SetWorkers(16)
	for i := range 16 {
		id := string(rune('a' + i))
		if i < 4 {
			r.Job(id, "arbormem/commit", 40)
			r.Job(id, "arbormem/answer", 1)
		} else {
			r.Job(id, "bm25/commit", 40)
			r.Job(id, "bm25/answer", 1)
		}
	}
	r.total = 16 * 41
	r.Prior("arbormem/commit", 2)
	r.Prior("arbormem/answer", 1)
	r.Prior("bm25/commit", 0.01)
	r.Prior("bm25/answer", 1)
	// The first second: the short chains commit for free and answer.
	clock = clock.Add(time.Second)
	for i := 4; i < 16; i++ {
		id := string(rune('a' + i))
		r.WorkOn(id, "bm25/commit", 40, 0, "")
		r.WorkOn(id, "bm25/answer", 1, time.Second, "")
	}
	got, ok := r.etaValue()
	truth := 40*time.Second + time.Second // the long chains, 1 s per unit (priced at 2 answers = 2 s: an upper bound)
	if !ok || got < truth || got > 2*truth+time.Second {
		t.Errorf("before any long unit: ETA %v (ok %v), want the prior's 2× the truth %v", got, ok, truth)
	}
	// Ten commits of each long chain, 1 s each.
	for range 10 {
		clock = clock.Add(time.Second)
		for i := range 4 {
			r.WorkOn(string(rune('a'+i)), "arbormem/commit", 1, time.Second, "")
		}
	}
	clock = clock.Add(etaMemoFor)
	got, _ = r.etaValue()
	truth = 31 * time.Second
	if ratio := got.Seconds() / truth.Seconds(); ratio < 0.7 || ratio > 1.3 {
		t.Errorf("at a quarter of the long chains: ETA %v, truth %v (ratio %.2f)", got, truth, ratio)
	}
	if f := r.fraction(); f < 0.2 || f > 0.5 {
		t.Errorf("weighted progress %.2f at a quarter of the long chains and all of the short ones", f)
	}
	// A failed chain stops counting.
	r.EndJob("a")
	r.EndJob("b")
	r.EndJob("c")
	r.EndJob("d")
	clock = clock.Add(etaMemoFor)
	if got, _ := r.etaValue(); got != 0 {
		t.Errorf("ETA %v after every chain ended", got)
	}
}
