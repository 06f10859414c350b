package fake

import (
	"fmt"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"
	"unicode"

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
//
// Matching is a left-to-right scan: each literal is found at the earliest
// place after the previous one (at once, when nothing is captured between
// them), and the last literal must end the text. A field holding the text
// that follows it in the template would be cut there; rendered prompts do
// not do that.
type matcher struct {
	name  string
	parts []part
	// literal is the length of the template's fixed text: longer wins when
	// two templates match the same request.
	literal int
}

// part is a literal text or a capture (name "" for one that is skipped).
type part struct {
	text    string
	capture bool
	name    string
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
	m := &matcher{name: name}
	seen := map[string]bool{}
	capture := func(field string) {
		if field != "" && seen[field] {
			field = ""
		}
		seen[field] = true
		if n := len(m.parts); n > 0 && m.parts[n-1].capture {
			return // adjacent captures: the first would be empty
		}
		m.parts = append(m.parts, part{capture: true, name: field})
	}
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
			if s == "" {
				continue
			}
			m.literal += len(s)
			m.parts = append(m.parts, part{text: s})
		case *parse.ActionNode:
			capture(pipeField(n.Pipe))
		case *parse.IfNode:
			capture(pipeField(n.Pipe))
		case *parse.RangeNode:
			capture(pipeField(n.Pipe))
		case *parse.WithNode:
			capture(pipeField(n.Pipe))
		default:
			capture("")
		}
	}
	if m.literal == 0 {
		return nil, fmt.Errorf("speaker: prompt %s has no fixed text to recognise it by", name)
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
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	if n := len(m.parts); n > 0 && !m.parts[n-1].capture {
		text = strings.TrimRightFunc(text, unicode.IsSpace) // the template's own end is trimmed
	}
	f := map[string]string{}
	pos := 0
	open := -1 // index in parts of a capture waiting for its end
	for i, p := range m.parts {
		if p.capture {
			open = i
			continue
		}
		at := pos
		switch {
		case open < 0 && !strings.HasPrefix(text[pos:], p.text):
			return nil, false
		case open >= 0 && i == len(m.parts)-1:
			// The last literal ends the text.
			if !strings.HasSuffix(text, p.text) || len(text)-len(p.text) < pos {
				return nil, false
			}
			at = len(text) - len(p.text)
		case open >= 0:
			j := strings.Index(text[pos:], p.text)
			if j < 0 {
				return nil, false
			}
			at = pos + j
		}
		if open >= 0 {
			if n := m.parts[open].name; n != "" {
				f[n] = text[pos:at]
			}
			open = -1
		}
		pos = at + len(p.text)
	}
	if open >= 0 {
		if n := m.parts[open].name; n != "" {
			f[n] = text[pos:]
		}
	} else if pos != len(text) {
		return nil, false
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
