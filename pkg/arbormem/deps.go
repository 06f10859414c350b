package arbormem

// Not in the paper: how a System is wired to the configured model roles,
// shared by the benchmark runners and `arbor serve` so that both run the same
// memory.

import (
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
	"github.com/arbor-eval/arbor/pkg/prompt"
)

// DepsFor returns the Deps of a System configured by acfg (cfg.ArborMem, or
// a variant of it) over the model roles of models: the chat role for the
// memory operations when acfg.extractors asks for it, the embed, rerank
// and token roles always. branchMemEval turns on the attribute-tag
// predictor the paper uses only on BranchMemEval.
func DepsFor(cfg *config.Config, acfg config.ArborMem, models *provider.Set, prompts *prompt.Set, branchMemEval bool) Deps {
	d := Deps{Embed: models.Embed, Rerank: models.Rerank, Tokens: models.Tokens,
		Prompts: prompts, BranchMemEval: branchMemEval,
		ModelReranker: !cfg.Models.Rerank.Local(), RerankLogits: models.RerankLogits}
	if cfg.UseChat(acfg.Extractors) {
		d.Chat = models.Chat
	}
	return d
}
