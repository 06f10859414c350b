package config

import _ "embed"

// defaultYAML is configs/default.yaml, copied here by `go generate` so the
// binary carries it (go:embed cannot reach outside the package directory).
//
//go:generate cp ../../configs/default.yaml default.yaml
//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML returns the embedded default configuration text.
func DefaultYAML() []byte { return defaultYAML }
