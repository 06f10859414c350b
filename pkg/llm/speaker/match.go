package speaker

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/arbor-eval/arbor/pkg/prompt"
)

// matcher recognises one template's rendering and reads its fields back. It
// is compiled from the template's own parse tree: the top-level text becomes
// literal text that must appear verbatim and in order, every top-level
// {{.Field}} a capture named Field, and every top-level control structure
// ({{if}}, {{range}}, {{with}}) a capture named after the first field its
// pipeline reads (later ones with the same name are not captured). A prompt
// rendered from another text (an override in prompts_dir) therefore does not
// match, and is reported as unrecognised rather than answered by guesswork.
type matcher struct {
	name string
	re   *regexp.Regexp
	// literal is the length of the template's fixed text: longer wins when
	// two templates match the same request.
	literal int
}

// compile builds the matcher of template name in ps.
func compile(ps *prompt.Set, name string) (*matcher, error) {
	text, err := ps.Text(name)
	if err != nil {
		return nil, err
	}
	t, err := template.New(name).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("speaker: parse prompt %s: %w", name, err)
	}
	var b strings.Builder
	b.WriteString(`(?s)\A\s*`)
	seen := map[string]bool{}
	capture := func(field string) {
		if field != "" && !seen[field] {
			seen[field] = true
			b.WriteString("(?P<" + field + ">.*?)")
			return
		}
		b.WriteString(".*?")
	}
	m := &matcher{name: name}
	nodes := t.Tree.Root.Nodes
	for i, n := range nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			s := string(n.Text)
			if i == 0 {
				s = strings.TrimLeft(s, " \t\r\n")
			}
			if i == len(nodes)-1 {
				s = strings.TrimRight(s, " \t\r\n")
			}
			m.literal += len(s)
			b.WriteString(regexp.QuoteMeta(s))
		case *parse.ActionNode:
			capture(pipeField(n.Pipe))
		case *parse.IfNode:
			capture(pipeField(n.Pipe))
		case *parse.RangeNode:
			capture(pipeField(n.Pipe))
		case *parse.WithNode:
			capture(pipeField(n.Pipe))
		default:
			b.WriteString(".*?")
		}
	}
	b.WriteString(`\s*\z`)
	m.re, err = regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("speaker: prompt %s: %w", name, err)
	}
	return m, nil
}

// pipeField is the first field a pipeline reads (".Exchange" → "Exchange"),
// or "" when it reads none.
func pipeField(p *parse.PipeNode) string {
	if p == nil {
		return ""
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			if f, ok := a.(*parse.FieldNode); ok && len(f.Ident) > 0 {
				return f.Ident[0]
			}
		}
	}
	return ""
}

// match returns the fields of text when it is a rendering of m's template.
func (m *matcher) match(text string) (map[string]string, bool) {
	sub := m.re.FindStringSubmatch(text)
	if sub == nil {
		return nil, false
	}
	f := map[string]string{}
	for i, n := range m.re.SubexpNames() {
		if n != "" {
			f[n] = sub[i]
		}
	}
	return f, true
}

// matchers compiles the matchers of names, longest fixed text first.
func matchers(ps *prompt.Set, names []string) ([]*matcher, error) {
	var out []*matcher
	for _, n := range names {
		m, err := compile(ps, n)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].literal > out[j].literal })
	return out, nil
}
