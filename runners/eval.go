package runners

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/progress"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/tokens"
	"github.com/arbor-eval/arbor/scoring"

	// Benchmarks register their loaders.
	_ "github.com/arbor-eval/arbor/datasets/beam"
	_ "github.com/arbor-eval/arbor/datasets/branchmemeval"
	_ "github.com/arbor-eval/arbor/datasets/locomo"
	_ "github.com/arbor-eval/arbor/datasets/longmemeval"
)

// Outcome is what a finished run leaves behind.
type Outcome struct {
	Dir      string
	Samples  []record.Sample
	Episodes []record.EpisodeStat
}

// run is one Run call's shared state.
type run struct {
	plan     *Plan
	d        *deps
	samples  *resumable[record.Sample]
	episodes *resumable[record.EpisodeStat]
	bundles  *bundleLog // nil when run.bundles is off
	forests  *forestLog // nil when run.bundles is off
	bar      *progress.Reporter
	mu       sync.Mutex // guards acc
	// acc is the running accuracy per system, for the bar: pooled over
	// systems it would say nothing about any of them.
	acc map[string]*runningAcc
	// toIngest and ingested count the interactions the run commits, shown
	// beside accuracy: on LongMemEval a question comes only after hundreds
	// of commits, and a bar counting questions alone would sit still.
	toIngest int
	ingested atomic.Int64
	// planned are the memory instances still to replay, in the order they
	// start, with their commits and answers to do: the progress bar's ETA
	// schedules them on the run's workers (progress.Reporter.Job).
	planned []plannedJob
	// fp is the config fingerprint every new sample records.
	fp string
	// deadOnce says once that a model role was given up.
	deadOnce sync.Once
}

// barHook, when set (by a benchmark), receives each run's progress
// reporter as it is made, to sample its ETA against the truth.
var barHook func(*progress.Reporter)

// Run executes the plan: replays every selected episode through every
// system (episodes in parallel, bounded by the chat role's endpoint
// capacity), records each answered question at once, and renders the tables.
// Re-running the same plan resumes: recorded samples are skipped.
func Run(ctx context.Context, p Plan) (*Outcome, error) {
	if err := p.defaults(); err != nil {
		return nil, err
	}
	if p.Config.Models.Tokenizer.Local() {
		// The offline Qwen3 counter's vocabulary (tens of milliseconds of
		// CPU) loads while the dataset is read; newDeps takes the same
		// shared counter, waiting for the load if it has not finished.
		go tokens.Default()
	}
	src := &source{plan: &p}
	eps, err := src.index(ctx)
	if err != nil {
		return nil, err
	}
	if err := provider.Preflight(ctx, p.Config, p.Log); err != nil {
		return nil, err
	}
	d, err := newDeps(ctx, p.Config, p.Benchmark)
	if err != nil {
		return nil, err
	}
	if note := officialJudgeNote(p.Config, d.prompts, p.Benchmark, d.judge != ""); note != "" {
		fmt.Fprintln(p.Log, "note:", note)
	}
	// Close stops the sidecars and flushes the response cache's background
	// writes; a failure costs only cache hits on a re-run, so it is
	// reported, not fatal.
	defer func() {
		if err := d.close(); err != nil {
			fmt.Fprintln(p.Log, "warning:", err)
		}
	}()
	dir := filepath.Join(p.Config.Run.Results, p.runID())
	// One writer per run folder: a second process would interleave records
	// on one line of samples.jsonl.
	lock, err := record.LockDir(dir, p.Command)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	record.RemoveStaleTemps(dir) // a killed run's half-written manifest or subset
	m, err := newManifest(dir, &p, d, statsOf(src.subset).Questions)
	if err != nil {
		return nil, err
	}
	m.AddSelection(selectionOf(&p, eps, src.available))
	if src.subset != nil {
		if err := writeSubset(dir, p.Benchmark, src.subset, p.Log); err != nil {
			return nil, err
		}
	}
	r := &run{plan: &p, d: d, fp: m.Fingerprint, acc: map[string]*runningAcc{}}
	samplesPath := filepath.Join(dir, "samples.jsonl")
	r.samples, err = openResumable(samplesPath, record.Sample.Key, func(s record.Sample) bool { return s.Error != "" }, p.RetryErrors)
	if err != nil {
		return nil, err
	}
	defer r.samples.Close()
	if r.samples.Repaired > 0 {
		fmt.Fprintf(p.Log, "repaired %s: cut a torn last line of %d bytes (a previous run was killed mid-write)\n", samplesPath, r.samples.Repaired)
	}
	r.episodes, err = openResumable(filepath.Join(dir, "episodes.jsonl"), record.EpisodeStat.Key, func(e record.EpisodeStat) bool { return e.Error != "" }, p.RetryErrors)
	if err != nil {
		return nil, err
	}
	defer r.episodes.Close()
	if r.bundles, err = openBundles(dir, p.Config.Run.Bundles); err != nil {
		return nil, err
	}
	defer r.bundles.close()
	if r.forests, err = openForests(dir, p.Config.Run.Bundles); err != nil {
		return nil, err
	}
	defer r.forests.close()

	jobs, total, done := r.jobs(eps)
	if len(jobs) > 0 || !manifestReadable(dir) {
		m.Updated = time.Now().UTC()
		if err := record.WriteManifest(dir, m); err != nil {
			return nil, err
		}
	} else if m, err = recordSelection(dir, m.Latest()); err != nil {
		// A run with nothing to do leaves its manifest as it was (a forced
		// resume must not claim the old samples for its config) but for
		// its selection, which is what its tables cover.
		return nil, err
	}
	// The bar counts answers and commits alike: on LongMemEval hundreds of
	// commits come before each question. Under -v the log lines are the
	// progress, and a bar would tear them.
	r.bar = progress.New(p.Log, fmt.Sprintf("%s %s", p.Kind, p.Benchmark), total+r.toIngest, p.Config.Run.Progress && !p.Config.Run.Verbose)
	if done > 0 {
		r.bar.Skip(done, fmt.Sprintf("(resumed %d)", done))
	}
	for _, pj := range r.planned {
		r.bar.Job(pj.key, pj.system+unitCommit, pj.commits)
		r.bar.Job(pj.key, pj.system+unitAnswer, pj.answers)
	}
	r.bar.SetWorkers(r.workers())
	for _, sys := range p.Systems {
		c, a := unitPriors(p.Config, p.Benchmark, sys)
		r.bar.Prior(sys+unitCommit, c)
		r.bar.Prior(sys+unitAnswer, a)
	}
	if barHook != nil {
		barHook(r.bar)
	}
	// While every endpoint of a role fails, no answer or commit moves the
	// bar; this keeps its line saying so (and its rate, hence its ETA,
	// falling) until the role recovers or is given up.
	stopTicker := make(chan struct{})
	var ticking sync.WaitGroup
	ticking.Add(1)
	go func() {
		defer ticking.Done()
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopTicker:
				return
			case <-t.C:
				if r.d.models.Failing() != "" {
					r.bar.Add(0, r.status())
				}
			}
		}
	}()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.workers())
	// Episodes are decoded again and handed to the workers as they come:
	// g.Go blocks while every worker is busy, so a streaming benchmark holds
	// at most one episode per worker (plus the one being decoded).
	serr := src.replay(gctx, func(ep *datasets.Episode) error {
		for _, j := range jobs[ep.ID] {
			j.ep = ep
			g.Go(func() error { return r.replay(gctx, j) })
		}
		return gctx.Err()
	})
	err = g.Wait()
	if err == nil && serr != nil {
		err = serr
	}
	close(stopTicker)
	ticking.Wait()
	r.bar.Finish()
	if p.Config.Run.Verbose && len(d.models.Metrics.Rows()) > 0 {
		_ = d.models.Metrics.WriteTable(p.Log)
	}
	if err != nil {
		return nil, err
	}
	if err := r.samples.Close(); err != nil {
		return nil, err
	}
	if err := r.episodes.Close(); err != nil {
		return nil, err
	}
	ro, err := ReportOptionsFrom(p.Config)
	if err != nil {
		return nil, err
	}
	ro.Tables = p.Tables
	ro.Selection = m.Latest()
	o, err := Report(dir, p.Out, ro)
	if err != nil {
		return nil, err
	}
	return o, checkIntegrity(dir, &p, o)
}

func (p *Plan) defaults() error {
	if p.Config == nil {
		return errors.New("plan has no config")
	}
	if p.Kind == "" {
		p.Kind = "eval"
	}
	bench, err := datasets.Canonical(p.Benchmark)
	if err != nil {
		return err
	}
	p.Benchmark = bench
	if len(p.Systems) == 0 {
		p.Systems = DefaultSystems
	}
	if len(p.Budgets) == 0 {
		p.Budgets = []int{p.Config.Answer.Budget}
	}
	if len(p.Variants) == 0 {
		p.Variants = []string{""}
	}
	if p.Out == nil {
		p.Out = os.Stdout
	}
	if p.Log == nil {
		p.Log = os.Stderr
	}
	return nil
}

// header is what selection and resume need of an episode: its id and its
// questions' ids, without the (possibly huge) history.
type header struct {
	id           string
	questions    []string
	interactions int // to commit, canonical question turns included
}

// source reads the plan's episodes twice: once to index and select them,
// once to replay them. Benchmarks that stream (datasets.Streams) are decoded
// twice and never held whole; the others are loaded once and kept.
type source struct {
	plan     *Plan
	all      []datasets.Episode
	selected map[string]bool
	// subset is the sampled or pinned subset before sharding and limits;
	// nil without one.
	subset []header
	// available is the number of episodes the dataset offered.
	available int
}

// index reads every episode's header and applies the plan's selection
// (--episodes, --subset, --limit, --shard, in that order).
func (s *source) index(ctx context.Context) ([]header, error) {
	p := s.plan
	// Large files (LongMemEval _m is 2.7 GB) take minutes to decode: show it.
	bar := progress.NewBytes(p.Log, "index "+p.Benchmark, p.Config.Run.Progress)
	opt := datasets.Options{Categories: p.Categories, Progress: bar.Update}
	var hs []header
	keep := !datasets.Streams(p.Benchmark)
	err := datasets.Each(ctx, p.Benchmark, p.Data, opt, func(e datasets.Episode) error {
		h := header{id: e.ID}
		for _, st := range e.Steps {
			if st.Interaction != nil || (st.Question != nil && st.Question.Canonical != nil) {
				h.interactions++
			}
			if st.Question != nil {
				h.questions = append(h.questions, st.Question.ID)
			}
		}
		hs = append(hs, h)
		if keep {
			s.all = append(s.all, e)
		}
		return nil
	})
	bar.Finish()
	if err != nil {
		return nil, err
	}
	s.available = len(hs)
	sel, subset, err := selectHeaders(p, hs)
	if err != nil {
		return nil, err
	}
	s.subset = subset
	s.selected = map[string]bool{}
	for _, h := range sel {
		s.selected[h.id] = true
	}
	return sel, nil
}

// replay hands every selected episode to fn, in file order.
func (s *source) replay(ctx context.Context, fn func(*datasets.Episode) error) error {
	left := len(s.selected)
	visit := func(e datasets.Episode) error {
		if !s.selected[e.ID] {
			return nil
		}
		if err := fn(&e); err != nil {
			return err
		}
		if left--; left == 0 {
			return datasets.ErrStop // nothing selected further on: stop decoding
		}
		return nil
	}
	if s.all != nil {
		for _, e := range s.all {
			if err := visit(e); err != nil {
				if errors.Is(err, datasets.ErrStop) {
					return nil
				}
				return err
			}
		}
		return nil
	}
	return datasets.Each(ctx, s.plan.Benchmark, s.plan.Data, datasets.Options{Categories: s.plan.Categories}, visit)
}

// selectHeaders applies the plan's selection and returns the selected
// headers and, when a subset was sampled or pinned, the whole subset.
func selectHeaders(p *Plan, hs []header) (sel, subset []header, err error) {
	if len(hs) == 0 {
		src := p.Data
		if src == "" {
			src = "the embedded set"
		}
		return nil, nil, fmt.Errorf("%s: %s holds no episodes", p.Benchmark, src)
	}
	if len(p.Episodes) > 0 {
		want := map[string]bool{}
		for _, id := range p.Episodes {
			want[id] = true
		}
		var keep []header
		for _, h := range hs {
			if want[h.id] {
				keep = append(keep, h)
				delete(want, h.id)
			}
		}
		if len(want) > 0 {
			return nil, nil, fmt.Errorf("--episodes: not in %s: %v", p.Benchmark, keys(want))
		}
		hs = keep
	}
	switch {
	case len(p.SubsetIDs) > 0:
		if hs, err = pinSubset(hs, p.SubsetIDs, p.Benchmark); err != nil {
			return nil, nil, err
		}
		subset = hs
	case p.Subset > 0 && p.Subset < len(hs):
		hs = pick(hs, subsetIndices(len(hs), p.Subset, p.Seed))
		subset = hs
	}
	// --limit before --shard: "--limit 10 --shard k/2" on two machines
	// makes the same ten episodes as "--limit 10" on one.
	if p.Limit > 0 && p.Limit < len(hs) {
		hs = hs[:p.Limit]
	}
	if p.Shard.N > 0 {
		var keep []header
		for i, h := range hs {
			if i%p.Shard.N == p.Shard.K-1 {
				keep = append(keep, h)
			}
		}
		hs = keep
	}
	if len(hs) == 0 {
		return nil, nil, fmt.Errorf("no episodes selected from %s", p.Benchmark)
	}
	return hs, subset, nil
}

// subsetIndices samples n of size indices with seed, sorted.
func subsetIndices(size, n, seed int) []int {
	idx := rand.New(rand.NewSource(int64(seed))).Perm(size)[:n]
	sort.Ints(idx)
	return idx
}

func pick[T any](xs []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, k := range idx {
		out[i] = xs[k]
	}
	return out
}

// Subset samples n episodes with seed, keeping their original order. The
// same seed always yields the same subset, whatever the systems.
func Subset(eps []datasets.Episode, n int, seed int) []datasets.Episode {
	return pick(eps, subsetIndices(len(eps), n, seed))
}

// job is one memory instance: an episode, a system, and the variants that
// share its ingestion.
type job struct {
	ep       *datasets.Episode
	system   string
	build    string   // variant applied at construction
	variants []string // variants answered from this instance ("" = reference)
}

// jobs groups the plan into memory instances still to replay (a sample or
// the episode record missing) and counts the samples to make and those
// already recorded.
func (r *run) jobs(hs []header) (jobs map[string][]job, total, done int) {
	p := r.plan
	jobs = map[string][]job{}
	for _, h := range hs {
		for _, sys := range p.Systems {
			groups := groupVariants(sys, p.Variants)
			for _, build := range sortedBuilds(groups) {
				vs := groups[build]
				// A run killed after an episode's last sample but before its
				// episode record must replay the episode to record it.
				epKey := record.EpisodeStat{Benchmark: p.Benchmark, Episode: h.id, System: sys, Variant: build}.Key()
				missing := !r.episodes.done(epKey)
				answers := 0
				for _, q := range h.questions {
					for _, v := range vs {
						for _, b := range p.Budgets {
							total++
							if r.samples.done(r.key(h.id, q, sys, v, b)) {
								done++
							} else {
								missing = true
								answers++
							}
						}
					}
				}
				if missing {
					jobs[h.id] = append(jobs[h.id], job{system: sys, build: build, variants: vs})
					r.toIngest += h.interactions
					r.planned = append(r.planned, plannedJob{key: jobKey(h.id, sys, build), system: sys, commits: h.interactions, answers: answers})
				}
			}
		}
	}
	return jobs, total, done
}

// plannedJob is one memory instance's work for the progress bar.
type plannedJob struct {
	key, system      string
	commits, answers int
}

// The progress bar's unit classes: a system's commits and its answers
// cost differently (ArborMem's commit makes six model calls, a baseline's
// none), so each is measured on its own.
const (
	unitCommit = "/commit"
	unitAnswer = "/answer"
)

// jobKey names a memory instance for the progress bar.
func jobKey(episode, system, build string) string {
	return episode + "\x1f" + system + "\x1f" + build
}

// buildOf is the variant a system's instance is built with to answer
// variant: recall-only ablations share the reference instance's ingestion
// (arbormem.RecallOnly).
func buildOf(system, variant string) string {
	if variant == "" || (system == "arbormem" && arbormem.RecallOnly(variant)) {
		return ""
	}
	return variant
}

// sortedBuilds lists the builds of groupVariants' groups in order.
func sortedBuilds(groups map[string][]string) []string {
	builds := make([]string, 0, len(groups))
	for b := range groups {
		builds = append(builds, b)
	}
	sort.Strings(builds)
	return builds
}

// groupVariants maps each construction-time variant to the variants that can
// be answered from an instance built with it: recall-only ablations share
// the reference instance's ingestion (arbormem.RecallOnly says which).
func groupVariants(system string, variants []string) map[string][]string {
	g := map[string][]string{}
	for _, v := range variants {
		build := buildOf(system, v)
		g[build] = append(g[build], v)
	}
	return g
}

func (r *run) key(episode, question, sys, variant string, budget int) string {
	return record.Sample{Benchmark: r.plan.Benchmark, Episode: episode, Question: question, System: sys, Variant: variant, Budget: budget}.Key()
}

func (r *run) workers() int {
	if w := r.plan.Config.Run.Workers; w > 0 {
		return w
	}
	if c := r.d.models.ChatCapacity; c > 0 {
		return c
	}
	return runtime.NumCPU()
}

// replay runs one memory instance through its episode. Model and memory
// failures become error samples; only a failure to record is fatal.
func (r *run) replay(ctx context.Context, j job) error {
	p := r.plan
	key := jobKey(j.ep.ID, j.system, j.build)
	// Whatever the instance did not get to (it failed, or ended early)
	// is no longer work the ETA waits for.
	defer r.bar.EndJob(key)
	factory, err := r.d.factory(j.system, j.build)
	if err != nil {
		return err
	}
	stat := record.EpisodeStat{Benchmark: p.Benchmark, Episode: j.ep.ID, System: j.system, Variant: j.build,
		Heuristic: r.d.heuristics(j.system)}
	if err := r.d.models.Dead(); err != nil {
		return r.failDead(j, stat, err)
	}
	ingCtx, ingUsage := llm.WithUsage(ctx)
	sys, err := factory(ingCtx, j.ep.ID)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return r.failEpisode(j, stat, fmt.Errorf("create %s: %w", j.system, err))
	}
	// Bridged systems hand their sidecar process back (cleaned) for the
	// next episode.
	if c, ok := sys.(io.Closer); ok {
		defer c.Close()
	}
	var (
		ingest     time.Duration
		committed  []string
		commitErr  error
		commitErrs int
		sealed     int // len(committed) when last sealed
	)
	commit := func(in *dialog.Interaction) {
		t0 := time.Now()
		if err := sys.Commit(ingCtx, *in); err != nil {
			commitErrs++
			if commitErr == nil {
				commitErr = fmt.Errorf("%s: %w", j.system, err) // systems name the interaction themselves
			}
		}
		took := time.Since(t0)
		ingest += took
		committed = append(committed, in.ID)
		r.ingested.Add(1)
		r.bar.WorkOn(key, j.system+unitCommit, 1, took, r.status())
	}
	for i, st := range j.ep.Steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.d.models.Dead(); err != nil {
			// Spending the rest of the episode on fallbacks and failed
			// answers would take minutes and measure nothing.
			return r.failDead(j, stat, err)
		}
		if st.Interaction != nil {
			prefetchNext(ingCtx, sys, j.ep.Steps, i)
			commit(st.Interaction)
			continue
		}
		q := st.Question
		if sealed != len(committed) {
			// The dialogue before the question has ended: systems that
			// finish work then (session summaries) do it as ingestion.
			t0 := time.Now()
			if err := memory.Seal(ingCtx, sys); err != nil && commitErr == nil {
				commitErr = fmt.Errorf("%s: seal before %s: %w", j.system, q.ID, err)
			}
			ingest += time.Since(t0)
			sealed = len(committed)
		}
		lat := record.Latency{Ingested: len(committed)}
		if len(committed) > 0 {
			lat.IngestPerInteraction = ingest.Seconds() / float64(len(committed))
		}
		for _, v := range j.variants {
			for _, b := range p.Budgets {
				if key := r.key(j.ep.ID, q.ID, j.system, v, b); r.samples.done(key) {
					if err := r.recallAgain(ctx, j, sys, q, v, b, key); err != nil {
						return err
					}
					continue
				}
				s, bundle := r.answer(ctx, j, sys, q, v, b, lat)
				if err := ctx.Err(); err != nil {
					// An answer cut short by an interrupt is not a result:
					// recorded as an error sample, resuming would skip it.
					return err
				}
				// A recorded sample is skipped on resume, so its replies
				// must be in the cache before it is: a kill between the two
				// would otherwise leave replies that a re-run asks for again.
				r.d.models.Cache.Sync()
				// The bundle before its sample: a kill between the two
				// leaves a bundle whose sample is made again (and its
				// bundle superseded), never a recorded sample that resume
				// skips without its bundle.
				if err := r.bundles.write(s, q, bundle, sys); err != nil {
					return err
				}
				if err := r.samples.write(s); err != nil {
					return err
				}
				r.progress(s)
			}
		}
		if q.Canonical != nil {
			commit(q.Canonical)
		}
	}
	if err := ctx.Err(); err != nil {
		return err // the last commit may have been cut short: record nothing
	}
	stat.Committed = len(committed)
	stat.IngestSeconds = ingest.Seconds()
	stat.Calls = toCalls(ingUsage.Snapshot())
	if commitErr != nil {
		stat.Error = commitErr.Error()
	}
	stat.Degraded = degradedOf(sys, commitErrs)
	localization(&stat, j.ep, sys, committed)
	r.d.models.Cache.Sync() // as for samples: the episode's replies before its record
	// The forest before the episode record, as bundles before samples: an
	// episode recorded is never missing its forest.
	if err := r.forests.write(stat, j.variants, sys); err != nil {
		return err
	}
	return r.episodes.write(stat)
}

// recallAgain makes the recall of a sample recorded by an earlier run,
// which resume does not answer again. A system may keep what a recall
// computed for the commit that follows it (ArborMem reuses the question's
// localization when the question's own interaction is committed); without
// the recall that commit would make those calls itself, moving them into
// the episode's ingest cost and the memory off the state an uninterrupted
// run reaches. Its calls were counted in the recorded sample, so they are
// not counted again. The recall also completes a bundle that a run killed
// between a sample and its bundle (before bundles were written first) or
// a bundle write that failed left missing.
func (r *run) recallAgain(ctx context.Context, j job, sys memory.System, q *datasets.Question, variant string, budget int, key string) error {
	qctx, _ := llm.WithUsage(ctx)
	query := memory.Query{ID: q.ID, Text: q.Text, Time: q.Time, Budget: budget, Benchmark: r.plan.Benchmark}
	if variant != j.build {
		query.Variant = variant
	}
	bundle, err := sys.Recall(qctx, query)
	if err != nil || ctx.Err() != nil {
		return ctx.Err() // a failed recall changes nothing: the sample stands
	}
	if r.bundles == nil || r.bundles.Has(key) || r.samples.failedBefore[key] {
		return nil
	}
	return r.bundles.write(r.baseSample(j, q, variant, budget), q, &bundle, sys)
}

// prefetchNext lets sys start on the interaction of steps[i+1] (when that
// step is one) while steps[i] commits; see memory.Prefetcher. A question's
// own interaction is not prefetched: it is committed after the answer.
func prefetchNext(ctx context.Context, sys memory.System, steps []datasets.Step, i int) {
	p, ok := sys.(memory.Prefetcher)
	if !ok || i+1 >= len(steps) || steps[i+1].Interaction == nil {
		return
	}
	p.Prefetch(ctx, *steps[i+1].Interaction)
}

// failDead records what is left of job j as errors once a model role has
// been given up (every endpoint failing for retry.dead_after): the
// remaining questions become error samples at once and the episode record
// an error, so that --retry-errors redoes them when the endpoints are back.
// The first call says so on the log.
func (r *run) failDead(j job, stat record.EpisodeStat, cause error) error {
	r.deadOnce.Do(func() {
		fmt.Fprintf(r.plan.Log, "error: %v; the remaining questions are recorded as errors; once the endpoints are back, run the same command with --retry-errors\n", cause)
	})
	return r.failEpisode(j, stat, cause)
}

func (r *run) failEpisode(j job, stat record.EpisodeStat, cause error) error {
	stat.Error = cause.Error()
	for _, q := range j.ep.Questions() {
		for _, v := range j.variants {
			for _, b := range r.plan.Budgets {
				if r.samples.done(r.key(j.ep.ID, q.ID, j.system, v, b)) {
					continue
				}
				s := r.baseSample(j, q, v, b)
				s.Error = stat.Error
				if err := r.samples.write(s); err != nil {
					return err
				}
				r.progress(s)
			}
		}
	}
	return r.episodes.write(stat)
}

func (r *run) baseSample(j job, q *datasets.Question, variant string, budget int) record.Sample {
	primary := ""
	if len(r.d.scorers) > 0 {
		primary = r.d.scorers[0].Name()
	}
	return record.Sample{Benchmark: r.plan.Benchmark, Episode: j.ep.ID, Question: q.ID, System: j.system,
		Variant: variant, Budget: budget, Category: q.Category, Labels: q.Labels, Gold: q.Gold,
		Confounder: q.Confounder, Primary: primary, Scores: map[string]record.ScoreRecord{},
		EvidenceRecall: -1, Heuristic: r.d.heuristics(j.system), Fingerprint: r.fp, Judge: r.d.judge}
}

// answer recalls, answers and scores one question at one budget, and
// returns the recalled bundle too (nil when recall failed). The result is
// named so that the deferred call accounting reaches the caller.
func (r *run) answer(ctx context.Context, j job, sys memory.System, q *datasets.Question, variant string, budget int, lat record.Latency) (s record.Sample, recalled *memory.Bundle) {
	s = r.baseSample(j, q, variant, budget)
	s.Latency = lat
	qctx, usage := llm.WithUsage(ctx)
	defer func() { s.Calls = toCalls(usage.Snapshot()) }()
	query := memory.Query{ID: q.ID, Text: q.Text, Time: q.Time, Budget: budget, Benchmark: r.plan.Benchmark}
	if variant != j.build {
		query.Variant = variant
	}
	t0 := time.Now()
	bundle, err := sys.Recall(qctx, query)
	recallTime := time.Since(t0)
	s.Latency.QueryPrep = recallTime.Seconds()
	if err != nil {
		s.Error = fmt.Sprintf("recall: %v", err)
		return s, nil
	}
	recalled = &bundle
	s.EvidenceTokens = bundle.Tokens()
	rec := r.d.recaller(q, bundle)
	s.EvidenceRecall = rec.Gold
	if rec.Answer >= 0 {
		s.AnswerInBundle = &rec.Answer
	}
	s.ConfounderInBundle = rec.Confounder
	if bundle.Trace != nil {
		if len(bundle.Trace.Channels) > 0 {
			s.Channels = map[string]int{}
			for ch, n := range bundle.Trace.Channels {
				s.Channels[string(ch)] = n
			}
		}
		if bundle.Trace.Localized && j.ep.Latent != nil {
			if want, ok := j.ep.Latent.Branch[q.ID]; ok {
				in := bundle.Trace.Parent != "" && j.ep.Latent.Branch[bundle.Trace.Parent] == want
				s.QuestionParentInBranch = &in
			}
		}
	}
	renderer, _ := sys.(memory.Renderer)
	t1 := time.Now()
	res, err := r.d.answerer.Answer(qctx, query, bundle, renderer)
	// Paper §6.4: query preparation is "memory retrieval, state localization
	// when applicable, and evidence serialization", so the answerer's time
	// outside its model call (rendering the messages) counts as preparation;
	// TTFT and the full query are measured from the start of the query (the
	// paper's ArborMem TTFT of 0.381 s exceeds full query minus preparation,
	// which only this reading allows). Evidence-recall bookkeeping is the
	// harness's own and is left out.
	prep := recallTime + max(time.Since(t1)-res.Latency, 0)
	s.Latency.QueryPrep = prep.Seconds()
	s.Latency.TTFT = (prep + res.TTFT).Seconds()
	s.Latency.Answer = res.Latency.Seconds()
	s.Latency.FullQuery = (prep + res.Latency).Seconds()
	if err != nil {
		s.Error = fmt.Sprintf("answer: %v", err)
		return s, recalled
	}
	s.Prediction = res.Text
	for _, sc := range r.d.scorers {
		out, err := sc.Score(qctx, q, res.Text)
		if err != nil {
			if s.Error == "" {
				s.Error = fmt.Sprintf("score %s: %v", sc.Name(), err)
			}
			continue
		}
		s.Scores[sc.Name()] = scoring.ToRecord(out, sc.Heuristic())
	}
	return s, recalled
}

// runningAcc is one system's running accuracy.
type runningAcc struct {
	scored   float64
	answered int
}

func (r *run) progress(s record.Sample) {
	key := jobKey(s.Episode, s.System, buildOf(s.System, s.Variant))
	r.mu.Lock()
	a := r.acc[s.System]
	if a == nil {
		a = &runningAcc{}
		r.acc[s.System] = a
	}
	a.answered++
	a.scored += s.PrimaryScore()
	if r.plan.Config.Run.Verbose {
		fmt.Fprintf(r.plan.Log, "%s %s %s/%s budget=%d score=%.2f evidence=%d recall=%.2f prediction=%.100q%s\n",
			s.System, variantLabel(s.Variant), s.Episode, s.Question, s.Budget, s.PrimaryScore(), s.EvidenceTokens, s.EvidenceRecall, s.Prediction, errSuffix(s.Error))
	}
	r.mu.Unlock()
	if fromCache(s.Calls) {
		r.bar.SkipOn(key, s.System+unitAnswer, 1, r.status()) // instant: it must not speed up the ETA
		return
	}
	r.bar.WorkOn(key, s.System+unitAnswer, 1, time.Duration(s.Latency.FullQuery*float64(time.Second)), r.status())
}

// fromCache reports whether every model call of a sample was a cache hit
// (and there was one).
func fromCache(calls map[string]record.Calls) bool {
	n := 0
	for _, c := range calls {
		if c.CacheHits < c.Count {
			return false
		}
		n += c.Count
	}
	return n > 0
}

// status is the bar's text: running accuracy per system, in the plan's
// order, and ingestion progress.
func (r *run) status() string {
	r.mu.Lock()
	var parts []string
	for _, sys := range r.plan.Systems {
		if a := r.acc[sys]; a != nil && a.answered > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f%%", sys, 100*a.scored/float64(a.answered)))
		}
	}
	r.mu.Unlock()
	s := "acc –"
	if len(parts) > 0 {
		s = "acc " + strings.Join(parts, " ")
	}
	if r.toIngest > 0 {
		s += fmt.Sprintf(" · ingested %d/%d", r.ingested.Load(), r.toIngest)
	}
	if r.d != nil {
		if f := r.d.models.Failing(); f != "" {
			s += " · " + f
		}
	}
	return s
}

func variantLabel(v string) string {
	if v == "" {
		return "reference"
	}
	return v
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return " error=" + e
}

// degradedOf gathers a replayed instance's degraded counts: what the system
// reports of its own operations, and the commits that returned an error.
func degradedOf(sys memory.System, commitErrs int) *record.Degraded {
	d := &record.Degraded{IngestErrors: commitErrs}
	if h, ok := sys.(memory.HealthReporter); ok {
		m := h.Health()
		d.Fallbacks, d.ModelErrors, d.BadReplies, d.Repaired = m.Fallbacks, m.ModelErrors, m.BadReplies, m.Repaired
	}
	if !d.Any() {
		return nil
	}
	return d
}

func toCalls(u map[string]llm.RoleUsage) map[string]record.Calls {
	if len(u) == 0 {
		return nil
	}
	out := map[string]record.Calls{}
	for role, c := range u {
		out[role] = record.Calls{Count: c.Count, Errors: c.Errors, CacheHits: c.CacheHits, PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens}
	}
	return out
}

// localization fills the commit-side localization figures for systems that
// place interactions, on episodes with latent branches (DESIGN.md).
func localization(stat *record.EpisodeStat, ep *datasets.Episode, sys memory.System, committed []string) {
	placer, ok := sys.(memory.Placer)
	if !ok || ep.Latent == nil {
		return
	}
	stat.Localizes = true
	seen := map[string]bool{}
	for _, id := range committed {
		branch, known := ep.Latent.Branch[id]
		opens := known && !seen[branch]
		if known {
			seen[branch] = true
		}
		if opens {
			stat.Opens++
		}
		parent, ok := placer.ParentOf(id)
		if !ok || !known {
			continue
		}
		newRoot := parent == ""
		if newRoot {
			stat.NewRoots++
		}
		if newRoot == opens {
			stat.OpenedCorrectly++
		}
		if (newRoot && opens) || (!newRoot && ep.Latent.Branch[parent] == branch) {
			stat.PlacedInBranch++
		}
	}
}
