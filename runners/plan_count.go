package runners

// arbor plan: count what a run will do from the data alone. The episodes
// are read once (as the run's index does) and selected as the run selects
// them; each system's calls per committed interaction and per answer come
// from plan_rates.go; nothing is committed, recalled or answered, so a plan
// costs a read of the data, not a run (issue 28, item 9). The exact replay
// (DryRun, plan_dry.go) stays behind --replay.

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/baselines"
	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/progress"
	"github.com/arbor-eval/arbor/pkg/tokens"
	"github.com/arbor-eval/arbor/scoring"
)

// epCount is what a plan needs of one episode.
type epCount struct {
	header
	// summaries is the session-summary baseline's updates (baselines
	// summary: at each session's end, every summary_every interactions on
	// BranchMemEval, and before a question while a session is open).
	summaries int
	// judgeCalls is the judge calls its questions need once answered
	// (BEAM: one per rubric item; LongMemEval: one).
	judgeCalls int
	// tokens are Qwen3 counts (only when a chat role is remote): the
	// interactions committed, the interactions the summaries read, and
	// each question's history before it, capped by the plan's budgets.
	ingestTokens, summaryTokens int
	history                     []int
}

// The prompt tokens a call carries besides the data it reads (its
// template, instructions and the chat template), fitted once to the exact
// replay's counts under configs/a800.yaml on the shipped BranchMemEval, the
// LoCoMo development half and the judged fixtures (`arbor plan ... --replay`, the commands
// beside planRatios): memory operations came to 180-260 tokens beyond
// the interaction, answers to 1,000-1,400 beyond the evidence.
const (
	opOverhead      = 230  // one ArborMem memory operation
	summaryOverhead = 400  // one session-summary update
	answerOverhead  = 1000 // one answer (system anchor, directives, question)
	judgeOverhead   = 200  // one LongMemEval judgement (question, gold, a short answer); 179 fitted
	// beamJudgeOverhead is one BEAM rubric item's judgement (522 fitted on
	// datasets/beam/testdata); scoring.BEAMRubricMaxTokens is its max_tokens.
	beamJudgeOverhead = 520
)

// countData reads p's episodes once and counts each one; the selection is
// the run's (selectHeaders).
func countData(ctx context.Context, p *Plan, withTokens bool) ([]epCount, error) {
	every := 0
	if p.Benchmark == "branchmemeval" {
		every = p.Config.Baselines.SummaryEvery
	}
	var tc tokens.Counter
	if withTokens {
		tc = tokens.Default()
	}
	count := func(s string) int {
		if tc == nil {
			return 0
		}
		return tc.Count(s)
	}
	// Only the episodes the selection can keep are counted (tokenizing every
	// interaction of a large file is most of a plan's time); the others
	// keep their header alone, so that selectHeaders sees every episode
	// and selects as the run does. Any id of --episodes can be kept; with
	// no --episodes and no subset, --limit keeps the first episodes.
	want := map[string]bool{}
	for _, id := range p.Episodes {
		want[id] = true
	}
	firstOnly := len(p.Episodes) == 0 && len(p.SubsetIDs) == 0 && p.Subset <= 0 && p.Limit > 0
	mayKeep := func(i int, id string) bool {
		switch {
		case len(want) > 0:
			return want[id]
		case firstOnly:
			return i < p.Limit
		}
		return true
	}
	var all []epCount
	// Large files (LongMemEval _m) take minutes to decode, as for the run.
	bar := progress.NewBytes(p.Log, "read "+p.Benchmark, p.Config.Run.Progress)
	defer bar.Finish()
	err := datasets.Each(ctx, p.Benchmark, p.Data, datasets.Options{Categories: p.Categories, Progress: bar.Update}, func(e datasets.Episode) error {
		c := epCount{header: header{id: e.ID}}
		if !mayKeep(len(all), e.ID) {
			all = append(all, c)
			return nil
		}
		// The summary baseline's rule, replayed on session ids alone.
		type session struct {
			id              string
			n, covered, tok int
		}
		var cur *session
		byID := map[string]*session{}
		update := func(s *session) {
			c.summaries++
			c.summaryTokens += s.tok
			s.covered, s.tok = s.n, 0
		}
		hist := 0
		commit := func(text string, sess string) {
			c.interactions++
			t := count(text)
			c.ingestTokens += t
			hist += t
			if cur != nil && cur.id != sess && cur.covered < cur.n {
				update(cur)
			}
			s := byID[sess]
			if s == nil {
				s = &session{id: sess}
				byID[sess] = s
			}
			cur = s
			s.n++
			s.tok += t
			if every > 0 && s.n-s.covered >= every {
				update(s)
			}
		}
		sealed := 0
		for _, st := range e.Steps {
			if in := st.Interaction; in != nil {
				commit(in.Text(), in.Session)
				continue
			}
			q := st.Question
			if q == nil {
				continue
			}
			if every == 0 && sealed != c.interactions && cur != nil && cur.covered < cur.n {
				update(cur)
			}
			sealed = c.interactions
			c.questions = append(c.questions, q.ID)
			c.history = append(c.history, hist+count(q.Text))
			switch p.Benchmark {
			case "beam":
				c.judgeCalls += max(len(q.Rubric), 1)
			case "longmemeval":
				c.judgeCalls++
			}
			if in := q.Canonical; in != nil {
				commit(in.Text(), in.Session)
			}
		}
		all = append(all, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	hs := make([]header, len(all))
	for i, c := range all {
		hs[i] = c.header
	}
	sel, _, err := selectHeaders(p, hs)
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, h := range sel {
		keep[h.id] = true
	}
	out := all[:0]
	for _, c := range all {
		if keep[c.id] {
			out = append(out, c)
		}
	}
	return out, nil
}

// kindDefaults fills in what p's kind implies (Sweep, Ablate and Latency
// call it before they run, and a plan before it counts, so that the two
// cannot drift): the sweep's budgets, the ablation's system, variants and
// budget, the efficiency run's sequential config and budget; then the
// defaults every run takes.
func (p *Plan) kindDefaults() error {
	if p.Config == nil {
		return fmt.Errorf("plan has no config")
	}
	switch p.Kind {
	case "sweep":
		if len(p.Budgets) == 0 {
			p.Budgets = PaperBudgets
		}
		bs, err := checkBudgets(p.Budgets)
		if err != nil {
			return err
		}
		p.Budgets = bs
	case "ablate":
		if len(p.Systems) == 0 {
			p.Systems = []string{"arbormem"}
		}
		if len(p.Variants) == 0 {
			p.Variants = AblationVariants
		}
		if len(p.Budgets) == 0 {
			p.Budgets = []int{PaperBudget32K}
		}
		if err := checkVariants(p.Systems, p.Variants); err != nil {
			return err
		}
	case "latency":
		cfg := *p.Config
		cfg.Sequential()
		p.Config = &cfg
		if len(p.Budgets) == 0 {
			p.Budgets = []int{PaperLatencyBudget}
		}
	}
	return p.defaults()
}

// Count is `arbor plan`: what p (and each of models, for a multi-model
// ablation) will do, counted from the data without running anything:
// episodes, questions, memory instances and the interactions they commit,
// samples, and each role's calls by system, split into ingestion and
// questions, with an estimate of wall time (calls over throughput for
// remote roles; per-unit costs for local ones). Figures that rest on
// memory state are estimated from named ratios (plan_rates.go) and marked.
func Count(ctx context.Context, p Plan, models []Model, opt DryOptions) (*DryReport, error) {
	entries, err := planModels(p, models)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rep := &DryReport{Kind: p.Kind, Benchmark: p.Benchmark, Counted: true}
	if rep.Kind == "" {
		rep.Kind = "eval"
	}
	var eps []epCount
	for i, m := range entries {
		sub := p
		sub.Config = m.Config
		if err := sub.kindDefaults(); err != nil {
			return nil, fmt.Errorf("plan%s: %w", forModel(m.Name), err)
		}
		if i == 0 {
			rep.Benchmark = sub.Benchmark
			var err error
			if eps, err = countData(ctx, &sub, needTokens(entries)); err != nil {
				return nil, fmt.Errorf("plan: %w", err)
			}
			rep.Systems, rep.Budgets, rep.Variants = slices.Clone(sub.Systems), slices.Clone(sub.Budgets), slices.Clone(sub.Variants)
			byOrder(rep.Systems, DefaultSystems)
			byOrder(rep.Variants, AblationVariants)
			rep.Episodes = len(eps)
			for _, e := range eps {
				rep.Questions += len(e.questions)
			}
		}
		rep.Roles = append(rep.Roles, countRoles(m, &sub, eps, rep)...)
	}
	rep.Elapsed = time.Since(start)
	rep.Resolution = resolution(entries[0].Config, rep.Questions, nil, false)
	if err := rep.estimate(ctx, entries, p.Kind, opt); err != nil {
		return nil, err
	}
	rep.localTime(p.Kind)
	rep.notes(entries, p)
	return rep, nil
}

// planModels is the models a plan counts: models, or p's own config.
func planModels(p Plan, models []Model) ([]Model, error) {
	if len(models) > 0 {
		return models, nil
	}
	if p.Config == nil {
		return nil, fmt.Errorf("plan has no config")
	}
	return []Model{{Config: p.Config}}, nil
}

// needTokens reports whether a chat or judge role is remote: only then are
// prompt tokens worth counting.
func needTokens(entries []Model) bool {
	for _, m := range entries {
		if !m.Config.Models.Chat.Local() || !m.Config.Models.Judge.Local() {
			return true
		}
	}
	return false
}

// countRoles multiplies one model's per-unit calls (systemCalls) by the
// selected episodes' counts, and adds the selection's work to rep.
func countRoles(m Model, p *Plan, eps []epCount, rep *DryReport) []RoleCount {
	cfg := p.Config
	by := map[string]*RoleCount{}
	get := func(role string) *RoleCount {
		rc := by[role]
		if rc == nil {
			r := *cfg.Models.Role(role)
			rc = &RoleCount{Model: m.Name, Role: role, Local: r.Local(), Endpoints: len(r.Endpoints), Capacity: capacity(r)}
			if !rc.Local {
				rc.InFlight = min(rc.Capacity, runWorkers(cfg, p.Kind))
			}
			by[role] = rc
		}
		return rc
	}
	for _, role := range dryRoles {
		if !cfg.Models.Role(role).Local() {
			get(role)
		}
	}
	nb := len(p.Budgets)
	for _, sys := range p.Systems {
		groups := groupVariants(sys, p.Variants)
		for _, build := range sortedBuilds(groups) {
			vs := groups[build]
			rates := systemCalls(cfg, p.Benchmark, sys, build, vs)
			var interactions, answers, firsts, summaries, judges, ingTok, sumTok, ansTok int
			for _, e := range eps {
				q := len(e.questions)
				interactions += e.interactions
				answers += q * len(vs) * nb
				firsts += q * len(vs)
				summaries += e.summaries
				judges += e.judgeCalls * len(vs) * nb
				ingTok += e.ingestTokens
				sumTok += e.summaryTokens
				for _, h := range e.history {
					for _, b := range p.Budgets {
						ansTok += len(vs) * (min(h, b) + answerOverhead)
					}
				}
			}
			rep.Ingestions += len(eps)
			rep.Interactions += interactions
			rep.Samples += answers
			if rep.work == nil {
				rep.work = map[string]*sysWork{}
			}
			w := rep.work[sys]
			if w == nil {
				w = &sysWork{}
				rep.work[sys] = w
			}
			w.interactions += interactions
			w.answers += answers
			for _, role := range dryRoles {
				u, ok := rates[role]
				if !ok {
					continue
				}
				ing := u.Ingest*float64(interactions) + u.Summary*float64(summaries)
				qc := u.Answer*float64(answers) + u.First*float64(firsts) + u.Judge*float64(judges)
				if ing == 0 && qc == 0 {
					continue
				}
				rc := get(role)
				sub := rc.system(sys)
				var prompt, completion int
				if role == "chat" {
					ops := u.Ingest * float64(interactions)
					prompt = int(ops*float64(opOverhead)) + int(u.Ingest*float64(ingTok)) +
						int(u.Summary*float64(summaries*summaryOverhead+sumTok))
					completion = int(ops)*cfg.ArborMem.MemoryOpMaxTokens + int(u.Summary*float64(summaries))*baselines.SummaryMaxTokens
					if u.Answer > 0 {
						prompt += ansTok
						completion += answers * cfg.Answer.MaxTokens
						// The tag prediction is a memory operation.
						if extra := u.Answer - 1; extra > 0 {
							prompt += int(extra * float64(answers*opOverhead))
							completion += int(extra*float64(answers)) * cfg.ArborMem.MemoryOpMaxTokens
						}
					}
				}
				if role == "judge" {
					prompt, completion = judges*judgeOverhead, judges*cfg.Judge.MaxTokens
					if p.Benchmark == "beam" {
						prompt, completion = judges*beamJudgeOverhead, judges*scoring.BEAMRubricMaxTokens
					}
				}
				for _, x := range []*RoleCount{rc, sub} {
					x.IngestCalls += int(ing + 0.5)
					x.QuestionCalls += int(qc + 0.5)
					x.PromptTokens += prompt
					x.CompletionMax += completion
					x.Estimated = x.Estimated || u.Estimated
				}
				sub.Interactions += interactions
				sub.Answers += answers
			}
		}
	}
	out := make([]RoleCount, 0, len(by))
	for _, rc := range by {
		for i := range rc.Systems {
			rc.Interactions += rc.Systems[i].Interactions
			rc.Answers += rc.Systems[i].Answers
		}
		slices.SortFunc(rc.Systems, func(a, b RoleCount) int { return strings.Compare(a.System, b.System) })
		out = append(out, *rc)
	}
	slices.SortFunc(out, func(a, b RoleCount) int { return strings.Compare(roleRank(a.Role), roleRank(b.Role)) })
	return out
}

// sysWork is one system's committed interactions and answers in a plan.
type sysWork struct{ interactions, answers int }

// Per-unit local costs: the wall time one committed interaction and one
// answer take with every role local (the offline default), two at once on
// this project's 2-core machine under a load of about 15, measured once
// from the episode records (ingest_seconds per committed interaction) and
// samples (full_query) of `arbor eval branchmemeval` (ArborMem 10.6 ms per
// interaction, 34 ms per answer) and of scripts/locomo-dev.sh's sweep
// (13.4 ms, 43 ms). A plan whose every role is local estimates its time
// from them and the selection's counts; the data's reading and the
// tables' bootstrap are not counted (the two runs took 1.4 and 1.65 times
// the estimate), and an idle or faster machine takes less.
var localCost = map[string]struct{ Ingest, Answer time.Duration }{
	"arbormem": {Ingest: 12 * time.Millisecond, Answer: 40 * time.Millisecond},
	"summary":  {Ingest: 1300 * time.Microsecond, Answer: 2 * time.Millisecond},
	"bm25":     {Ingest: time.Millisecond, Answer: 10 * time.Millisecond},
	"full":     {Ingest: 700 * time.Microsecond, Answer: 50 * time.Millisecond},
	"recent":   {Ingest: 400 * time.Microsecond, Answer: 20 * time.Millisecond},
}

// localCostOf is system's localCost, ArborMem's for a system not measured.
func localCostOf(system string) struct{ Ingest, Answer time.Duration } {
	if c, ok := localCost[system]; ok {
		return c
	}
	return localCost["arbormem"]
}

// localTime estimates an all-local run's wall time from localCost: every
// system's interactions and answers, over the cores the run keeps busy.
func (r *DryReport) localTime(kind string) {
	if !r.allLocal() || r.Upper > 0 {
		return
	}
	var work time.Duration
	for sys, w := range r.work {
		c := localCostOf(sys)
		work += time.Duration(w.interactions)*c.Ingest + time.Duration(w.answers)*c.Answer
	}
	par := min(runtime.NumCPU(), max(r.Ingestions, 1))
	if kind == "latency" {
		par = 1
	}
	r.Lower = work / time.Duration(max(par, 1))
	r.Upper = r.Lower
	r.Notes = append(r.Notes, fmt.Sprintf("Every role is local: the time is estimated from per-unit costs measured once on a loaded 2-core machine (runners.localCost: ArborMem %s per interaction and %s per answer) over %d cores, leaving out the data's reading and the tables' bootstrap; no throughput is needed.",
		localCost["arbormem"].Ingest, localCost["arbormem"].Answer, max(par, 1)))
}

// allLocal reports whether every role of the plan runs in-process.
func (r *DryReport) allLocal() bool {
	for _, rc := range r.Roles {
		if !rc.Local {
			return false
		}
	}
	return true
}

// localEstimate is the time estimate of a replay whose every role is
// local: the replay was the run (every call in-process, nothing to wait
// for), so its own wall time is the estimate.
func (r *DryReport) localEstimate() {
	if !r.allLocal() || r.Upper > 0 {
		return
	}
	r.Lower, r.Upper = r.Elapsed, r.Elapsed
	r.Notes = append(r.Notes, fmt.Sprintf("Every role is local: the replay did the run's work, so its own time (%s on this machine) is the estimate; no throughput is needed.", human(r.Elapsed)))
}
