package runners

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/arbor-eval/arbor/answer"
	"github.com/arbor-eval/arbor/baselines"
	"github.com/arbor-eval/arbor/baselines/sidecar"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/scoring"
)

// DefaultSystems are the systems `arbor eval` runs when none are named, in
// the paper's column order (Table 1) restricted to what runs natively.
var DefaultSystems = []string{"full", "recent", "bm25", "summary", "arbormem"}

// deps is what every episode of a run shares: model clients, prompts, the
// answer step and the scorers.
type deps struct {
	cfg      *config.Config
	models   *provider.Set
	prompts  *prompt.Set
	answerer answer.Answerer
	scorers  []scoring.Scorer
	// judge names the model behind the primary scorer's verdicts, "" when
	// no model judges them (record.Sample.Judge).
	judge     string
	recaller  scoring.Recaller
	benchmark string

	// pools holds the sidecar processes of the bridged systems, one pool
	// per system, made on first use and stopped by close.
	poolsMu sync.Mutex
	pools   map[string]*sidecar.Pool
}

func newDeps(ctx context.Context, cfg *config.Config, benchmark string) (*deps, error) {
	d, err := newMemoryDeps(ctx, cfg, benchmark)
	if err != nil {
		return nil, err
	}
	if d.answerer, err = answer.New(cfg, d.models.Chat, d.prompts); err != nil {
		return nil, err
	}
	if d.scorers, err = scoring.ForBenchmark(benchmark, d.models.Judge, d.prompts, scoring.Options{Judge: cfg.Judge, BEAMOfficial: cfg.Judge.OfficialBEAM()}); err != nil {
		return nil, err
	}
	d.recaller = scoring.RecallerFor(benchmark, cfg.Judge.AnswerInBundleMaxWords)
	if len(d.scorers) > 0 && scoring.ModelJudged(d.scorers[0]) {
		d.judge = roleModels(d.models.Describe(), "judge")
	}
	return d, nil
}

// roleModels names the distinct models serving role, joined by " + ".
func roleModels(infos []provider.EndpointInfo, role string) string {
	var models []string
	for _, e := range infos {
		if e.Role == role && e.Model != "" && !slices.Contains(models, e.Model) {
			models = append(models, e.Model)
		}
	}
	return strings.Join(models, " + ")
}

// newMemoryDeps is what building memory systems needs (factory): model
// clients and prompts, without the answer step and scorers.
func newMemoryDeps(ctx context.Context, cfg *config.Config, benchmark string) (*deps, error) {
	models, err := provider.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	prompts, err := prompt.Load(cfg.PromptsDir)
	if err != nil {
		return nil, err
	}
	return &deps{cfg: cfg, models: models, prompts: prompts, benchmark: benchmark}, nil
}

// factory returns a constructor of fresh memory instances of system with an
// ablation variant applied at construction (variants that change commit-time
// behaviour); recall-only variants are passed per query instead.
func (d *deps) factory(system, variant string) (memory.Factory, error) {
	switch system {
	case "arbormem":
		acfg := d.cfg.ArborMem
		if err := arbormem.ApplyVariant(&acfg, variant); err != nil {
			return nil, err
		}
		ad := arbormem.DepsFor(d.cfg, acfg, d.models, d.prompts, d.benchmark == "branchmemeval")
		return func(ctx context.Context, _ string) (memory.System, error) { return arbormem.New(acfg, ad) }, nil
	default:
		if variant != "" {
			return nil, fmt.Errorf("system %s has no variant %q (variants are ArborMem ablations)", system, variant)
		}
		if sidecar.Is(system) {
			p, err := d.pool(system)
			if err != nil {
				return nil, err
			}
			return Prefiltered(p.Factory(), d.models.Tokens), nil
		}
		bd := baselines.Deps{Cfg: d.cfg.Baselines, Tokens: d.models.Tokens, Prompts: d.prompts, Benchmark: d.benchmark}
		if d.cfg.UseChat(d.cfg.Baselines.Summaries) {
			bd.Chat = d.models.Chat
		}
		if _, err := baselines.New(system, bd); err != nil {
			return nil, err
		}
		return func(ctx context.Context, _ string) (memory.System, error) { return baselines.New(system, bd) }, nil
	}
}

// pool returns the sidecar pool of a bridged system, starting none of its
// processes yet: the first episode does.
func (d *deps) pool(system string) (*sidecar.Pool, error) {
	d.poolsMu.Lock()
	defer d.poolsMu.Unlock()
	if p := d.pools[system]; p != nil {
		return p, nil
	}
	spec, err := sidecar.SpecFor(d.cfg, system, d.benchmark)
	if err != nil {
		return nil, err
	}
	if d.pools == nil {
		d.pools = map[string]*sidecar.Pool{}
	}
	p := sidecar.NewPool(spec, d.models.Tokens)
	d.pools[system] = p
	return p, nil
}

// close stops the sidecars and flushes the model clients (the response
// cache's background writes).
func (d *deps) close() error {
	d.poolsMu.Lock()
	pools := d.pools
	d.pools = nil
	d.poolsMu.Unlock()
	var errs []error
	for _, p := range pools {
		errs = append(errs, p.Close())
	}
	errs = append(errs, d.models.Close())
	return errors.Join(errs...)
}

// heuristics lists the offline stand-ins a system's samples depend on.
func (d *deps) heuristics(system string) []string {
	var h []string
	if d.answerer.Heuristic() {
		h = append(h, "answerer")
	}
	switch system {
	case "arbormem":
		if !d.cfg.UseChat(d.cfg.ArborMem.Extractors) {
			h = append(h, "memory-ops")
		}
	case "summary":
		if !d.cfg.UseChat(d.cfg.Baselines.Summaries) {
			h = append(h, "memory-ops")
		}
	}
	for _, s := range d.scorers {
		if s.Heuristic() {
			h = append(h, "judge")
			break
		}
	}
	return h
}
