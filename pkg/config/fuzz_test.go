package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary YAML to the config loader: it either loads a
// config, or fails with an error that names the file; it never panics.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"",
		"arbormem: {tau: 7.5, raw_tail: 2}\n",
		"answer: {budget: 32k}\n",
		"retry: {max_attempts: 3, base_delay: 1ms, max_delay: 5ms}\n",
		"models:\n  chat:\n    endpoints:\n      - {url: 'http://127.0.0.1:9', model: m, max_inflight: 2, timeout: 10s}\n",
		"models: {chat: openai}\n",
		"arbormem: [1, 2]\n",
		"unknown_key: 1\n",
		"cache: false\n",
		"run: {workers: -1}\n",
		"arbormem:\n  tau: .nan\n",
		"{{{",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, yaml string) {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Skip(err)
		}
		c, err := Load(p, nil, nil)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if c == nil {
			t.Fatal("nil config without an error")
		}
	})
}
