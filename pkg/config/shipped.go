package config

import (
	"embed"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// shipped holds the configs/*.yaml files that commands name by default or
// in their help (configs/a800.yaml, configs/efficiency.yaml, …), copied by
// `go generate` so that `cd /tmp && arbor perf` finds them as a clone does.
//
//go:generate sh -c "rm -f shipped/*.yaml && cp ../../configs/a800.yaml ../../configs/a800-4b.yaml ../../configs/efficiency.yaml ../../configs/fake-endpoint.yaml shipped/"
//go:embed shipped/*.yaml
var shipped embed.FS

// Shipped lists the embedded config files by their path in the repository
// ("configs/a800.yaml").
func Shipped() []string {
	es, _ := fs.ReadDir(shipped, "shipped")
	var out []string
	for _, e := range es {
		out = append(out, "configs/"+e.Name())
	}
	sort.Strings(out)
	return out
}

// ShippedYAML is the embedded text of a shipped config named by its
// repository path ("configs/a800.yaml"); false for any other name.
func ShippedYAML(name string) ([]byte, bool) {
	clean := filepath.ToSlash(filepath.Clean(name))
	if path.Dir(clean) != "configs" {
		return nil, false
	}
	b, err := shipped.ReadFile("shipped/" + path.Base(clean))
	return b, err == nil
}

// readConfigFile reads a config file; a shipped config's repository path
// ("configs/a800.yaml") that does not exist relative to the working
// directory falls back to the embedded copy. A file on disk always wins, so
// an edited checkout reads its own edits.
func readConfigFile(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if e, ok := ShippedYAML(file); ok {
			return e, nil
		}
	}
	return b, err
}
