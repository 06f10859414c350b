// Package progress reports long work: a progress bar on a terminal, plain
// periodic lines elsewhere (progressbar/v3 does not check for a terminal and
// would write carriage-return redraws into CI logs; ../shared/notes/libraries.md).
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Reporter counts finished units of work out of a total.
type Reporter struct {
	mu       sync.Mutex
	bar      *progressbar.ProgressBar
	w        io.Writer
	desc     string
	total    int
	done     int
	status   string
	start    time.Time
	last     time.Time
	every    time.Duration
	finished bool
}

// New makes a reporter writing to w. It draws a bar only when enabled and w
// is a terminal; otherwise it prints a line at most every `every` (and at
// the end). A nil w discards everything.
func New(w io.Writer, desc string, total int, enabled bool) *Reporter {
	if w == nil {
		w = io.Discard
	}
	r := &Reporter{w: w, desc: desc, total: total, start: time.Now(), every: 10 * time.Second}
	if f, ok := w.(*os.File); ok && enabled && term.IsTerminal(int(f.Fd())) {
		r.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return r
}

// SetInterval changes how often plain lines are printed.
func (r *Reporter) SetInterval(d time.Duration) { r.every = d }

// Add records n more finished units and a short status ("acc 61.2%").
func (r *Reporter) Add(n int, status string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(n, status)
}

// Set moves the count to done (for work measured in absolute units, such
// as bytes read); it never moves backwards.
func (r *Reporter) Set(done int, status string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := done - r.done; n > 0 {
		r.add(n, status)
	}
}

func (r *Reporter) add(n int, status string) {
	r.done += n
	r.status = status
	if r.bar != nil {
		r.bar.Describe(r.desc + " " + status)
		_ = r.bar.Add(n)
		return
	}
	if now := time.Now(); now.Sub(r.last) >= r.every {
		r.last = now
		r.line()
	}
}

func (r *Reporter) line() {
	pct := 0.0
	if r.total > 0 {
		pct = 100 * float64(r.done) / float64(r.total)
	}
	eta := "?"
	if r.done > 0 && r.total >= r.done {
		el := time.Since(r.start)
		eta = (time.Duration(float64(el) / float64(r.done) * float64(r.total-r.done))).Round(time.Second).String()
	}
	fmt.Fprintf(r.w, "%s: %d/%d (%.0f%%) %s eta %s\n", r.desc, r.done, r.total, pct, r.status, eta)
}

// Finish prints the final state once.
func (r *Reporter) Finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	r.finished = true
	if r.bar != nil {
		_ = r.bar.Finish()
	}
	fmt.Fprintf(r.w, "%s: %d/%d done in %s %s\n", r.desc, r.done, r.total, time.Since(r.start).Round(time.Millisecond), r.status)
}

// BigFile is the size below which reading a file shows no progress: it
// loads in a blink, and a bar would be noise.
const BigFile = 64 << 20

// Bytes reports reading a file, in MB, for a datasets.Options.Progress
// callback: nothing for files under BigFile; a Reporter created on the
// first call for larger ones.
type Bytes struct {
	w       io.Writer
	desc    string
	enabled bool
	r       *Reporter
}

// NewBytes makes a byte-progress reporter (see New for w and enabled).
func NewBytes(w io.Writer, desc string, enabled bool) *Bytes {
	return &Bytes{w: w, desc: desc, enabled: enabled}
}

// Update is the progress callback: done of total bytes read.
func (b *Bytes) Update(done, total int64) {
	if total < BigFile {
		return
	}
	if b.r == nil {
		b.r = New(b.w, b.desc+" (MB)", int(total>>20), b.enabled)
	}
	b.r.Set(int(done>>20), "")
}

// Finish prints the final line, if anything was reported.
func (b *Bytes) Finish() {
	if b.r != nil {
		b.r.Finish()
	}
}
