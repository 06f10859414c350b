package runners

// The doctor's model path: ArborMem on a small slice through the configured
// endpoints, with the parse rate of every memory prompt and the health of
// the forest it grows, under the configured scoring and each reading of it.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/internal/benchinput"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/jsonx"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// PromptHealth counts one memory prompt's replies on the slice.
type PromptHealth struct {
	Prompt string `json:"prompt"`
	// Replies counts first replies, Repaired those that needed a repair
	// request, Unparsed the repair replies still without JSON (the
	// operation then falls back to its rule), Errors failed calls.
	Replies  int `json:"replies"`
	Repaired int `json:"repaired"`
	Unparsed int `json:"unparsed"`
	Errors   int `json:"errors"`
}

// ParseRate is the share of first replies that parsed.
func (p PromptHealth) ParseRate() float64 {
	if p.Replies == 0 {
		return 1
	}
	return float64(p.Replies-p.Repaired) / float64(p.Replies)
}

// ForestHealth is the forest ArborMem grew on the slice under one reading.
type ForestHealth struct {
	// Reading is "" for the configured scoring, else the variant
	// (arbormem.Readings).
	Reading   string `json:"reading"`
	Committed int    `json:"committed"`
	NewRoots  int    `json:"new_roots"`
	// GoldBranches counts the latent branches of the committed
	// interactions (BranchMemEval; 0 elsewhere).
	GoldBranches int `json:"gold_branches"`
	// MaxDepth is the longest root-to-node path, in interactions.
	MaxDepth int `json:"max_depth"`
	// Questions counts questions with a latent branch; ParentHits those
	// localized inside it.
	Questions  int `json:"questions"`
	ParentHits int `json:"parent_hits"`
}

// NewRootShare is the share of committed interactions that started a root.
func (f ForestHealth) NewRootShare() float64 { return share(f.NewRoots, f.Committed) }

// ParentAccuracy is the question-parent accuracy (−1 without gold).
func (f ForestHealth) ParentAccuracy() float64 {
	if f.Questions == 0 {
		return -1
	}
	return share(f.ParentHits, f.Questions)
}

func share(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// SliceHealth is the model path on the slice.
type SliceHealth struct {
	Benchmark string `json:"benchmark"`
	Episodes  int    `json:"episodes"`
	// Prompts are the memory prompts' replies; Metrics ArborMem's own
	// counters (fallbacks, bad and repaired replies).
	Prompts []PromptHealth           `json:"prompts"`
	Metrics arbormem.MetricsSnapshot `json:"metrics"`
	// Forest is under the configured scoring, Readings under each reading.
	Forest   ForestHealth   `json:"forest"`
	Readings []ForestHealth `json:"readings,omitempty"`
	// IngestWall is the configured run's commit time (episodes one after
	// another), Calls its model calls and Latency their mean latency, by
	// role.
	IngestWall time.Duration            `json:"ingest_wall"`
	IngestCPU  time.Duration            `json:"ingest_cpu"`
	Calls      map[string]int           `json:"calls"`
	Latency    map[string]time.Duration `json:"latency"`
	// sample is a memory-operation request of the commonest prompt, resent
	// by the throughput probe.
	sample *llm.ChatRequest
}

// CPUPerInteraction is the process CPU time of the configured run per
// interaction (0 where the platform does not say).
func (s *SliceHealth) CPUPerInteraction() time.Duration {
	if s.Forest.Committed == 0 {
		return 0
	}
	return s.IngestCPU / time.Duration(s.Forest.Committed)
}

// PerInteraction is the configured run's commit wall time per interaction.
func (s *SliceHealth) PerInteraction() time.Duration {
	if s.Forest.Committed == 0 {
		return 0
	}
	return s.IngestWall / time.Duration(s.Forest.Committed)
}

// promptRecorder counts each memory prompt's replies as ArborMem's chat
// operations send them (Purpose is the prompt, "<prompt>:repair" for the
// repair request) and keeps one request of each.
type promptRecorder struct {
	llm.Client
	mu      sync.Mutex
	by      map[string]*PromptHealth
	samples map[string]llm.ChatRequest
}

func (p *promptRecorder) Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	resp, err := p.Client.Chat(ctx, req)
	name, repair := strings.CutSuffix(req.Purpose, ":repair")
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.by[name]
	if h == nil {
		h = &PromptHealth{Prompt: name}
		p.by[name] = h
	}
	switch {
	case err != nil:
		h.Errors++
	case repair:
		h.Repaired++
		if !hasJSON(resp.Content) {
			h.Unparsed++
		}
	default:
		h.Replies++
		if _, ok := p.samples[name]; !ok {
			p.samples[name] = req
		}
	}
	return resp, err
}

func hasJSON(s string) bool {
	raw, err := jsonx.Extract(s)
	return err == nil && json.Valid([]byte(raw))
}

// runSlice runs ArborMem's model path on the first opts.Episodes episodes:
// once as configured (the calls, parse rates and speed come from this run)
// and once per reading. A fresh response cache in a temporary directory
// lets the readings reuse the memory operations' replies where their
// prompts are the same, without touching the run cache.
func runSlice(ctx context.Context, cfg *config.Config, opts DoctorOptions) (*SliceHealth, error) {
	eps, err := datasets.Load(ctx, opts.Benchmark, opts.Data, datasets.Options{})
	if err != nil {
		return nil, err
	}
	if len(eps) > opts.Episodes {
		eps = eps[:opts.Episodes]
	}
	dir, err := os.MkdirTemp("", "arbor-doctor-cache-")
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	defer os.RemoveAll(dir)
	c := *cfg
	c.Cache = config.Cache{Enabled: true, Dir: dir}
	d, err := newMemoryDeps(ctx, &c, opts.Benchmark)
	if err != nil {
		return nil, err
	}
	defer d.models.Close()
	rec := &promptRecorder{by: map[string]*PromptHealth{}, samples: map[string]llm.ChatRequest{}}
	if d.models.Chat != nil {
		rec.Client = d.models.Chat
		d.models.Chat = rec
	}
	s := &SliceHealth{Benchmark: opts.Benchmark, Episodes: len(eps), Calls: map[string]int{}, Latency: map[string]time.Duration{}}
	start, cpu0 := time.Now(), benchinput.ProcessCPU()
	s.Forest, s.Metrics, err = replayForest(ctx, d, "", eps)
	if err != nil {
		return nil, err
	}
	s.IngestWall, s.IngestCPU = time.Since(start), benchinput.ProcessCPU()-cpu0
	for _, row := range d.models.Metrics.Rows() {
		s.Calls[row.Role] += int(row.Count)
		s.Latency[row.Role] += row.LatencyP50 * time.Duration(row.Count)
	}
	for role, n := range s.Calls {
		if n > 0 {
			s.Latency[role] /= time.Duration(n)
		}
	}
	rec.mu.Lock()
	common := 0
	for name, h := range rec.by {
		s.Prompts = append(s.Prompts, *h)
		if r, ok := rec.samples[name]; ok && h.Replies > common {
			common, s.sample = h.Replies, &r
		}
	}
	rec.mu.Unlock()
	slices.SortFunc(s.Prompts, func(a, b PromptHealth) int { return strings.Compare(a.Prompt, b.Prompt) })
	if !opts.NoReadings {
		for _, v := range arbormem.Readings {
			logf(opts.Log, "doctor: reading %s\n", v.Name)
			f, _, err := replayForest(ctx, d, v.Name, eps)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", v.Name, err)
			}
			s.Readings = append(s.Readings, f)
		}
	}
	return s, nil
}

// replayForest commits every episode's interactions, one episode after
// another, localizes its questions (no answers), and measures the forest.
func replayForest(ctx context.Context, d *deps, variant string, eps []datasets.Episode) (ForestHealth, arbormem.MetricsSnapshot, error) {
	out := ForestHealth{Reading: variant}
	var ms arbormem.MetricsSnapshot
	factory, err := d.factory("arbormem", variant)
	if err != nil {
		return out, ms, err
	}
	for i := range eps {
		ep := &eps[i]
		sys, err := factory(ctx, ep.ID)
		if err != nil {
			return out, ms, err
		}
		var committed []string
		commit := func(in dialog.Interaction) error {
			if err := sys.Commit(ctx, in); err != nil {
				return fmt.Errorf("episode %s: commit %s: %w", ep.ID, in.ID, err)
			}
			committed = append(committed, in.ID)
			return nil
		}
		for _, st := range ep.Steps {
			if st.Interaction != nil {
				if err := commit(*st.Interaction); err != nil {
					return out, ms, err
				}
				continue
			}
			q := st.Question
			b, err := sys.Recall(ctx, memory.Query{ID: q.ID, Text: q.Text, Time: q.Time, Budget: d.cfg.Answer.Budget})
			if err != nil {
				return out, ms, fmt.Errorf("episode %s: recall %s: %w", ep.ID, q.ID, err)
			}
			if b.Trace != nil && b.Trace.Localized && ep.Latent != nil {
				if want, ok := ep.Latent.Branch[q.ID]; ok {
					out.Questions++
					if b.Trace.Parent != "" && ep.Latent.Branch[b.Trace.Parent] == want {
						out.ParentHits++
					}
				}
			}
			if q.Canonical != nil {
				if err := commit(*q.Canonical); err != nil {
					return out, ms, err
				}
			}
		}
		out.Committed += len(committed)
		if placer, ok := sys.(memory.Placer); ok {
			depth := map[string]int{}
			gold := map[string]bool{}
			for _, id := range committed {
				parent, _ := placer.ParentOf(id)
				if parent == "" {
					out.NewRoots++
				}
				depth[id] = depth[parent] + 1
				out.MaxDepth = max(out.MaxDepth, depth[id])
				if ep.Latent != nil {
					if b, ok := ep.Latent.Branch[id]; ok {
						gold[b] = true
					}
				}
			}
			out.GoldBranches += len(gold)
		}
		if am, ok := sys.(*arbormem.System); ok {
			ms.Add(am.Metrics())
		}
	}
	return out, ms, nil
}

// The forest's warning thresholds: more than half the turns new roots is a
// flat forest (BranchMemEval opens a branch at about one turn in thirteen);
// at most one root per episode over this many turns is one long chain.
const (
	flatShare    = 0.5
	chainMinTurn = 20
)

// judge adds the slice's verdict lines.
func (s *SliceHealth) judge(r *DoctorReport) {
	for _, p := range s.Prompts {
		if p.Replies == 0 && p.Errors == 0 {
			continue
		}
		detail := fmt.Sprintf("%d replies, %.0f%% parsed first time, %d repaired, %d unparsed after repair, %d errors", p.Replies, 100*p.ParseRate(), p.Repaired-p.Unparsed, p.Unparsed, p.Errors)
		switch {
		case p.Errors > 0 || p.ParseRate() < 0.6:
			r.add("slice", p.Prompt, VerdictFail, detail, "see the chat lines (answer.enable_thinking, json mode); arbormem.memory_op_max_tokens if replies are cut off")
		case p.ParseRate() < 0.95 || p.Unparsed > 0:
			r.add("slice", p.Prompt, VerdictWarn, detail+": each unparsed reply falls back to a rule", "answer.enable_thinking: false if replies think; arbormem.memory_op_max_tokens if they are cut off")
		default:
			r.add("slice", p.Prompt, VerdictOK, detail, "")
		}
	}
	f := s.Forest
	if f.Committed == 0 {
		r.add("slice", "forest", VerdictWarn, "no interaction committed", "--data: a file with interactions")
		return
	}
	detail := fmt.Sprintf("%d interactions: %.0f%% new roots (%d roots", f.Committed, 100*f.NewRootShare(), f.NewRoots)
	if f.GoldBranches > 0 {
		detail += fmt.Sprintf(" vs %d gold branches", f.GoldBranches)
	}
	detail += fmt.Sprintf("), depth %d", f.MaxDepth)
	if a := f.ParentAccuracy(); a >= 0 {
		detail += fmt.Sprintf(", question parent in its branch %.0f%%", 100*a)
	}
	const fix = "models.rerank.scores, arbormem.ce_score, arbormem.tau: compare the readings below (arbor ablate --variants ce-logit,ce-scaled,tau=6,tau=10 for accuracy)"
	switch {
	case f.NewRootShare() > flatShare:
		r.add("slice", "forest", VerdictWarn, detail+": almost every turn starts a root (a flat forest; localization does nothing)", fix)
	case f.Committed >= chainMinTurn*s.Episodes && f.NewRoots <= s.Episodes && f.GoldBranches > 2*s.Episodes:
		r.add("slice", "forest", VerdictWarn, detail+": one long chain per episode (every turn continues)", fix)
	default:
		r.add("slice", "forest", VerdictOK, detail, "")
	}
}

// write prints the slice's readings.
func (s *SliceHealth) write(w io.Writer) {
	if len(s.Readings) == 0 {
		return
	}
	fmt.Fprintf(w, "\nForest under each scoring reading (%d %s episodes):\n", s.Episodes, s.Benchmark)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "READING\tNEW ROOTS\tROOTS\tGOLD BRANCHES\tDEPTH\tQUESTION PARENT")
	for _, f := range append([]ForestHealth{s.Forest}, s.Readings...) {
		name := f.Reading
		if name == "" {
			name = "configured"
		}
		qp := "-"
		if a := f.ParentAccuracy(); a >= 0 {
			qp = fmt.Sprintf("%.0f%%", 100*a)
		}
		fmt.Fprintf(tw, "%s\t%.0f%%\t%d\t%d\t%d\t%s\n", name, 100*f.NewRootShare(), f.NewRoots, f.GoldBranches, f.MaxDepth, qp)
	}
	tw.Flush()
}
