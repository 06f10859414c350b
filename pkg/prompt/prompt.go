// Package prompt holds every prompt template arbor sends to a model, by name.
// The templates are our own wording of the paper's rules and schemas
// (appendix D) and of the benchmarks' judge rules; a directory configured as
// `prompts_dir` overrides any of them file by file (<name>.tmpl).
package prompt

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/template"
)

//go:embed templates/*.tmpl
var embedded embed.FS

// Set is a resolved collection of templates: the embedded ones, with any file
// in an override directory taking precedence.
type Set struct {
	mu    sync.Mutex
	text  map[string]string
	cache map[string]*template.Template
	// Overridden lists template names that came from the override directory.
	Overridden []string
}

// Load builds a Set from the embedded templates and the optional override
// directory dir ("" for none). An override whose name matches no embedded
// template is an error, so that a typo never silently does nothing.
func Load(dir string) (*Set, error) {
	s := &Set{text: map[string]string{}, cache: map[string]*template.Template{}}
	err := fs.WalkDir(embedded, "templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := embedded.ReadFile(p)
		if err != nil {
			return err
		}
		s.text[strings.TrimSuffix(d.Name(), ".tmpl")] = string(b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read embedded prompts: %w", err)
	}
	if dir == "" {
		return s, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("prompts_dir %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".tmpl") {
			continue
		}
		name := strings.TrimSuffix(e.Name(), ".tmpl")
		if _, ok := s.text[name]; !ok {
			return nil, fmt.Errorf("prompts_dir %s: %s overrides no known prompt (known: %s)", dir, e.Name(), strings.Join(s.Names(), ", "))
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("prompts_dir %s: %w", dir, err)
		}
		s.text[name] = string(b)
		s.Overridden = append(s.Overridden, name)
	}
	sort.Strings(s.Overridden)
	return s, nil
}

var (
	defaultOnce sync.Once
	defaultSet  *Set
)

// Default is the embedded set with no overrides.
func Default() *Set {
	defaultOnce.Do(func() {
		var err error
		defaultSet, err = Load("")
		if err != nil {
			panic(err) // embedded templates are part of the binary; a failure is a build bug
		}
	})
	return defaultSet
}

// Names lists every template name, sorted.
func (s *Set) Names() []string {
	var n []string
	for k := range s.text {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Text returns the raw template text of name.
func (s *Set) Text(name string) (string, error) {
	t, ok := s.text[name]
	if !ok {
		return "", fmt.Errorf("unknown prompt %q", name)
	}
	return t, nil
}

// Render executes template name with data (text/template syntax; missing
// keys are errors).
func (s *Set) Render(name string, data any) (string, error) {
	t, err := s.parsed(name)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	return b.String(), nil
}

// SystemPart names the optional block a template defines ({{define
// "system"}}…{{end}}) for a system message sent before the rendered prompt:
// an imported official judge whose code sends one (BEAM's equivalence
// check). The block is no part of Render's text.
const SystemPart = "system"

// RenderPart executes the block part defined inside template name; ok is
// false when the template defines none.
func (s *Set) RenderPart(name, part string, data any) (text string, ok bool, err error) {
	t, err := s.parsed(name)
	if err != nil {
		return "", false, err
	}
	p := t.Lookup(part)
	if p == nil || p.Tree == nil {
		return "", false, nil
	}
	var b bytes.Buffer
	if err := p.Execute(&b, data); err != nil {
		return "", false, fmt.Errorf("render prompt %s part %s: %w", name, part, err)
	}
	return b.String(), true, nil
}

// parsed returns template name parsed (once).
func (s *Set) parsed(name string) (*template.Template, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.cache[name]; ok {
		return t, nil
	}
	txt, err := s.Text(name)
	if err != nil {
		return nil, err
	}
	t, err := template.New(name).Option("missingkey=error").Parse(txt)
	if err != nil {
		return nil, fmt.Errorf("parse prompt %s: %w", name, err)
	}
	s.cache[name] = t
	return t, nil
}

// DirectivesPrefix prefixes the templates of per-benchmark answer
// directives: "directives_locomo", "directives_beam", ...
const DirectivesPrefix = "directives_"

// Directives renders benchmark's answer directives (the template
// DirectivesPrefix+benchmark): how answers should be formed for that
// benchmark's scoring, given word for word to every system's answer prompt,
// the shared template and ArborMem's runtime layout alike (the paper omitted
// "benchmark scoring directives" from its printed prompts, appendix D). It is
// "" for a benchmark without directives, or none named.
func (s *Set) Directives(benchmark string) (string, error) {
	name := DirectivesPrefix + strings.ToLower(strings.TrimSpace(benchmark))
	if _, ok := s.text[name]; !ok || benchmark == "" {
		return "", nil
	}
	d, err := s.Render(name, nil)
	return strings.TrimSpace(d), err
}

// Hashes returns the sha256 of every template's text, for run manifests.
func (s *Set) Hashes() map[string]string {
	h := map[string]string{}
	for k, v := range s.text {
		sum := sha256.Sum256([]byte(v))
		h[k] = hex.EncodeToString(sum[:8])
	}
	return h
}
