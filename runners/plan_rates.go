package runners

// A plan's model calls per unit of work, by system and role: what each
// system's method implies per committed interaction and per answer, read
// from the config, with the few shares that depend on memory state taken
// from named ratios measured once (planRatios). plan_count.go multiplies
// them by what the data holds.

import (
	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/scoring"
)

// planRatios are the shares of ArborMem's calls that depend on the memory's
// state, not on the data or the config: whether a commit's extractions
// collide with stored facts or states (the audit call), how many of its
// localizations reach the scored path (the rerank call, and the input's
// embedding when it is not prefetched), and whether a commit extracted
// anything to embed. Each was measured once with the exact replay (`arbor
// plan --replay`, the dry run that answers every call from an in-process
// fake replying by the offline rules) and is printed as estimated.
type planRatios struct {
	// Name says where the ratios were measured, for the plan's notes.
	Name string
	// Audit is the collision and revision audit's chat calls per commit
	// (appendix A "Memory Commit": one batched call when a fact or state
	// meets a same-slot record).
	Audit float64
	// EmbedExtra is the embed calls per commit beyond the node's own
	// (§4.4): the input's localization embedding (eager under prefetch,
	// otherwise only on the scored path) and the batched embedding of the
	// commit's facts and records, when it extracted any.
	EmbedExtra float64
	// LocRerank is the rerank calls per commit: localizations that reach
	// the scored path (§4.2 (c)); cue-decided ones and the first turn make
	// none.
	LocRerank float64
	// QueryRerank is the rerank calls per question at its first budget
	// (the decision is kept for its other budgets and for its canonical
	// interaction's commit).
	QueryRerank float64
}

// The measured ratios. Model path: configs/a800.yaml, replayed with
//
//	arbor plan eval branchmemeval --config configs/a800.yaml --replay
//	arbor plan sweep budgets --benchmark locomo --data locomo10-conv26-43.json --subset 0 --systems arbormem,bm25,summary,full,recent --budgets 256,512,1k,4k --config configs/a800.yaml --replay
//
// (shipped BranchMemEval: 1,542 ArborMem commits, 9,454 memory-operation
// chat calls, 3,950 embed and 1,117 rerank calls; 100 questions, 100 rerank
// calls). Offline: the same commands without --config.
var (
	ratiosBMEModel = planRatios{Name: "shipped BranchMemEval, model path", Audit: 0.131, EmbedExtra: 1.562, LocRerank: 0.724, QueryRerank: 1}
	// ratiosLoCoMoModel: 1,414 commits, 9,392 memory-operation chat calls,
	// 3,880 embed and 1,407 rerank calls; 762 questions, 762 rerank calls.
	ratiosLoCoMoModel = planRatios{Name: "LoCoMo development half, model path", Audit: 0.642, EmbedExtra: 1.744, LocRerank: 0.995, QueryRerank: 1}
	// ratiosBMEOffline: 1,542 commits, 3,008 embed and 446 rerank calls;
	// 100 questions, 26 rerank calls (the offline routing decides most
	// turns by cue and content before the reranker).
	ratiosBMEOffline = planRatios{Name: "shipped BranchMemEval, offline profile", EmbedExtra: 0.951, LocRerank: 0.289, QueryRerank: 0.26}
	// ratiosLoCoMoOffline: 1,414 commits, 2,637 embed and 166 rerank calls;
	// 762 questions, 762 rerank calls.
	ratiosLoCoMoOffline = planRatios{Name: "LoCoMo development half, offline profile", EmbedExtra: 0.865, LocRerank: 0.117, QueryRerank: 1}
)

// ratiosFor picks the measured ratios nearest the plan: BranchMemEval's
// for BranchMemEval, LoCoMo's (long natural conversations) for the others.
func ratiosFor(benchmark string, modelPath bool) planRatios {
	switch {
	case benchmark == "branchmemeval" && modelPath:
		return ratiosBMEModel
	case benchmark == "branchmemeval":
		return ratiosBMEOffline
	case modelPath:
		return ratiosLoCoMoModel
	}
	return ratiosLoCoMoOffline
}

// unitCalls is one system's calls of one role per unit: per committed
// interaction (Ingest), per session-summary update (Summary, counted
// exactly from the data), per answer (Answer), per question at its first
// budget only (First), and per judged answer (Judge, times the question's
// judge calls). Estimated says the figure rests on planRatios.
type unitCalls struct {
	Ingest, Summary, Answer, First, Judge float64
	Estimated                             bool
}

// systemCalls returns, for one system built with variant build and
// answering variants, its calls per unit by role. Bridged systems call
// their models themselves (docs/ARCHITECTURE.md): only arbor's answer and
// judge calls are counted for them.
func systemCalls(cfg *config.Config, benchmark, system, build string, variants []string) map[string]unitCalls {
	out := map[string]unitCalls{}
	add := func(role string, u unitCalls) {
		o := out[role]
		o.Ingest += u.Ingest
		o.Summary += u.Summary
		o.Answer += u.Answer
		o.First += u.First
		o.Judge += u.Judge
		o.Estimated = o.Estimated || u.Estimated
		out[role] = o
	}
	nv := float64(len(variants))
	if cfg.UseChat(cfg.Answer.Answerer) {
		add("chat", unitCalls{Answer: 1})
	}
	if judged(cfg, benchmark) {
		add("judge", unitCalls{Judge: 1})
	}
	switch system {
	case "summary":
		if cfg.UseChat(cfg.Baselines.Summaries) {
			add("chat", unitCalls{Summary: 1})
		}
	case "arbormem":
		acfg := cfg.ArborMem
		if arbormem.ApplyVariant(&acfg, build) != nil {
			return out // checkVariants refuses it before any run
		}
		modelPath := cfg.UseChat(acfg.Extractors)
		r := ratiosFor(benchmark, modelPath)
		if modelPath {
			// Round 1 (node metadata, facts, artifacts, events, states),
			// then path evolution (§4.4); the audit when extractions meet
			// a same-slot record.
			ops := 2.0
			if acfg.AtomicFacts {
				ops++
			}
			if acfg.StructuredExtraction {
				ops += 3
			}
			audit := 0.0
			if acfg.AtomicFacts || acfg.StructuredExtraction {
				audit = r.Audit
			}
			add("chat", unitCalls{Ingest: ops + audit, Estimated: audit > 0})
		}
		embed := 1 + r.EmbedExtra
		rerank := 0.0
		if acfg.Localization {
			rerank = r.LocRerank
		}
		add("embed", unitCalls{Ingest: embed, Estimated: true})
		add("rerank", unitCalls{Ingest: rerank, Estimated: rerank > 0})
		// Per answer: the query's embedding, the attribute-tag prediction
		// on BranchMemEval (appendix D) where facts are recalled, and the
		// question's localization rerank at its first budget.
		var tags, first float64
		for _, v := range variants {
			vcfg := acfg
			_ = arbormem.ApplyVariant(&vcfg, v)
			if modelPath && benchmark == "branchmemeval" && vcfg.AtomicFacts {
				tags++
			}
			if vcfg.Localization {
				first += r.QueryRerank
			}
		}
		add("embed", unitCalls{Answer: 1})
		if tags > 0 {
			add("chat", unitCalls{Answer: tags / nv})
		}
		if first > 0 {
			add("rerank", unitCalls{First: first / nv, Estimated: true})
		}
	}
	return out
}

// judged reports whether the run's scorers ask a remote judge model: the
// benchmark's scorers use the judge role (scoring.NeedsJudge, with the
// options the run scores with: no LoCoMo judge) and the role is neither
// local nor replaced by the lexical judge.
func judged(cfg *config.Config, benchmark string) bool {
	return scoring.NeedsJudge(benchmark, scoring.Options{Judge: cfg.Judge}) && !cfg.Models.Judge.Local() && cfg.Judge.Mode != "lexical"
}

// unitPriors are the progress bar's expected costs of one commit and one
// answer of system, relative to each other (progress.Reporter.Prior), for
// the classes not yet measured early in a run. With a remote chat model
// they are the sequential model round trips a unit waits for: ArborMem's
// commit two (§4.4: round one's memory operations at once, beside
// localization, then path evolution and the audit), a summary update one
// per summary_every interactions, an answer one, its judgement one more,
// and ArborMem's recall one each for the query's embedding and the
// localization rerank when those roles are remote; other commits make no
// call. With every role local they are the
// per-unit costs the plan uses (localCost), in milliseconds.
func unitPriors(cfg *config.Config, benchmark, system string) (commit, answer float64) {
	if cfg.Models.Chat.Local() {
		c := localCostOf(system)
		return float64(c.Ingest.Microseconds()) / 1000, float64(c.Answer.Microseconds()) / 1000
	}
	const none = 0.01 // local work only: next to nothing beside a round trip
	commit, answer = none, none
	if cfg.UseChat(cfg.Answer.Answerer) {
		answer = 1
	}
	if judged(cfg, benchmark) {
		answer++
	}
	switch system {
	case "arbormem":
		if cfg.UseChat(cfg.ArborMem.Extractors) {
			commit = 2
		}
		// Its recall waits for the question's embedding, then the
		// localization rerank, before the answer.
		for _, role := range []string{"embed", "rerank"} {
			if !cfg.Models.Role(role).Local() {
				answer++
			}
		}
	case "summary":
		if cfg.UseChat(cfg.Baselines.Summaries) {
			commit = 1 / float64(max(cfg.Baselines.SummaryEvery, 1))
		}
	}
	return commit, answer
}
