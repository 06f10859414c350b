// Package progress reports long work: a progress bar on a terminal, plain
// periodic lines elsewhere (progressbar/v3 does not check for a terminal and
// would write carriage-return redraws into CI logs; ../shared/notes/libraries.md).
package progress

import (
	"fmt"
	"io"
	"math"
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
	// skipped units (resumed, answered from cache) count as done but not
	// toward the rate, which would otherwise promise the rest at their
	// speed.
	skipped int
	eta     eta
	now     func() time.Time
	// cost holds the planned and finished work per class (a system) when
	// the caller declares it (Plan): the ETA is then the remaining units
	// weighted by each class's measured time per unit, since one system's
	// unit can cost a hundred of another's.
	cost map[string]*classCost
	busy time.Duration // summed unit durations over classes
	// jobs are chains of units run one after another (a memory instance's
	// commits and answers), on at most workers at once, when the caller
	// declares them (Job): the ETA is then the time the remaining chains
	// take on the workers, each unit at its class's measured time (see
	// jobETA), which the classes' sums alone cannot tell when a few long
	// chains outlast many short ones.
	jobs     map[string]*jobState
	jobOrder []*jobState
	workers  int
	// etaMemo keeps the last job-based ETA for etaMemoFor: every unit
	// redraws the bar, and the schedule walks every job.
	etaMemo   time.Duration
	etaMemoAt time.Time
	// width is the terminal's width in columns (0: not a terminal); the
	// bar's line is cut to it, since a line that wraps is redrawn below its
	// stale first half on every update.
	width int
}

// barReserve is what the bar's line holds besides the description: the
// bar itself (barWidth), its percentage and the elapsed time.
const (
	barWidth = 12
	// barScale is the bar's full count: it shows thousandths of the
	// weighted work, not units.
	barScale   = 1000
	barReserve = barWidth + 34
)

// eta is an exponentially smoothed rate of worked units per second,
// sampled at least every etaWindow.
type eta struct {
	rate   float64 // units per second; 0 until the first window closes
	at     time.Time
	worked int // worked units at `at`
}

// etaWindow is the shortest interval a rate sample spans; etaAlpha the
// weight of the newest sample.
const (
	etaWindow = 2 * time.Second
	etaAlpha  = 0.3
)

// New makes a reporter writing to w. It draws a bar only when enabled and w
// is a terminal; otherwise it prints a line at most every `every` (and at
// the end). A nil w discards everything.
func New(w io.Writer, desc string, total int, enabled bool) *Reporter {
	if w == nil {
		w = io.Discard
	}
	r := &Reporter{w: w, desc: desc, total: total, every: 10 * time.Second, now: time.Now}
	r.start = r.now()
	r.eta.at = r.start
	if f, ok := w.(*os.File); ok && enabled && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			r.width = cols
		} else {
			r.width = 80
		}
		// The bar fills by the weighted share of the work (fraction), in
		// thousandths, so that it agrees with the plain line and the ETA; the
		// unit count goes in the description.
		r.bar = progressbar.NewOptions(barScale,
			progressbar.OptionSetWidth(barWidth),
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			// The library's prediction counts resumed units as work done
			// since the start; the status carries ours instead.
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return r
}

// classCost is one class's planned units, finished units and the wall time
// they took (summed over units that may have run concurrently).
type classCost struct {
	planned, done int
	took          time.Duration
	// prior is the class's expected cost per unit relative to the other
	// classes' (Prior), used until the class has a measurement of its own.
	prior float64
	// recent is the time per unit smoothed over the latest units
	// (unitAlpha): a run's first units wait behind its start-up burst
	// (every instance's first steps at once), and their mean would hold
	// the estimate high long after the pace has settled.
	recent float64
}

// unitAlpha is the weight of the newest unit in classCost.recent.
const unitAlpha = 0.25

// jobState is one declared chain's units left by class, and whether it
// has started.
type jobState struct {
	left    map[string]int
	started bool
}

// etaMemoFor is how long a job-based ETA is reused.
const etaMemoFor = 250 * time.Millisecond

// SetWorkers says how many jobs run at once (the run's workers).
func (r *Reporter) SetWorkers(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.workers = n
}

// Job declares units of class still to do in the chain id (one memory
// instance: its commits, then its answers), in the order the jobs will
// start, and plans them as Plan does. Work and Skip with the same job and
// class count them off; EndJob drops what a failed chain leaves.
func (r *Reporter) Job(id, class string, units int) {
	r.mu.Lock()
	if r.jobs == nil {
		r.jobs = map[string]*jobState{}
	}
	j := r.jobs[id]
	if j == nil {
		j = &jobState{left: map[string]int{}}
		r.jobs[id] = j
		r.jobOrder = append(r.jobOrder, j)
	}
	j.left[class] += units
	r.mu.Unlock()
	r.Plan(class, units)
}

// WorkOn is Work for a unit of a declared job.
func (r *Reporter) WorkOn(job, class string, n int, took time.Duration, status string) {
	r.mu.Lock()
	r.countOff(job, class, n)
	r.mu.Unlock()
	r.Work(class, n, took, status)
}

// SkipOn is Skip for a unit of a declared job.
func (r *Reporter) SkipOn(job, class string, n int, status string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.countOff(job, class, n)
	if c := r.cost[class]; c != nil {
		c.planned = max(c.planned-n, 0)
	}
	r.skipLocked(n, status)
}

// EndJob drops what is left of a job (it failed, or had less to do than
// declared), so that the ETA stops waiting for it.
func (r *Reporter) EndJob(job string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j := r.jobs[job]; j != nil {
		for class, n := range j.left {
			if c := r.cost[class]; c != nil {
				c.planned = max(c.planned-n, c.done)
			}
		}
		// started stays as it was: jobETA orders jobs by it only to place
		// their units left, and an ended job has none.
		clear(j.left)
	}
}

func (r *Reporter) countOff(job, class string, n int) {
	if j := r.jobs[job]; j != nil {
		j.started = true
		j.left[class] = max(j.left[class]-n, 0)
	}
}

// jobETA is the time the declared jobs still take: each job's units left
// times its class's measured time per unit (the mean over measured units
// for a class not yet measured), the started jobs first and then the
// others in order, each on the worker that frees first; the ETA is when
// the last one ends. False until some unit was measured.
func (r *Reporter) jobETA(now time.Time) (time.Duration, bool) {
	if len(r.jobs) == 0 || r.busy <= 0 {
		return 0, false
	}
	if !r.etaMemoAt.IsZero() && now.Sub(r.etaMemoAt) < etaMemoFor {
		return r.etaMemo, true
	}
	per, _ := r.perUnit()
	left := func(j *jobState) float64 {
		t := 0.0
		for class, n := range j.left {
			t += float64(n) * per(class)
		}
		return t
	}
	free := make([]float64, max(r.workers, 1))
	assign := func(t float64) {
		k := 0
		for i, f := range free {
			if f < free[k] {
				k = i
			}
		}
		free[k] += t
	}
	for _, started := range []bool{true, false} {
		for _, j := range r.jobOrder {
			if j.started == started {
				if t := left(j); t > 0 {
					assign(t)
				}
			}
		}
	}
	end := 0.0
	for _, f := range free {
		end = max(end, f)
	}
	r.etaMemo, r.etaMemoAt = time.Duration(end*float64(time.Second)), now
	return r.etaMemo, true
}

// Prior gives class an expected cost per unit relative to the other
// classes (the sequential model round trips a unit waits for, say): until
// a unit of class has finished, its time per unit is taken as prior times
// the time per unit of prior measured on the classes that have finished
// some. Without it an unmeasured class costs the mean measured unit, which
// early in a run is a cheap baseline's.
func (r *Reporter) Prior(class string, weight float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.class(class).prior = weight
}

func (r *Reporter) class(name string) *classCost {
	if r.cost == nil {
		r.cost = map[string]*classCost{}
	}
	c := r.cost[name]
	if c == nil {
		c = &classCost{}
		r.cost[name] = c
	}
	return c
}

// perUnit returns the time per unit of each class: its own smoothed
// measurement, else its prior scaled by the measured classes' time per
// unit of prior, else the mean measured unit. False until some unit was
// measured.
func (r *Reporter) perUnit() (func(string) float64, bool) {
	if r.busy <= 0 {
		return nil, false
	}
	done := 0
	var took, weight float64
	for _, c := range r.cost {
		done += c.done
		if c.done > 0 && c.prior > 0 {
			took += c.took.Seconds()
			weight += float64(c.done) * c.prior
		}
	}
	mean := r.busy.Seconds() / float64(max(done, 1))
	return func(class string) float64 {
		c := r.cost[class]
		switch {
		case c == nil:
			return mean
		case c.done > 0:
			return c.recent
		case c.prior > 0 && weight > 0:
			return c.prior * took / weight
		}
		return mean
	}, true
}

// fraction is the share of the planned work done, each class's units
// weighted by their time per unit (perUnit), or of the units when no
// class was planned or measured.
func (r *Reporter) fraction() float64 {
	if per, ok := r.perUnit(); ok && len(r.cost) > 0 {
		var done, all float64
		for name, c := range r.cost {
			w := per(name)
			done += float64(c.done) * w
			all += float64(max(c.planned, c.done)) * w
		}
		if all > 0 {
			return done / all
		}
	}
	if r.total <= 0 {
		return 0
	}
	return float64(r.done) / float64(r.total)
}

// Plan declares units of work of class still to do (one system's commits
// and answers), turning on the cost-weighted ETA.
func (r *Reporter) Plan(class string, units int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.class(class).planned += units
}

// Work records n finished units of class that took took of wall time
// between them (concurrent units each count their own time).
func (r *Reporter) Work(class string, n int, took time.Duration, status string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.cost[class]; c != nil && n > 0 {
		x := took.Seconds() / float64(n)
		if c.done == 0 {
			c.recent = x
		} else {
			a := 1 - math.Pow(1-unitAlpha, float64(n))
			c.recent = a*x + (1-a)*c.recent
		}
		c.done += n
		c.took += took
		r.busy += took
	}
	r.add(n, status)
}

// weightedETA is the time left as the remaining units of every class times
// that class's time per unit (perUnit, so that it prices a class as
// fraction and jobETA do), divided by the measured parallelism (unit time
// per wall second); false until some unit was measured.
func (r *Reporter) weightedETA(now time.Time) (time.Duration, bool) {
	per, ok := r.perUnit()
	if !ok || r.cost == nil {
		return 0, false
	}
	wall := now.Sub(r.start)
	if wall <= 0 {
		return 0, false
	}
	left := 0.0
	for name, c := range r.cost {
		left += float64(max(c.planned-c.done, 0)) * per(name)
	}
	parallel := r.busy.Seconds() / wall.Seconds()
	return time.Duration(left / parallel * float64(time.Second)), true
}

// Snapshot is the reporter's state at one moment: the units done of the
// total, and the ETA it shows (false while it shows "?").
type Snapshot struct {
	Done, Total int
	// Fraction is the share of the work done, weighted by each class's
	// cost per unit when classes were planned.
	Fraction float64
	ETA      time.Duration
	HasETA   bool
}

// Snapshot returns what the reporter shows now (for measuring the ETA
// against the truth, as runners' BenchmarkWeightedETA does).
func (r *Reporter) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Snapshot{Done: r.done, Total: r.total, Fraction: r.fraction()}
	s.ETA, s.HasETA = r.etaValue()
	return s
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

// Skip records n units that are done without work (resumed from an
// earlier run, answered from the cache): they move the count, not the rate.
func (r *Reporter) Skip(n int, status string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.skipLocked(n, status)
}

// skipLocked is Skip with r.mu held, shared with SkipOn.
func (r *Reporter) skipLocked(n int, status string) {
	r.skipped += n
	r.add(n, status)
}

func (r *Reporter) add(n int, status string) {
	r.done += n
	r.status = status
	now := r.now()
	r.sampleRate(now)
	if r.bar != nil {
		r.bar.Describe(r.describe(status))
		_ = r.bar.Set(int(barScale * r.fraction()))
		return
	}
	if now.Sub(r.last) >= r.every {
		r.last = now
		r.line()
	}
}

// describe is the bar's description: the name, the ETA, then the status,
// cut with an ellipsis so that the whole line fits the terminal (the status
// goes first: the ETA and the name say more at a glance).
func (r *Reporter) describe(status string) string {
	d := fmt.Sprintf("%s %d/%d · eta %s", r.desc, r.done, r.total, r.etaString())
	if status != "" {
		d += " · " + status
	}
	return fitWidth(d, r.width-barReserve)
}

// fitWidth cuts s to at most max runes, ending it with "…" when cut; max
// below 1 (or no terminal width) leaves s whole.
func fitWidth(s string, max int) string {
	if max < 1 {
		return s
	}
	rs := []rune(s)
	if len(rs) <= max {
		return s
	}
	return string(rs[:max-1]) + "…"
}

// sampleRate folds the worked units since the last sample into the
// smoothed rate once a window has passed.
func (r *Reporter) sampleRate(now time.Time) {
	worked := r.done - r.skipped
	dt := now.Sub(r.eta.at)
	if dt < etaWindow || worked <= r.eta.worked {
		return
	}
	inst := float64(worked-r.eta.worked) / dt.Seconds()
	if r.eta.rate == 0 {
		r.eta.rate = inst
	} else {
		r.eta.rate = etaAlpha*inst + (1-etaAlpha)*r.eta.rate
	}
	r.eta.at, r.eta.worked = now, worked
}

// etaString is the time left at the smoothed rate of worked units; "?"
// until a rate has been measured.
func (r *Reporter) etaString() string {
	d, ok := r.etaValue()
	if !ok {
		return "?"
	}
	return d.Round(time.Second).String()
}

// etaValue is the time left: weighted by class when the caller planned
// classes, else at the smoothed rate; false until it can be told.
func (r *Reporter) etaValue() (time.Duration, bool) {
	left := r.total - r.done
	if left <= 0 {
		return 0, true
	}
	if d, ok := r.jobETA(r.now()); ok {
		return d, true
	}
	if d, ok := r.weightedETA(r.now()); ok {
		return d, true
	}
	if r.eta.rate <= 0 {
		return 0, false
	}
	return time.Duration(float64(left) / r.eta.rate * float64(time.Second)), true
}

func (r *Reporter) line() {
	pct := 100 * r.fraction()
	fmt.Fprintf(r.w, "%s: %d/%d (%.0f%%) %s eta %s\n", r.desc, r.done, r.total, pct, r.status, r.etaString())
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
	fmt.Fprintf(r.w, "%s: %d/%d done in %s %s\n", r.desc, r.done, r.total, r.now().Sub(r.start).Round(time.Millisecond), r.status)
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
