package config

import (
	"fmt"
	"os"
	"time"
)

// Serve configures `arbor serve`, ArborMem as a live memory in front of the
// chat role.
type Serve struct {
	// Budget is the answer-time evidence budget of each turn, in tokens
	// (the paper's 30,968 by default, as answer.budget).
	Budget int `mapstructure:"budget" yaml:"budget"`
	// Tokens are the bearer tokens a caller may present, each bound to the
	// scopes it may read and write. With none, only loopback clients are
	// served.
	Tokens []ServeToken `mapstructure:"tokens" yaml:"tokens,omitempty"`
	// IdleTimeout is how long a scope's memory stays loaded after its last
	// request; MaxScopes bounds the scopes held at once (the least recently
	// used is unloaded first). An unloaded scope is rebuilt from storage on
	// its next request.
	IdleTimeout time.Duration `mapstructure:"idle_timeout" yaml:"idle_timeout"`
	MaxScopes   int           `mapstructure:"max_scopes" yaml:"max_scopes"`
	// SnapshotEvery is how many commits a scope makes between two
	// snapshots; a restart loads the last snapshot and replays the commits
	// after it.
	SnapshotEvery int `mapstructure:"snapshot_every" yaml:"snapshot_every"`
	// MaxBodyBytes and MaxMessages bound a request.
	MaxBodyBytes int64 `mapstructure:"max_body_bytes" yaml:"max_body_bytes"`
	MaxMessages  int   `mapstructure:"max_messages" yaml:"max_messages"`
}

// ServeToken is one bearer token and the scopes it may use. A scope
// pattern is a scope name, or a prefix followed by "*" ("team-*"), or "*".
type ServeToken struct {
	// TokenEnv names the environment variable holding the token (preferred).
	TokenEnv string `mapstructure:"token_env" yaml:"token_env,omitempty"`
	// Token may be given directly; never printed.
	Token  Secret   `mapstructure:"token" yaml:"token,omitempty"`
	Scopes []string `mapstructure:"scopes" yaml:"scopes"`
}

// resolve fills the serve section's defaults and tokens from the
// environment, and refuses values that cannot work.
func (s *Serve) resolve() error {
	if s.Budget <= 0 {
		return fmt.Errorf("serve.budget: %d: want a positive token count", s.Budget)
	}
	if s.IdleTimeout <= 0 {
		return fmt.Errorf("serve.idle_timeout: %v: want a positive duration", s.IdleTimeout)
	}
	if s.MaxScopes <= 0 {
		return fmt.Errorf("serve.max_scopes: %d: want >= 1", s.MaxScopes)
	}
	if s.SnapshotEvery <= 0 {
		return fmt.Errorf("serve.snapshot_every: %d: want >= 1", s.SnapshotEvery)
	}
	if s.MaxBodyBytes <= 0 || s.MaxMessages <= 0 {
		return fmt.Errorf("serve.max_body_bytes %d and serve.max_messages %d: want > 0", s.MaxBodyBytes, s.MaxMessages)
	}
	for i := range s.Tokens {
		t := &s.Tokens[i]
		if t.TokenEnv != "" && t.Token == "" {
			t.Token = Secret(os.Getenv(t.TokenEnv))
			if t.Token == "" {
				return fmt.Errorf("serve.tokens[%d].token_env: %s is not set", i, t.TokenEnv)
			}
		}
		if t.Token == "" {
			return fmt.Errorf("serve.tokens[%d]: neither token_env nor token is set", i)
		}
		if len(t.Scopes) == 0 {
			return fmt.Errorf("serve.tokens[%d].scopes: empty (name the scopes this token may use, or \"*\")", i)
		}
	}
	return nil
}
