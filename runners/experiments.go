package runners

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/baselines/sidecar"
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/buildinfo"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
	"github.com/arbor-eval/arbor/pkg/tokens"
	"github.com/arbor-eval/arbor/scoring"
)

// PaperBudgets are the read-budget analysis budgets: "256, 512, 1K, 2K, 4K,
// 8K, 16K, and 32K tokens" with 32K the exact 30,968 (paper §6.3, appendix C.4).
var PaperBudgets = []int{256, 512, 1024, 2048, 4096, 8192, 16384, PaperBudget32K}

// PaperSubset is the size of the fixed LongMemEval subset of the supplementary
// analyses: "A fixed 50-question LongMemEval subset sampled with seed 42".
// LongMemEval has one question per episode, so 50 episodes are 50 questions.
const PaperSubset = 50

// PaperLatencyBudget is the efficiency comparison's answer-time evidence
// budget: "4K memory-operation and 2K answer-time evidence budgets" (paper
// §6.4, appendix C.4 "Efficiency"). The 4K memory-operation budget is
// arbormem.memory_op_max_tokens, 4096 by default.
const PaperLatencyBudget = 2048

// AblationVariants are the component ablations of appendix C.3, after the
// reference configuration ("").
var AblationVariants = []string{"", "no-localization", "no-keyword-routing", "no-atomic-facts", "no-structured-extraction", "no-structured-evidence"}

// ExternalSystems are the memory systems that run outside arbor behind a
// bridge (paper §6.1 baselines Graphiti, A-MEM, Mem0, LiCoMemory). They
// choose their own evidence, so the runner lets them prefilter and packs
// their bundles itself (Prefiltered).
var ExternalSystems = sidecar.Systems

// PrefilterBudget is how much evidence an external memory system may return
// before arbor packs it to budget: "External memory methods may use an
// intermediate prefilter of up to twice the target budget, but the final
// generator input is limited to the same answer-time budget" (appendix C.4);
// at the main budget this is appendix C.1's "at most 61,936 tokens".
func PrefilterBudget(budget int) int { return 2 * budget }

// Prefiltered wraps the factory of an external system so that every Recall
// asks it for up to PrefilterBudget(q.Budget) tokens and the bundle it
// returns is recounted with c (the answer model's tokenizer, in which
// budgets are expressed) and packed to q.Budget in the system's own rank
// order. Bridges are wrapped with it where their factory is built (deps.factory)
// so that the read-budget sweep limits every system to the same answer-time
// budget (paper §6.3).
func Prefiltered(f memory.Factory, c tokens.Counter) memory.Factory {
	return func(ctx context.Context, episode string) (memory.System, error) {
		s, err := f(ctx, episode)
		if err != nil {
			return nil, err
		}
		w := prefiltered{System: s, counter: c}
		if r, ok := s.(memory.Renderer); ok {
			return prefilteredRenderer{w, r}, nil
		}
		return w, nil
	}
}

type prefiltered struct {
	memory.System
	counter tokens.Counter
}

// Close hands the wrapped system's resources back (a bridge's sidecar
// process); the runner closes every system when its episode ends.
func (p prefiltered) Close() error {
	if c, ok := p.System.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Health passes on the wrapped system's degraded counts, if it keeps any.
func (p prefiltered) Health() memory.Health {
	if h, ok := p.System.(memory.HealthReporter); ok {
		return h.Health()
	}
	return memory.Health{}
}

func (p prefiltered) Recall(ctx context.Context, q memory.Query) (memory.Bundle, error) {
	wide := q
	wide.Budget = PrefilterBudget(q.Budget)
	b, err := p.System.Recall(ctx, wide)
	if err != nil {
		return b, err
	}
	b.Items = memory.PackInOrder(memory.Recount(p.counter, b.Items), q.Budget)
	return b, nil
}

// Seal forwards to the wrapped system, so that its end-of-dialogue work
// stays ingestion.
func (p prefiltered) Seal(ctx context.Context) error { return memory.Seal(ctx, p.System) }

// prefilteredRenderer keeps the wrapped system's own message layout; a
// wrapper without one must not look like a Renderer to the answer step.
type prefilteredRenderer struct {
	prefiltered
	r memory.Renderer
}

func (p prefilteredRenderer) Render(q memory.Query, b memory.Bundle) ([]llm.Message, error) {
	return p.r.Render(q, b)
}

// Sweep runs the read-budget analysis: each episode is ingested once per
// system and then recalled and answered at every budget (paper §6.3); the
// runner's jobs are memory instances, and replay answers every budget from
// the one instance. Budgets are deduplicated and sorted so that the same set
// names the same run.
func Sweep(ctx context.Context, p Plan) (*Outcome, error) {
	p.Kind = "sweep"
	if err := p.kindDefaults(); err != nil {
		return nil, err
	}
	logf(p.Log, "sweep: %d budgets (%s); each episode is ingested once per system and recalled at every budget\n",
		len(p.Budgets), budgetLabels(p.Budgets))
	return Run(ctx, p)
}

func checkBudgets(bs []int) ([]int, error) {
	out := slices.Clone(bs)
	for _, b := range out {
		if b <= 0 {
			return nil, fmt.Errorf("budget %d: a sweep budget must be a positive token count", b)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func budgetLabels(bs []int) string {
	l := make([]string, len(bs))
	for i, b := range bs {
		l[i] = scoring.BudgetLabel(b)
	}
	return strings.Join(l, ", ")
}

// Ablate runs the reference configuration and the five component ablations
// at the 32K budget (paper §6.5). Variants that change only recall
// (arbormem.RecallOnly: no-localization, no-atomic-facts,
// no-structured-evidence) are answered from the reference instance's
// ingestion; the others (no-keyword-routing, no-structured-extraction)
// ingest separately. groupVariants does the grouping; the log and the
// table's note say which is which.
func Ablate(ctx context.Context, p Plan) (*Outcome, error) {
	p.Kind = "ablate"
	if err := p.kindDefaults(); err != nil {
		return nil, err
	}
	logf(p.Log, "ablate: %s\n", ingestionNote(p.Variants))
	return Run(ctx, p)
}

// ParseVariants reads --variants: comma-separated variant names, the
// reference ("" or "reference") first whether named or not, each once.
func ParseVariants(s string) []string {
	out := []string{""}
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		if v == "reference" {
			v = ""
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func checkVariants(systems, variants []string) error {
	for _, v := range variants {
		if v == "" {
			continue
		}
		cfg := config.ArborMem{}
		if err := arbormem.ApplyVariant(&cfg, v); err != nil {
			return fmt.Errorf("--variants: %w", err)
		}
		for _, s := range systems {
			if s != "arbormem" {
				return fmt.Errorf("--systems %s: variant %q is an ArborMem ablation; ablate runs arbormem only", s, v)
			}
		}
	}
	return nil
}

// ingestionNote says which variants share the reference instance's
// ingestion and which ingest on their own.
func ingestionNote(variants []string) string {
	var shared, separate []string
	for _, v := range variants {
		switch {
		case v == "":
		case arbormem.RecallOnly(v):
			shared = append(shared, v)
		default:
			separate = append(separate, v)
		}
	}
	return fmt.Sprintf("Ingestion shared with the reference instance (recall-only variants): %s; ingested separately: %s.", orNone(shared), orNone(separate))
}

// Model is one answer-and-memory model of a multi-model ablation (paper
// Table "ablation": one column per model): the column's name and the config
// whose roles point at that model. Each model brings its own config because
// the paper's two settings differ in more than the chat model ("the two
// settings use different automatic judges").
type Model struct {
	Name   string
	Config *config.Config
}

// ModelName is the default column name of a model config: its chat model,
// or "local" for the offline heuristics.
func ModelName(cfg *config.Config) string {
	if eps := cfg.Models.Chat.Endpoints; len(eps) > 0 && eps[0].Model != "" {
		return eps[0].Model
	}
	return "local"
}

// AblateModels runs Ablate once per model, each in its own run
// (results/<run>/models/<name>/, resumable on its own), then gathers every
// sample, labelled Labels["model"] = the model's name, into results/<run>/
// samples.jsonl and renders one ablation table with one column per model in
// the order given. No models means Ablate with p's config.
func AblateModels(ctx context.Context, p Plan, models []Model) (*Outcome, error) {
	if len(models) == 0 {
		return Ablate(ctx, p)
	}
	names := make([]string, len(models))
	for i, m := range models {
		if m.Name == "" || m.Config == nil {
			return nil, fmt.Errorf("models[%d]: a model needs a name and a config", i)
		}
		if slices.Contains(names[:i], m.Name) {
			return nil, fmt.Errorf("models[%d]: name %q is used twice", i, m.Name)
		}
		names[i] = m.Name
	}
	p.Kind = "ablate"
	base := p.RunID
	if base == "" {
		if p.Config == nil {
			p.Config = models[0].Config
		}
		h := sha256.Sum256([]byte(strings.Join(names, "\x1f")))
		base = p.runID() + "-" + hex.EncodeToString(h[:])[:6]
	}
	out, log := p.Out, p.Log
	if out == nil {
		out = os.Stdout
	}
	var all []record.Sample
	var episodes []record.EpisodeStat
	for _, m := range models {
		sub := p
		sub.Config = m.Config
		sub.RunID = filepath.Join(base, "models", slug(m.Name))
		sub.Out = io.Discard
		logf(log, "ablate: model %s (run %s)\n", m.Name, sub.RunID)
		o, err := Ablate(ctx, sub)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
		for _, s := range o.Samples {
			s.Labels = withLabel(s.Labels, "model", m.Name)
			all = append(all, s)
		}
		episodes = append(episodes, o.Episodes...)
	}
	dir := filepath.Join(models[0].Config.Run.Results, base)
	if err := writeCombined(dir, &p, models, all); err != nil {
		return nil, err
	}
	ro, err := ReportOptionsFrom(models[0].Config)
	if err != nil {
		return nil, err
	}
	t := scoring.AblationTable(all, names, ro.Stats)
	t.CIForm = ro.CIForm
	t.Notes = append(t.Notes, ingestionNote(variantsOf(all)))
	tdir := filepath.Join(dir, "tables")
	if err := table.WriteAll(tdir, "ablation", t); err != nil {
		return nil, err
	}
	fmt.Fprintln(out, t.Markdown())
	fmt.Fprintf(out, "results: %s (tables in %s; one run per model under %s)\n", dir, tdir, filepath.Join(dir, "models"))
	return &Outcome{Dir: dir, Samples: all, Episodes: episodes}, nil
}

// writeCombined writes the multi-model ablation's own folder: a manifest
// naming every model's config, and every sample with its model label. The
// samples are written whole (not through record.Log): two models' samples
// share record keys and differ only by label.
func writeCombined(dir string, p *Plan, models []Model, samples []record.Sample) error {
	cfgs := map[string]*config.Config{}
	for _, m := range models {
		cfgs[m.Name] = m.Config
	}
	now := time.Now().UTC()
	m := &record.Manifest{RunID: filepath.Base(dir), Kind: "ablate", Command: p.Command, Version: buildinfo.Version,
		Commit: buildinfo.GitCommit(), Benchmark: p.Benchmark, Systems: uniqueSystems(samples), Budgets: p.Budgets,
		Variants: variantsOf(samples), Seed: p.Seed, Config: cfgs, Created: now, Updated: now}
	m.Dataset.Path = p.Data
	if old, err := record.ReadManifest(dir); err == nil {
		m.Created = old.Created
	}
	if err := record.WriteManifest(dir, m); err != nil {
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, s := range samples {
		if err := enc.Encode(s); err != nil {
			return fmt.Errorf("encode sample %s: %w", s.Key(), err)
		}
	}
	return record.WriteFileAtomic(filepath.Join(dir, "samples.jsonl"), b.Bytes())
}

func uniqueSystems(samples []record.Sample) []string {
	var out []string
	for _, s := range samples {
		if !slices.Contains(out, s.System) {
			out = append(out, s.System)
		}
	}
	return out
}

// withLabel returns a copy of labels with k=v: sample label maps may be
// shared with the dataset's questions.
func withLabel(labels map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for a, b := range labels {
		out[a] = b
	}
	out[k] = v
	return out
}

// slug makes a model name safe as a folder name.
func slug(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if s := strings.Trim(b.String(), "."); s != "" {
		return s
	}
	return "model"
}

// Latency runs the matched efficiency comparison (paper §6.4): episodes one
// at a time ("executed sequentially") so that per-call timings are not
// distorted by other episodes, at the 2K answer budget unless p.Budgets says
// otherwise, with the response cache off, since a cached reply has no
// latency to measure, and without ingest prefetch, which the baselines do
// not get (config.Config.Sequential). The tables (efficiency and model usage) are computed
// from the per-call timings and counts recorded in the samples.
func Latency(ctx context.Context, p Plan) (*Outcome, error) {
	p.Kind = "latency"
	if err := p.kindDefaults(); err != nil {
		return nil, err
	}
	logf(p.Log, "latency: one episode at a time, response cache off, no ingest prefetch, answer budget %s, memory-operation budget %d tokens\n",
		budgetLabels(p.Budgets), p.Config.ArborMem.MemoryOpMaxTokens)
	return Run(ctx, p)
}

// Execute runs p as its Kind says: eval, sweep, ablate (with models, if
// any) or latency.
func Execute(ctx context.Context, p Plan, models []Model) (*Outcome, error) {
	if len(models) > 0 && p.Kind != "ablate" {
		return nil, fmt.Errorf("several models are an ablation setting; %s takes one config", p.Kind)
	}
	switch p.Kind {
	case "", "eval":
		return Run(ctx, p)
	case "sweep":
		return Sweep(ctx, p)
	case "ablate":
		return AblateModels(ctx, p, models)
	case "latency":
		return Latency(ctx, p)
	}
	return nil, fmt.Errorf("unknown experiment %q (expected eval, sweep, ablate or latency)", p.Kind)
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
