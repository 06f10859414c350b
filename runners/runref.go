package runners

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/arbor-eval/arbor/pkg/record"
)

// CheckRunName refuses a --run value that is not a plain name: run ids
// name a folder under --results and must not reach outside it
// ("../../escape", "/tmp/x", "a/b").
func CheckRunName(name string) error {
	if name == "" {
		return nil
	}
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("--run %q: a run id is a folder name under --results (letters, digits, - _ .), not a path", name)
	}
	return nil
}

// ResolveRun finds a recorded run from a command-line argument: a path to
// the run folder, or a bare run id looked up under results.
func ResolveRun(arg, results string) (string, error) {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return arg, nil
	}
	if !strings.ContainsAny(arg, `/\`) {
		p := filepath.Join(results, arg)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, nil
		}
		return "", fmt.Errorf("no run %q: neither a folder nor a run id under %s", arg, results)
	}
	return "", fmt.Errorf("no run folder %s", arg)
}

// ManifestConfig returns the YAML of the config a run was made with, for
// commands that rebuild or re-score it (explain, report --judges, score
// --run), with the manifest's redacted API keys dropped (api_key_env names
// the variable that supplies them again). ok is false when the manifest
// has no config in YAML-key form (a run made before manifests stored one);
// notes say what the caller should know.
func ManifestConfig(dir string) (data []byte, source string, notes []string, err error) {
	m, err := record.ReadManifest(dir)
	if err != nil {
		return nil, "", nil, err
	}
	cfg, ok := m.Config.(map[string]any)
	if !ok || cfg["models"] == nil {
		return nil, "", nil, errors.New("the manifest holds no config in YAML-key form (made by an older arbor); pass --config")
	}
	if models, ok := cfg["models"].(map[string]any); ok {
		for role, r := range models {
			rm, _ := r.(map[string]any)
			eps, _ := rm["endpoints"].([]any)
			for _, e := range eps {
				em, _ := e.(map[string]any)
				if em["api_key"] == "[redacted]" {
					delete(em, "api_key")
					if em["api_key_env"] == nil {
						notes = append(notes, fmt.Sprintf("models.%s: the run's API key was given inline and is not stored; pass --config", role))
					}
				}
				if u, _ := em["url"].(string); strings.Contains(u, "[redacted]") {
					notes = append(notes, fmt.Sprintf("models.%s: the run's endpoint URL held a password, which is not stored; pass --config", role))
				}
			}
		}
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, "", nil, err
	}
	return b, filepath.Join(dir, "manifest.json") + " (config)", notes, nil
}
