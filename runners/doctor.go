package runners

// `arbor doctor`: what a first run against real endpoints would otherwise
// find out the expensive way, checked in a few minutes of GPU time. Each
// line of the report is a verdict (ok, warn, fail) with the fix, naming the
// config key to change. The endpoint probes are in doctor_probe.go, the
// model path on a small slice in doctor_slice.go, the wall-time estimate in
// doctor_estimate.go.

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/text"
)

// The verdicts of a doctor line.
const (
	VerdictOK   = "ok"
	VerdictWarn = "warn"
	VerdictFail = "fail"
)

// DoctorOptions configure Doctor.
type DoctorOptions struct {
	// Benchmark and Data choose the slice the model path runs on
	// (default: the embedded BranchMemEval set); Episodes is its size (2).
	Benchmark string
	Data      string
	Episodes  int
	// NoSlice skips the model path (only the endpoint probes run).
	NoSlice bool
	// NoReadings skips the slice's ingestion under each scoring reading.
	NoReadings bool
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// DoctorLine is one check's verdict and, unless it is ok, the fix.
type DoctorLine struct {
	Area    string `json:"area"`
	Check   string `json:"check"`
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
}

// DoctorReport is what Doctor found.
type DoctorReport struct {
	Lines []DoctorLine `json:"lines"`
	// Slice is the model path on the slice (nil when skipped).
	Slice *SliceHealth `json:"slice,omitempty"`
	// Speeds are the measured per-role latencies and throughputs, Steps
	// the estimate of each reproduce-paper.sh step made from them, under
	// Assumption.
	Speeds     []RoleSpeed    `json:"speeds,omitempty"`
	Steps      []StepEstimate `json:"steps,omitempty"`
	Assumption string         `json:"assumption,omitempty"`
}

// Failed counts the fail lines.
func (r *DoctorReport) Failed() int { return r.count(VerdictFail) }

// Warned counts the warn lines.
func (r *DoctorReport) Warned() int { return r.count(VerdictWarn) }

func (r *DoctorReport) count(v string) int {
	n := 0
	for _, l := range r.Lines {
		if l.Verdict == v {
			n++
		}
	}
	return n
}

// Line returns the first line of area and check, or false.
func (r *DoctorReport) Line(area, check string) (DoctorLine, bool) {
	for _, l := range r.Lines {
		if l.Area == area && l.Check == check {
			return l, true
		}
	}
	return DoctorLine{}, false
}

func (r *DoctorReport) add(area, check, verdict, detail, fix string) {
	if verdict == VerdictOK {
		fix = ""
	}
	r.Lines = append(r.Lines, DoctorLine{Area: area, Check: check, Verdict: verdict, Detail: detail, Fix: fix})
}

// Doctor probes every configured endpoint for what the model path assumes
// of it (doctor_probe.go), runs ArborMem's model path on a small slice and
// reports the forest it grows under the configured reading and the others
// (doctor_slice.go), and turns the measured speeds into the wall time and
// GPU-hours of each reproduce-paper.sh step (doctor_estimate.go). It never
// writes results; it returns an error only when it cannot run at all.
func Doctor(ctx context.Context, cfg *config.Config, opts DoctorOptions) (*DoctorReport, error) {
	if opts.Benchmark == "" {
		opts.Benchmark = "branchmemeval"
	}
	if opts.Episodes <= 0 {
		opts.Episodes = 2
	}
	r := &DoctorReport{}
	p := newProber(cfg)
	logf(opts.Log, "doctor: probing the endpoints\n")
	p.models(ctx, r)
	p.chat(ctx, r)
	p.embed(ctx, r)
	p.rerank(ctx, r)
	p.tokenizer(ctx, r)
	if !opts.NoSlice {
		logf(opts.Log, "doctor: the model path on %d %s episodes\n", opts.Episodes, opts.Benchmark)
		s, err := runSlice(ctx, cfg, opts)
		if err != nil {
			r.add("slice", "model path", VerdictFail, oneLine(err.Error()), "fix the lines above first; --no-slice skips this")
		} else {
			r.Slice = s
			s.judge(r)
			r.Speeds = measureSpeeds(ctx, cfg, p, s)
			r.Steps, r.Assumption = estimateSteps(cfg, r.Speeds, s)
		}
	}
	return r, nil
}

// oneLine is s on one line, clipped to 300 characters, for a verdict line.
func oneLine(s string) string { return text.ClipRunes(text.OneLine(s), 300) }

// WriteDoctor prints the report: the verdict lines, then the slice's
// prompts, forest and readings, then speeds and step estimates.
func WriteDoctor(w io.Writer, r *DoctorReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERDICT\tAREA\tCHECK\tDETAIL")
	for _, l := range r.Lines {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Verdict, l.Area, l.Check, l.Detail)
		if l.Fix != "" {
			fmt.Fprintf(tw, "\t\t  fix:\t%s\n", l.Fix)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s := r.Slice; s != nil {
		s.write(w)
	}
	if len(r.Speeds) > 0 {
		fmt.Fprintln(w, "\nMeasured speed (per role; throughput with every endpoint's max_inflight in flight):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ROLE\tCALLS\tLATENCY P50\tTHROUGHPUT\tSOURCE")
		for _, s := range r.Speeds {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.1f/s\t%s\n", s.Role, s.Calls, s.Latency.Round(time.Millisecond), s.Throughput, s.Source)
		}
		tw.Flush()
	}
	if len(r.Steps) > 0 {
		fmt.Fprintln(w, "\nEstimated reproduce-paper.sh steps:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STEP\tWALL TIME\tGPU-HOURS\tBOUND\tWORK")
		for _, s := range r.Steps {
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\t%s\n", s.Step, fmtWall(s.Wall), s.GPUHours, s.Bound, s.Work)
		}
		tw.Flush()
		fmt.Fprintf(w, "Assumption: %s\n", r.Assumption)
	}
	fmt.Fprintf(w, "\n%d fail, %d warn, %d ok\n", r.Failed(), r.Warned(), len(r.Lines)-r.Failed()-r.Warned())
	return nil
}

func fmtWall(d time.Duration) string {
	if d >= time.Hour {
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return d.Round(time.Second).String()
}
