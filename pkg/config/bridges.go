package config

import (
	"fmt"
	"time"
)

// Bridges configures the memory systems arbor runs outside itself through
// sidecar processes (baselines/sidecar): Mem0, A-MEM, Graphiti and
// LiCoMemory (paper §6.1). Their model calls go to models.chat and
// models.embed.
type Bridges struct {
	// Timeout bounds each request to a sidecar (one commit, one recall); a
	// sidecar that hangs past it is killed and the episode fails.
	Timeout time.Duration `mapstructure:"timeout" yaml:"timeout"`
	// StartTimeout bounds a sidecar's start and handshake (library import).
	StartTimeout time.Duration `mapstructure:"start_timeout" yaml:"start_timeout"`
	// TopK is how many memory units a recall asks for: "Retrieval candidates:
	// Up to 50 memory units before final evidence packing" (appendix C.1).
	TopK int `mapstructure:"top_k" yaml:"top_k"`
	// EmbedDim is the embed endpoint's dimension, which the systems' vector
	// stores must match (BGE-M3: 1024).
	EmbedDim int `mapstructure:"embed_dim" yaml:"embed_dim"`
	// Temperature is set on the systems' chat calls where the sidecar can
	// (the libraries otherwise leave it to the server's defaults).
	Temperature float64 `mapstructure:"temperature" yaml:"temperature"`
	// GraphitiUpdateEvery: "During BranchMemEval replay, graph updates are
	// performed every eight interactions" (appendix C.2).
	GraphitiUpdateEvery int `mapstructure:"graphiti_update_every" yaml:"graphiti_update_every"`

	Mem0       Bridge `mapstructure:"mem0" yaml:"mem0"`
	AMem       Bridge `mapstructure:"amem" yaml:"amem"`
	Graphiti   Bridge `mapstructure:"graphiti" yaml:"graphiti"`
	LiCoMemory Bridge `mapstructure:"licomemory" yaml:"licomemory"`
}

// Bridge is how to start one system's sidecar.
type Bridge struct {
	// Command is the argv of one sidecar process; relative paths are
	// relative to the working folder arbor runs in.
	Command []string `mapstructure:"command" yaml:"command"`
	// Options are passed to the sidecar in its handshake (see the
	// sidecar's header comment for what it reads).
	Options map[string]any `mapstructure:"options" yaml:"options,omitempty"`
	// Embedder is where the system's embeddings come from: "role" (arbor's
	// embed role, models.embed: BGE-M3 on the a800 config; "when supported,
	// all methods share …", P:541) or "native" (the library's own embedder:
	// A-MEM's sentence-transformers model_name, LiCoMemory's Hugging Face
	// model). Mem0 and Graphiti take the embed role through their own
	// embedder settings and have no native switch (docs/FIDELITY.md).
	Embedder string `mapstructure:"embedder" yaml:"embedder"`
}

// The values of Bridge.Embedder.
const (
	EmbedderRole   = "role"
	EmbedderNative = "native"
)

// hasNativeEmbedder lists the bridged systems whose library embeds with a
// model of its own unless routed through the embed role.
var hasNativeEmbedder = map[string]bool{"amem": true, "licomemory": true}

// NamedBridge is a bridge with its system name.
type NamedBridge struct {
	Name   string
	Bridge *Bridge
}

// All lists the bridged systems in the paper's column order (Table 1).
func (b *Bridges) All() []NamedBridge {
	return []NamedBridge{{"graphiti", &b.Graphiti}, {"amem", &b.AMem}, {"mem0", &b.Mem0}, {"licomemory", &b.LiCoMemory}}
}

// Get returns the bridge of system, or nil when system is not bridged.
func (b *Bridges) Get(system string) *Bridge {
	for _, nb := range b.All() {
		if nb.Name == system {
			return nb.Bridge
		}
	}
	return nil
}

func (b *Bridges) resolve() error {
	if b.Timeout <= 0 {
		return fmt.Errorf("bridges.timeout: %s must be positive", b.Timeout)
	}
	if b.StartTimeout <= 0 {
		return fmt.Errorf("bridges.start_timeout: %s must be positive", b.StartTimeout)
	}
	if b.TopK <= 0 {
		return fmt.Errorf("bridges.top_k: %d must be positive", b.TopK)
	}
	if b.EmbedDim <= 0 {
		return fmt.Errorf("bridges.embed_dim: %d must be positive", b.EmbedDim)
	}
	if b.GraphitiUpdateEvery <= 0 {
		return fmt.Errorf("bridges.graphiti_update_every: %d must be positive", b.GraphitiUpdateEvery)
	}
	for _, nb := range b.All() {
		switch e := nb.Bridge.Embedder; {
		case e == "":
			nb.Bridge.Embedder = EmbedderRole
		case e == EmbedderNative && !hasNativeEmbedder[nb.Name]:
			return fmt.Errorf("bridges.%s.embedder: %s always embeds through the embed role (models.embed); native is for amem and licomemory", nb.Name, nb.Name)
		case e != EmbedderRole && e != EmbedderNative:
			return fmt.Errorf("bridges.%s.embedder: %q is not one of role, native", nb.Name, e)
		}
	}
	return nil
}
