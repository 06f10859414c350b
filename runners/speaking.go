package runners

import (
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
)

// SpeakingConfig copies cfg with the model-backed path switched on against
// one OpenAI-compatible server at url (a speaking fake, fake):
// the chat, judge, embed (dimension dim) and rerank roles point at it with
// inflight requests each, answers, ArborMem's memory operations and session
// summaries go through the chat model, and the response cache is off so
// every call reaches the server. The tokenizer stays offline.
func SpeakingConfig(cfg *config.Config, url string, dim, inflight int) *config.Config {
	c := *cfg
	ep := []config.Endpoint{{URL: url, Model: "fake-model", MaxInflight: inflight, Timeout: time.Minute}}
	c.Models.Chat = config.Role{Provider: "openai", Endpoints: ep}
	c.Models.Judge = config.Role{Provider: "openai", Endpoints: ep}
	c.Models.Embed = config.Role{Provider: "openai", Endpoints: ep, Dim: dim, BatchSize: cfg.Models.Embed.BatchSize}
	c.Models.Rerank = config.Role{Provider: "openai", Endpoints: ep, API: "vllm", BatchSize: cfg.Models.Rerank.BatchSize}
	c.Answer.Answerer = "chat"
	c.ArborMem.Extractors = "chat"
	c.Baselines.Summaries = "chat"
	c.Judge.Mode = "chat"
	c.Cache.Enabled = false
	return &c
}
