package branchmemeval

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// The agendas a branch can be about, one YAML file per domain in domains/
// (read at init: they are data, and edited as text rather than as Go
// literals). A file's name is its position in the planner's list and its
// key ("01-trip.yaml"): the planner shuffles that list with the seed, so
// the order is part of what makes a seed give the same set.
//
// Templates use "[a|b]" for random alternatives and "{name}" for the
// branch's variables: {short} ("Sam's trip" or "the trip"), {title}, {poss}
// ("Sam's" or "my"), the domain's context variables ({dest}, {room}, ...),
// and in slot templates {v} (the value) and {label}. Filler never names a
// slot value, so a value appears only where the plan puts it.

//go:embed domains/*.yaml
var domainFiles embed.FS

// domains is every domain in file order. A file that does not decode or
// validate stops the program at start (and every test of the package): the
// files are part of the binary, so a broken one is a build defect, never a
// set generated from fewer domains.
var domains = mustLoadDomains(domainFiles, "domains")

// domain is one kind of agenda.
type domain struct {
	key  string
	noun string // "trip": "Sam's trip", "the trip"
	ctx  []ctxSpec
	// title renders the full name; {poss} is "my" or "Sam's".
	title string
	// alias are other ways to refer to the branch when resuming it.
	alias      []string
	introSelf  []string
	introOther []string // {rel} {anchor}
	introReply []string
	slots      []slotSpec
	list       listSpec
	subs       []subtopic
}

type ctxSpec struct{ name, pool string }

// slotSpec is a typed slot. key is shared across domains where the generic
// question works for all of them ("what was the budget again?").
type slotSpec struct {
	key   string
	label string
	pool  string
	set   []string // user sentences with {v}
	upd   bool     // the plan may update it (B2)
	why   []string // reasons for an update
}

// listSpec is the assistant artifact a branch can produce (B3).
type listSpec struct {
	kind  string // option, step, title
	what  string // noun phrase for the list
	ask   []string
	items []string // name — description; the name is the answer
	outro []string
}

type subtopic struct {
	ask []string
	say []string
}

// Generic slot keys and the noun an underspecified question uses (B1).
var genericNoun = map[string]string{
	"budget":  "budget",
	"date":    "date",
	"time":    "time",
	"contact": "main contact",
	"ref":     "reference number",
	"venue":   "venue",
}

// The YAML form of a domain. The planner's types keep their unexported
// fields; these mirror them with exported, tagged ones for the decoder.
type domainFile struct {
	Key        string     `yaml:"key"`
	Noun       string     `yaml:"noun"`
	Context    []ctxFile  `yaml:"context,flow"`
	Title      string     `yaml:"title"`
	Alias      []string   `yaml:"alias"`
	IntroSelf  []string   `yaml:"intro_self"`
	IntroOther []string   `yaml:"intro_other"`
	IntroReply []string   `yaml:"intro_reply"`
	Slots      []slotFile `yaml:"slots"`
	List       listFile   `yaml:"list"`
	Subtopics  []subFile  `yaml:"subtopics"`
}

type ctxFile struct {
	Name string `yaml:"name"`
	Pool string `yaml:"pool"`
}

type slotFile struct {
	Key    string   `yaml:"key"`
	Label  string   `yaml:"label"`
	Pool   string   `yaml:"pool"`
	Set    []string `yaml:"set"`
	Update bool     `yaml:"update,omitempty"`
	Why    []string `yaml:"why,omitempty"`
}

type listFile struct {
	Kind  string   `yaml:"kind"`
	What  string   `yaml:"what"`
	Ask   []string `yaml:"ask"`
	Items []string `yaml:"items"`
	Outro []string `yaml:"outro"`
}

type subFile struct {
	Ask []string `yaml:"ask"`
	Say []string `yaml:"say"`
}

func mustLoadDomains(fsys fs.FS, dir string) []*domain {
	ds, err := loadDomains(fsys, dir)
	if err != nil {
		panic(err)
	}
	return ds
}

// loadDomains decodes and validates every dir/*.yaml of fsys, in name
// order. Unknown fields are errors, so a misspelt key cannot silently
// leave a field empty.
func loadDomains(fsys fs.FS, dir string) ([]*domain, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("branchmemeval: list domain files: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("branchmemeval: no domain files in %s", dir)
	}
	var ds []*domain
	seen := map[string]bool{}
	for _, name := range names {
		d, err := loadDomain(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("branchmemeval: domain file %s: %w", name, err)
		}
		if seen[d.key] {
			return nil, fmt.Errorf("branchmemeval: domain file %s: key %q used twice", name, d.key)
		}
		seen[d.key] = true
		ds = append(ds, d)
	}
	return ds, nil
}

func loadDomain(fsys fs.FS, name string) (*domain, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f domainFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if err := f.validate(path.Base(name)); err != nil {
		return nil, err
	}
	return f.domain(), nil
}

// validate checks what the planner takes for granted: every list it picks
// from is non-empty, slot keys are unique, and the file is named after its
// key ("NN-key.yaml"). Unknown pools and placeholders are caught by
// TestTemplatesRender and TestDomainFiles.
func (f *domainFile) validate(base string) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	_, key, ok := strings.Cut(strings.TrimSuffix(base, ".yaml"), "-")
	if !ok || key != f.Key {
		bad("file name %q does not end in -%s.yaml (NN-key.yaml, NN its place in the list)", base, f.Key)
	}
	for _, c := range []struct {
		field string
		empty bool
	}{
		{"key", f.Key == ""}, {"noun", f.Noun == ""}, {"title", f.Title == ""}, {"alias", len(f.Alias) == 0},
		{"intro_self", len(f.IntroSelf) == 0}, {"intro_other", len(f.IntroOther) == 0}, {"intro_reply", len(f.IntroReply) == 0},
		{"list.what", f.List.What == ""}, {"list.ask", len(f.List.Ask) == 0}, {"list.items", len(f.List.Items) == 0},
		{"list.outro", len(f.List.Outro) == 0}, {"slots", len(f.Slots) == 0}, {"subtopics", len(f.Subtopics) == 0},
	} {
		if c.empty {
			bad("%s is empty", c.field)
		}
	}
	switch f.List.Kind {
	case "option", "step", "title":
	default:
		bad("list.kind is %q, not option, step or title", f.List.Kind)
	}
	for i, c := range f.Context {
		if c.Name == "" || c.Pool == "" {
			bad("context %d: name and pool are required", i+1)
		}
	}
	keys := map[string]bool{}
	for i, s := range f.Slots {
		if s.Key == "" || s.Label == "" || s.Pool == "" || len(s.Set) == 0 {
			bad("slot %d (%q): key, label, pool and set are required", i+1, s.Key)
		}
		if s.Update != (len(s.Why) > 0) {
			bad("slot %q: an updatable slot needs reasons (why), and only an updatable one has them", s.Key)
		}
		if keys[s.Key] {
			bad("slot key %q used twice", s.Key)
		}
		keys[s.Key] = true
	}
	for i, s := range f.Subtopics {
		if len(s.Ask) == 0 || len(s.Say) == 0 {
			bad("subtopic %d: ask and say are required", i+1)
		}
	}
	return errors.Join(errs...)
}

// domain converts the file form to the planner's.
func (f *domainFile) domain() *domain {
	d := &domain{key: f.Key, noun: f.Noun, title: f.Title, alias: f.Alias,
		introSelf: f.IntroSelf, introOther: f.IntroOther, introReply: f.IntroReply,
		list: listSpec{kind: f.List.Kind, what: f.List.What, ask: f.List.Ask, items: f.List.Items, outro: f.List.Outro}}
	for _, c := range f.Context {
		d.ctx = append(d.ctx, ctxSpec{c.Name, c.Pool})
	}
	for _, s := range f.Slots {
		d.slots = append(d.slots, slotSpec{key: s.Key, label: s.Label, pool: s.Pool, set: s.Set, upd: s.Update, why: s.Why})
	}
	for _, s := range f.Subtopics {
		d.subs = append(d.subs, subtopic{ask: s.Ask, say: s.Say})
	}
	return d
}

func domainByKey(k string) *domain {
	for _, d := range domains {
		if d.key == k {
			return d
		}
	}
	return nil
}
