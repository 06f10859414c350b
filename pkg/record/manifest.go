package record

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/staletemp"
)

// Manifest describes how a run was made: everything needed to reproduce it,
// and nothing secret (the config's Secret fields marshal as "[redacted]").
type Manifest struct {
	RunID string `json:"run_id"`
	// Kind is the experiment: eval, sweep, ablate or latency.
	Kind      string    `json:"kind"`
	Command   []string  `json:"command"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	Version   string    `json:"arbor_version"`
	Commit    string    `json:"arbor_commit"`
	Benchmark string    `json:"benchmark"`
	Dataset   Dataset   `json:"dataset"`
	Systems   []string  `json:"systems"`
	Budgets   []int     `json:"budgets"`
	Variants  []string  `json:"variants,omitempty"`
	Seed      int       `json:"seed"`
	// Config is the resolved configuration without secrets.
	Config    any               `json:"config"`
	Prompts   map[string]string `json:"prompts"`
	Endpoints []Endpoint        `json:"endpoints,omitempty"`
	// Heuristic lists the offline stand-ins in use.
	Heuristic []string `json:"heuristic,omitempty"`
	// Fingerprint hashes what makes samples comparable (config, prompts,
	// dataset); resuming with a different fingerprint is refused.
	Fingerprint string `json:"fingerprint"`
	Shard       string `json:"shard,omitempty"`
	// BEAMScoring is the BEAM scoring protocol ("corrected" or "official",
	// judge.beam_scoring) of a BEAM run; empty for other benchmarks.
	BEAMScoring string `json:"beam_scoring,omitempty"`
	// SubsetQuestions is the number of questions of the sampled subset
	// (--subset or --subset-ids; subset.json lists them), 0 without one.
	SubsetQuestions int `json:"subset_questions,omitempty"`
	// History lists every config that contributed samples to the run, in
	// order, with the commands that ran under it and how many of the run's
	// samples it made (Sample.Fingerprint); the top-level Config and
	// Fingerprint are the latest entry's. One entry for a run made under one
	// config; more only after --force.
	History []Contribution `json:"history,omitempty"`
	// Degraded is every system's count of what went wrong but was
	// survived, as of the last run that wrote the folder (memory fallbacks,
	// repaired and unparsed replies, ingest errors, unparsed judge replies,
	// failed samples); empty before a run finishes.
	Degraded []SystemDegraded `json:"degraded,omitempty"`
	// Selections lists, oldest first, each distinct selection of episodes,
	// questions, systems, budgets and variants that a command wrote into
	// the folder, with the latest command that made it. Reports table the
	// latest one unless asked for the union; empty in runs made before
	// selections were recorded and in merged runs (every sample counts).
	Selections []Selection `json:"selections,omitempty"`
}

// Contribution is one config that contributed samples to a run.
type Contribution struct {
	Fingerprint string     `json:"fingerprint"`
	Config      any        `json:"config"`
	Commands    [][]string `json:"commands"`
	Commit      string     `json:"arbor_commit,omitempty"`
	Started     time.Time  `json:"started"`
	// Samples counts the run's current samples made under this config.
	Samples int `json:"samples"`
}

// Dataset identifies the input file.
type Dataset struct {
	// Path is absolute; "" for an embedded set (Embedded names it).
	Path     string `json:"path"`
	Embedded string `json:"embedded,omitempty"`
	SHA256   string `json:"sha256"`
}

// Endpoint is one configured model endpoint, with the model it serves.
type Endpoint struct {
	Role  string `json:"role"`
	URL   string `json:"url"`
	Model string `json:"model"`
}

// FileSHA256 hashes a file (or, for a directory, every regular file below it
// in lexical order, path and content).
func FileSHA256(path string) (string, error) {
	h := sha256.New()
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		if err := hashFile(h, path); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		return hashFile(h, p)
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(w io.Writer, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// ReadManifest loads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s/manifest.json: %w", dir, err)
	}
	return &m, nil
}

// WriteManifest writes dir/manifest.json atomically.
func WriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	return WriteFileAtomic(filepath.Join(dir, "manifest.json"), append(b, '\n'))
}

// StaleTempAge is how old a temporary file of WriteFileAtomic must be for
// RemoveStaleTemps to take it for a killed writer's.
const StaleTempAge = staletemp.Age

// RemoveStaleTemps removes from dir the temporary files that WriteFileAtomic
// leaves behind when its process is killed mid-write (".<name>.<digits>"),
// once older than StaleTempAge. It returns how many it removed; one it cannot
// remove (a read-only folder) is left for a later run.
func RemoveStaleTemps(dir string) int { return staletemp.Remove(dir, isAtomicTemp) }

// isAtomicTemp reports whether name is one of WriteFileAtomic's temporary
// names: "." + a file name + "." + CreateTemp's random digits.
func isAtomicTemp(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	if !strings.HasPrefix(name, ".") || dot <= 1 || dot == len(name)-1 {
		return false
	}
	for _, c := range name[dot+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, so readers never see a partial file, even after a
// crash of the machine rather than of arbor.
func WriteFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	// CreateTemp makes 0600 files; results are meant to be read by others
	// (a shared results folder, a web server).
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
