package runners

// The doctor's speed measurements and, from them, the wall time and
// GPU-hours of each scripts/reproduce-paper.sh step.

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
)

// RoleSpeed is one role's measured speed.
type RoleSpeed struct {
	Role string `json:"role"`
	// Calls the slice made, their mean latency, and the calls per second
	// the role's endpoints sustain together.
	Calls      int           `json:"calls"`
	Latency    time.Duration `json:"latency"`
	Throughput float64       `json:"throughput"`
	Source     string        `json:"source"`
}

// measureSpeeds takes each remote role's latency from the slice (the
// probes' when the slice made no call) and its throughput as capacity over
// latency; for chat, whose calls dominate, the latency is measured again
// under load: the slice's commonest memory-operation request sent
// max_inflight times at once to the first endpoint, so that a server that
// slows down as it batches is measured slowed down.
func measureSpeeds(ctx context.Context, cfg *config.Config, p *prober, s *SliceHealth) []RoleSpeed {
	var out []RoleSpeed
	for _, nr := range cfg.Models.Roles() {
		if nr.Role.Local() || nr.Name == "tokenizer" {
			continue
		}
		rs := RoleSpeed{Role: nr.Name, Calls: s.Calls[nr.Name], Latency: s.Latency[nr.Name], Source: "slice latency"}
		if rs.Latency == 0 {
			if ls := p.lat[nr.Name]; len(ls) > 0 {
				var sum time.Duration
				for _, l := range ls {
					sum += l
				}
				rs.Latency, rs.Source = sum/time.Duration(len(ls)), "probe latency"
			}
		}
		if nr.Name == "chat" && s.sample != nil {
			if l, n := burst(ctx, nr.Role.Endpoints[0], p.hc, *s.sample); l > 0 {
				rs.Latency, rs.Source = l, fmt.Sprintf("%d %s calls at once", n, s.sample.Purpose)
			}
		}
		if rs.Latency > 0 {
			rs.Throughput = float64(capacity(*nr.Role)) / rs.Latency.Seconds()
		}
		out = append(out, rs)
	}
	return out
}

// burst sends req max_inflight times at once to ep and returns the mean
// latency of the calls that succeeded and how many were sent.
func burst(ctx context.Context, ep config.Endpoint, hc *http.Client, req llm.ChatRequest) (time.Duration, int) {
	n := max(ep.MaxInflight, 1)
	c := llm.NewChatClient(ep, hc)
	var mu sync.Mutex
	var sum time.Duration
	ok := 0
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, min(ep.Timeout, doctorProbeTimeout))
			defer cancel()
			start := time.Now()
			if _, err := c.Chat(cctx, req); err == nil {
				mu.Lock()
				sum += time.Since(start)
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok == 0 {
		return 0, n
	}
	return sum / time.Duration(ok), n
}

// On the seven-fake setup (BenchmarkDoctorEstimate) the main-bme estimate
// was 3m09s against 3m37s measured at 1 s per call (0.87), but 38 s against
// 1m40s at 200 ms per call (0.38) on a machine loaded 6× over its two
// cores, where the fakes' own rule-based replies, not the latency, set the
// pace: the estimate is for servers that do the work, not for in-process
// fakes at small latencies.

// PaperStep is one scripts/reproduce-paper.sh step's work, as the script
// states it (its "Expected runtimes" block), for the native systems.
type PaperStep struct {
	Name      string
	Benchmark string
	// Episodes, and interactions per episode.
	Episodes, Interactions int
	// Questions in all; Answers answer calls per question (systems ×
	// budgets × variants); Judged whether each answer is judged by the
	// judge model.
	Questions, Answers int
	Judged             bool
	// Ingestions is ArborMem's ingestions per episode (variants that
	// change commits ingest again); Sequential runs one episode at a time.
	Ingestions int
	Sequential bool
}

// nativeSystems is how many native systems the main steps answer with
// (full, recent, bm25, summary, arbormem).
const nativeSystems = 5

// PaperSteps are the steps of scripts/reproduce-paper.sh that call models,
// with the script's counts (LongMemEval-S ~248 interactions per question,
// LoCoMo ~300 per conversation, BEAM 100K ~250 per chat, BranchMemEval
// ~47 per session; the LongMemEval subset of the supplementary analyses is
// 50 questions).
var PaperSteps = []PaperStep{
	{Name: "main-longmemeval", Benchmark: "longmemeval", Episodes: 500, Interactions: 248, Questions: 500, Answers: nativeSystems, Judged: true, Ingestions: 1},
	{Name: "main-locomo", Benchmark: "locomo", Episodes: 10, Interactions: 300, Questions: 1986, Answers: nativeSystems, Ingestions: 1},
	{Name: "main-beam", Benchmark: "beam", Episodes: 20, Interactions: 250, Questions: 400, Answers: nativeSystems, Judged: true, Ingestions: 1},
	{Name: "main-bme", Benchmark: "branchmemeval", Episodes: 33, Interactions: 47, Questions: 100, Answers: nativeSystems, Ingestions: 1},
	{Name: "sweep", Benchmark: "longmemeval", Episodes: 50, Interactions: 248, Questions: 50, Answers: 8 * nativeSystems, Judged: true, Ingestions: 1},
	{Name: "ablation-30b", Benchmark: "longmemeval", Episodes: 50, Interactions: 248, Questions: 50, Answers: len(AblationVariants), Judged: true, Ingestions: 3},
	{Name: "ablation-4b", Benchmark: "longmemeval", Episodes: 50, Interactions: 248, Questions: 50, Answers: len(AblationVariants), Judged: true, Ingestions: 3},
	{Name: "efficiency", Benchmark: "longmemeval", Episodes: 50, Interactions: 248, Questions: 50, Answers: 1, Judged: true, Ingestions: 1, Sequential: true},
}

// StepEstimate is one step's estimated wall time and GPU-hours.
type StepEstimate struct {
	Step     string        `json:"step"`
	Wall     time.Duration `json:"wall"`
	GPUHours float64       `json:"gpu_hours"`
	// Bound says which limit the wall time is: "throughput" (the servers
	// busy all along), "chain" (episodes waiting on their own calls) or
	// "cpu" (arbor's own computation).
	Bound string `json:"bound"`
	// Busy is the throughput bound, Chain the chain bound, CPU the bound of
	// arbor's own CPU (the slice's process CPU per interaction, spread over
	// the machine's cores).
	Busy  time.Duration `json:"busy"`
	Chain time.Duration `json:"chain"`
	CPU   time.Duration `json:"cpu"`
	Work  string        `json:"work"`
}

// Assumption of the estimate, printed under it.
const estimateAssumption = "ArborMem's calls per interaction and its commit time per interaction are the slice's (episodes one after another, servers otherwise idle); " +
	"every other native system costs one answer call per question (the summary baseline one more call per 8 interactions on BranchMemEval), and answers and judgements cost a memory operation's latency; " +
	"the run keeps the chat role's max_inflight in flight, each server sustaining max_inflight / (latency under a full batch) calls per second; a step takes the longer of its calls over that throughput " +
	"its longest chain of sequential calls (an episode's commits, then its answers, in waves of max_inflight episodes) and arbor's own CPU (the slice's per interaction, over this machine's cores); bridged systems are not counted; " +
	"GPU-hours = wall time × GPUs, one GPU per distinct chat or judge server and one for embed and rerank together (the paper's eighth A800)"

// estimateSteps turns the measured speeds and the slice into each step's
// wall time and GPU-hours.
func estimateSteps(cfg *config.Config, speeds []RoleSpeed, s *SliceHealth) ([]StepEstimate, string) {
	if s.Forest.Committed == 0 {
		return nil, ""
	}
	tput := map[string]float64{}
	lat := map[string]time.Duration{}
	for _, r := range speeds {
		tput[r.Role], lat[r.Role] = r.Throughput, r.Latency
	}
	if tput["chat"] == 0 {
		return nil, ""
	}
	gpus := gpuCount(cfg)
	steps := slices.Clone(PaperSteps)
	if n, i, q := bmeCounts(); n > 0 {
		for k := range steps {
			if steps[k].Benchmark == "branchmemeval" {
				steps[k].Episodes, steps[k].Interactions, steps[k].Questions = n, (i+n-1)/n, q
			}
		}
	}
	per := func(role string) float64 { return float64(s.Calls[role]) / float64(s.Forest.Committed) }
	var out []StepEstimate
	for _, st := range steps {
		interactions := float64(st.Episodes * st.Interactions * st.Ingestions)
		answers := float64(st.Questions * st.Answers)
		summaries := 0.0
		if st.Benchmark == "branchmemeval" && st.Answers >= nativeSystems {
			summaries = float64(st.Episodes*st.Interactions) / 8
		}
		chat := interactions*per("chat") + answers + summaries
		judge := 0.0
		if st.Judged {
			judge = answers
		}
		// Throughput bound: chat and judge share the chat servers when
		// the judge role points at them (the a800 setup).
		busy := chat / tput["chat"]
		if judge > 0 {
			if t := tput["judge"]; t > 0 && !sameServers(cfg.Models.Chat, cfg.Models.Judge) {
				busy = math.Max(busy, judge/t)
			} else {
				busy += judge / tput["chat"]
			}
		}
		for _, role := range []string{"embed", "rerank"} {
			if t := tput[role]; t > 0 {
				busy = math.Max(busy, interactions*per(role)/t)
			}
		}
		// Chain bound: an episode's commits, then its answers (and
		// judgements), one after another; episodes in waves of max_inflight.
		workers := capacity(cfg.Models.Chat)
		if st.Sequential {
			workers = 1
		}
		jobs := st.Episodes * st.Ingestions
		waves := math.Ceil(float64(jobs) / float64(max(workers, 1)))
		perQ := float64(st.Questions) / float64(st.Episodes) * float64(st.Answers) / float64(st.Ingestions)
		callLat := lat["chat"].Seconds()
		if st.Judged {
			perQ *= 2
		}
		chain := waves * (float64(st.Interactions)*s.PerInteraction().Seconds() + perQ*callLat)
		cpu := interactions * s.CPUPerInteraction().Seconds() / float64(runtime.NumCPU())
		e := StepEstimate{Step: st.Name, Bound: "throughput", Busy: durationOf(busy), Chain: durationOf(chain), CPU: durationOf(cpu),
			Work: fmt.Sprintf("%d episodes × %d interactions × %d ingestion(s), %d answers%s", st.Episodes, st.Interactions, st.Ingestions, int(answers), map[bool]string{true: " judged", false: ""}[st.Judged])}
		wall := busy
		if chain > wall {
			wall, e.Bound = chain, "chain"
		}
		if cpu > wall {
			wall, e.Bound = cpu, "cpu"
		}
		e.Wall = durationOf(wall)
		e.GPUHours = wall / 3600 * float64(gpus)
		out = append(out, e)
	}
	return out, estimateAssumption
}

func durationOf(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

// bmeCounts counts the embedded BranchMemEval set: episodes, interactions
// (with the canonical interactions questions bring) and questions.
func bmeCounts() (episodes, interactions, questions int) {
	eps, err := datasets.Load(context.Background(), "branchmemeval", "", datasets.Options{})
	if err != nil {
		return 0, 0, 0
	}
	for _, ep := range eps {
		for _, st := range ep.Steps {
			if st.Interaction != nil {
				interactions++
			} else if st.Question != nil {
				questions++
				if st.Question.Canonical != nil {
					interactions++
				}
			}
		}
	}
	return len(eps), interactions, questions
}

// sameServers reports whether two roles point at the same URLs.
func sameServers(a, b config.Role) bool {
	urls := map[string]bool{}
	for _, ep := range a.Endpoints {
		urls[ep.URL] = true
	}
	for _, ep := range b.Endpoints {
		if !urls[ep.URL] {
			return false
		}
	}
	return len(b.Endpoints) > 0
}

// gpuCount is one GPU per distinct chat or judge server, plus one for the
// embed and rerank servers together when either is remote.
func gpuCount(cfg *config.Config) int {
	urls := map[string]bool{}
	for _, r := range []config.Role{cfg.Models.Chat, cfg.Models.Judge} {
		if r.Local() {
			continue
		}
		for _, ep := range r.Endpoints {
			urls[ep.URL] = true
		}
	}
	n := len(urls)
	if !cfg.Models.Embed.Local() || !cfg.Models.Rerank.Local() {
		n++
	}
	return max(n, 1)
}
