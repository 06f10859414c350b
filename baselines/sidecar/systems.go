package sidecar

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/arbor-eval/arbor/pkg/config"
)

// Systems are the bridged systems, in the paper's column order (Table 1).
var Systems = []string{"graphiti", "amem", "mem0", "licomemory"}

// installHints say how to install each system's sidecar; every error of
// the system names its hint.
var installHints = map[string]string{
	"mem0":       "install the Mem0 sidecar with `npm ci` in scripts/bridges/mem0 (node >= 20), or point bridges.mem0.command at it",
	"amem":       "install A-MEM with `pip install git+https://github.com/agiresearch/A-mem` (scripts/bridges/python/amem.py)",
	"graphiti":   "install Graphiti with `pip install \"graphiti-core[kuzu]==0.29.*\"` (scripts/bridges/python/graphiti.py)",
	"licomemory": "clone https://github.com/EverM0re/LiCoMemory and set bridges.licomemory.options.repo (scripts/bridges/python/licomemory.py)",
}

// Is reports whether system runs through a sidecar.
func Is(system string) bool { return slices.Contains(Systems, system) }

// SpecFor builds the sidecar spec of a bridged system from the config: its
// command and options, arbor's chat and embed endpoints (a bridged system's
// model calls go where arbor's own go), and the benchmark-dependent options
// (Graphiti's every-8 updates on BranchMemEval).
func SpecFor(cfg *config.Config, system, benchmark string) (Spec, error) {
	b := cfg.Bridges.Get(system)
	if b == nil {
		return Spec{}, fmt.Errorf("system %q is not bridged (bridged: %s)", system, strings.Join(Systems, ", "))
	}
	chat, embed := cfg.Models.Chat, cfg.Models.Embed
	if chat.Local() || embed.Local() || len(chat.Endpoints) == 0 || len(embed.Endpoints) == 0 {
		return Spec{}, fmt.Errorf("%s runs its own library, which calls a real model: point models.chat and models.embed at OpenAI-compatible endpoints (vLLM, or `arbor fake-endpoint` to try it)", system)
	}
	spec := Spec{
		System: system, Command: slices.Clone(b.Command), Install: installHints[system],
		Timeout: cfg.Bridges.Timeout, StartTimeout: cfg.Bridges.StartTimeout, TopK: cfg.Bridges.TopK,
	}
	opts := maps.Clone(b.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	opts["benchmark"] = benchmark
	// Where the library's embeddings come from (bridges.<system>.embedder):
	// the embed endpoint of the handshake, or the library's own model.
	opts["embedder"] = b.Embedder
	if b.Embedder == "" {
		opts["embedder"] = config.EmbedderRole
	}
	switch system {
	case "graphiti":
		every := 1
		if benchmark == "branchmemeval" {
			every = cfg.Bridges.GraphitiUpdateEvery
		}
		opts["update_every"] = every
	case "licomemory":
		// The clone must be importable before the handshake, so that a
		// missing one fails at start.
		if repo, _ := opts["repo"].(string); repo != "" {
			spec.Command = append(spec.Command, "--repo", repo)
		}
	}
	temp := cfg.Bridges.Temperature
	for i, ep := range chat.Endpoints {
		e := endpoint(ep, "ARBOR_BRIDGE_CHAT_API_KEY", &spec)
		e.Temperature = &temp
		if i == 0 {
			spec.Hello.Chat = e
		}
		spec.Chats = append(spec.Chats, e)
	}
	spec.Hello.Embed = endpoint(embed.Endpoints[0], "ARBOR_BRIDGE_EMBED_API_KEY", &spec)
	spec.Hello.Embed.Dim = cfg.Bridges.EmbedDim
	spec.Hello.Options = opts
	return spec, nil
}

// endpoint converts a configured endpoint; its API key travels in the
// sidecar's environment under env, never in the protocol.
func endpoint(ep config.Endpoint, env string, spec *Spec) Endpoint {
	e := Endpoint{BaseURL: strings.TrimRight(ep.URL, "/") + "/v1", Model: ep.Model}
	if key := ep.APIKey.Reveal(); key != "" {
		e.APIKeyEnv = env
		spec.Env = append(spec.Env, env+"="+key)
	}
	return e
}
