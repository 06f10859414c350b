// Package importer reads the ArborMem paper's own prompt text from its LaTeX
// source (the arbormempromptbox environments of appendix D) and writes it as
// templates that prompts_dir accepts, so that a run can use the paper's exact
// wording (P:1529, "reproduced verbatim"). The repository holds only arbor's
// own wording; the paper's text is read from the user's copy at run time.
package importer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/arbor-eval/arbor/pkg/prompt"
)

// Prompt is one prompt box of the paper.
type Prompt struct {
	// Name is the pkg/prompt template it corresponds to ("" when none).
	Name string
	// Title is the box's title with LaTeX escapes undone.
	Title string
	// Body is the box's text as written (a listing: verbatim).
	Body string
	// Line is the 1-based line of the box's \begin.
	Line int
}

// MethodPrompts are the prompts of pkg/prompt that the paper prints in
// appendix D; an import that misses one says so.
var MethodPrompts = []string{"system_anchor", "chain_of_note", "chain_of_note_no_facts", "answer_format", "history_hints",
	"reranker_instruction", "node_metadata", "path_evolution", "atomic_fact_miner", "fact_collision_auditor_batch",
	"assistant_artifact_miner", "event_miner", "state_slot_miner", "attribute_tag_predictor"}

// titleNames maps boxes titled without a template name to theirs.
var titleNames = map[string]string{
	"dynamic answer-format instructions": "answer_format",
	"runtime history hints":              "history_hints",
	"_reranker_prompt":                   "reranker_instruction",
}

var (
	reBegin  = regexp.MustCompile(`\\begin\{arbormempromptbox\}`)
	reEnd    = "\\end{arbormempromptbox}"
	reTexttt = regexp.MustCompile(`\\texttt\{((?:[^{}\\]|\\.)*)\}`)
	reEscape = regexp.MustCompile(`\\([_&%$#{}])`)
)

// unescape undoes the LaTeX escapes of a title: \_ \& \% \$ \# \{ \},
// \textbackslash{}, ~ as a space and --/--- as dashes.
func unescape(s string) string {
	s = strings.ReplaceAll(s, `\textbackslash{}`, `\`)
	s = reEscape.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "---", "—")
	s = strings.ReplaceAll(s, "--", "–")
	return strings.ReplaceAll(s, "~", " ")
}

// braced returns the text of the brace group that opens s (nested groups
// and escaped braces kept) and the rest after it.
func braced(s string) (string, string, bool) {
	if !strings.HasPrefix(s, "{") {
		return "", s, false
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:i], s[i+1:], true
			}
		}
	}
	return "", s, false
}

// ReadLaTeX reads every arbormempromptbox environment of src. A source
// with none is refused: it is not the paper (or not its appendix).
func ReadLaTeX(src string) ([]Prompt, error) {
	var out []Prompt
	rest, offset := src, 0
	for {
		loc := reBegin.FindStringIndex(rest)
		if loc == nil {
			break
		}
		line := 1 + strings.Count(src[:offset+loc[0]], "\n")
		after := rest[loc[1]:]
		title, body, ok := braced(after)
		if !ok {
			return nil, fmt.Errorf("line %d: arbormempromptbox without a {title}", line)
		}
		end := strings.Index(body, reEnd)
		if end < 0 {
			return nil, fmt.Errorf("line %d: arbormempromptbox not closed", line)
		}
		text := strings.TrimPrefix(body[:end], "\n")
		p := Prompt{Title: strings.TrimSpace(unescape(reTexttt.ReplaceAllString(title, "$1"))), Body: strings.TrimRight(text, " \t\n"), Line: line}
		p.Name = nameOf(title)
		out = append(out, p)
		consumed := len(rest) - len(body) + end + len(reEnd)
		offset += consumed
		rest = rest[consumed:]
	}
	if len(out) == 0 {
		return nil, errors.New("no arbormempromptbox environment: not the ArborMem paper's LaTeX source")
	}
	return out, nil
}

// nameOf finds the template a box title names: the \texttt{} name before
// the colon, or a known title.
func nameOf(title string) string {
	if m := reTexttt.FindStringSubmatch(title); m != nil {
		n := strings.ToLower(unescape(m[1]))
		if v, ok := titleNames[n]; ok {
			return v
		}
		return strings.Trim(n, "_ ")
	}
	return titleNames[strings.ToLower(strings.TrimSpace(unescape(title)))]
}

// Report says what an import wrote and where it differs from arbor.
type Report struct {
	// Written lists the templates written, by name.
	Written []string
	// Missing lists the prompts of MethodPrompts the source does not hold.
	Missing []string
	// Unknown lists box titles that name no prompt of pkg/prompt.
	Unknown []string
	// SchemaDiffs lists, per prompt, the JSON fields of the paper's output
	// schema that arbor's parser does not read, and those it reads that the
	// paper's schema lacks.
	SchemaDiffs []string
	// Appended lists, per prompt, the inputs arbor's template passes that
	// the paper's text has no placeholder for; they are appended after it.
	Appended []string
	// From lists, for an import of official judges, where each judge was
	// read ("judge_lme_temporal ← evaluate_qa.py:27").
	From []string
	// Unfilled lists, per judge, placeholders of the official text that the
	// official code never fills.
	Unfilled []string
}

var (
	rePlaceholder = regexp.MustCompile(`\$([a-z][a-z0-9_]*)`)
	reJSONKey     = regexp.MustCompile(`"([a-z_][a-z0-9_]*)"\s*:`)
)

// camel turns a snake_case placeholder into arbor's field name.
func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part == "" {
			continue
		}
		if strings.EqualFold(part, "json") {
			b.WriteString("JSON")
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// fields lists the top-level fields ({{.X}}) a template reads. The
// template is parsed as pkg/prompt parses it, with text/template's built-in
// functions (or, eq, len, ...): a parse that knew none of them failed on
// answer_format and listed no field.
func fields(text string) []string {
	t, err := template.New("t").Parse(text)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch x := n.(type) {
		case *parse.ListNode:
			if x != nil {
				for _, c := range x.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walk(x.Pipe)
		case *parse.PipeNode:
			if x != nil {
				for _, c := range x.Cmds {
					walk(c)
				}
			}
		case *parse.CommandNode:
			for _, a := range x.Args {
				walk(a)
			}
		case *parse.FieldNode:
			seen[x.Ident[0]] = true
		case *parse.IfNode:
			walk(x.Pipe)
			walk(x.List)
			walk(x.ElseList)
		case *parse.RangeNode:
			walk(x.Pipe)
			walk(x.List)
			walk(x.ElseList)
		case *parse.WithNode:
			walk(x.Pipe)
			walk(x.List)
			walk(x.ElseList)
		}
	}
	for _, tt := range t.Templates() {
		walk(tt.Tree.Root)
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// answerFormatConds are the conditions of answer_format's lines, in the
// order appendix D prints them (arbormem.answerFormatData).
var answerFormatConds = []string{"Preference", "YesNo", "PrevOrCurrent", "Current", "Previous", "Anchors", "Ordinal", "Bridge", "CountSum", "HasComputation"}

// Template turns a box into a Go template for prompt p.Name, given arbor's
// own template ours: braces that would open a template action are quoted,
// $name placeholders become {{.Name}}, answer_format's lines and
// history_hints' second paragraph get their conditions, and inputs of ours
// without a placeholder are appended. It returns the template and the
// inputs appended.
func Template(p Prompt, ours string) (string, []string) {
	// Actions are built between the sentinels open and shut, and become
	// {{ and }} only after the text's own braces are quoted.
	body := dropSentinels.Replace(p.Body)
	used := map[string]bool{}
	body = rePlaceholder.ReplaceAllStringFunc(body, func(m string) string {
		f := camel(m[1:])
		used[f] = true
		return act("." + f)
	})
	switch p.Name {
	case "answer_format":
		body = answerFormat(body)
		for _, c := range answerFormatConds {
			used[c] = true
		}
	case "history_hints":
		// The box's second paragraph is "additionally inserted for
		// current-value questions" (appendix D).
		if first, second, ok := strings.Cut(body, "\n\n"); ok {
			body = first + "\n" + act("- if .Current") + "\n\n" + second + "\n" + act("- end")
			used["Current"] = true
		}
	}
	var b strings.Builder
	b.WriteString(quoteBraces(body))
	var appended []string
	for _, f := range fields(ours) {
		if used[f] {
			continue
		}
		appended = append(appended, f)
		if p.Name == "reranker_instruction" && f == "Query" {
			// The instruction is prepended to the query A (FIDELITY).
			b.WriteString("\nA: " + act("."+f))
			continue
		}
		b.WriteString("\n\n" + act("."+f))
	}
	return closeActions.Replace(b.String()) + "\n", appended
}

// The sentinels of a template action under construction.
const open, shut = "\x02", "\x03"

func act(s string) string { return open + s + shut }

// dropSentinels removes the sentinels from a text that is not ours (so
// none can pass for an action), and closeActions turns the actions under
// construction into template actions; Template and render share them.
var (
	dropSentinels = strings.NewReplacer(open, "", shut, "")
	closeActions  = strings.NewReplacer(open, "{{", shut, "}}")
)

var reAnchors = regexp.MustCompile(`'<topic_anchor_1>'(?:,\s*'<topic_anchor_\d+>')*(?:,\s*(?:\.\.\.|…))?`)

// answerFormat wraps each "- " line of the dynamic answer-format box in its
// condition and fills the anchor and ordinal placeholders.
func answerFormat(body string) string {
	body = reAnchors.ReplaceAllLiteralString(body, act("range $i, $a := .Anchors")+act("if $i")+", "+act("end")+"'"+act("$a")+"'"+act("end"))
	body = strings.ReplaceAll(body, "<asked_ordinal>", act(".Ordinal"))
	var b strings.Builder
	b.WriteString(act("- if or ."+strings.Join(answerFormatConds, " .")+" -") + "\n")
	i := 0
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "- ") && i < len(answerFormatConds) {
			b.WriteString(act("- if ."+answerFormatConds[i]) + "\n" + line + "\n" + act("- end") + "\n")
			i++
			continue
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(act("- end -"))
	return b.String()
}

// writeTemplate writes text as dir/name.tmpl once it parses as a template.
func writeTemplate(dir, name, text string) error {
	if _, err := parseTemplate(name, text); err != nil {
		return fmt.Errorf("%s does not make a template: %w", name, err)
	}
	return os.WriteFile(filepath.Join(dir, name+".tmpl"), []byte(text), 0o644)
}

// parseTemplate parses text as pkg/prompt does.
func parseTemplate(name, text string) (*template.Template, error) {
	return template.New(name).Option("missingkey=error").Parse(text)
}

// schemaDiff compares the JSON keys of the paper's output schema with
// those arbor's template asks for.
func schemaDiff(name, paper, ours string) string {
	keys := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, k := range reJSONKey.FindAllStringSubmatch(s, -1) {
			m[k[1]] = true
		}
		return m
	}
	pk, ok := keys(paper), keys(ours)
	var extra, lack []string
	for k := range pk {
		if !ok[k] {
			extra = append(extra, k)
		}
	}
	for k := range ok {
		if !pk[k] {
			lack = append(lack, k)
		}
	}
	if len(extra) == 0 && len(lack) == 0 {
		return ""
	}
	sort.Strings(extra)
	sort.Strings(lack)
	return fmt.Sprintf("%s: paper fields arbor does not read [%s]; arbor fields the paper lacks [%s]", name, strings.Join(extra, ", "), strings.Join(lack, ", "))
}

// Import reads the paper's LaTeX source src, writes one template per prompt
// of set it finds into dir (created if needed), and reports what it found.
// set nil means the embedded prompts.
func Import(src, dir string, set *prompt.Set) (Report, error) {
	if set == nil {
		set = prompt.Default()
	}
	ps, err := ReadLaTeX(src)
	if err != nil {
		return Report{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Report{}, fmt.Errorf("prompts import: %w", err)
	}
	var r Report
	found := map[string]bool{}

	for _, p := range ps {
		ours, err := set.Text(p.Name)
		if p.Name == "" || err != nil {
			r.Unknown = append(r.Unknown, fmt.Sprintf("%q (line %d)", p.Title, p.Line))
			continue
		}
		if found[p.Name] {
			continue
		}
		found[p.Name] = true
		text, appended := Template(p, ours)
		if err := writeTemplate(dir, p.Name, text); err != nil {
			return r, fmt.Errorf("prompts import: line %d: %w", p.Line, err)
		}
		r.Written = append(r.Written, p.Name)
		if len(appended) > 0 {
			r.Appended = append(r.Appended, p.Name+": "+strings.Join(appended, ", "))
		}
		if d := schemaDiff(p.Name, p.Body, ours); d != "" {
			r.SchemaDiffs = append(r.SchemaDiffs, d)
		}
	}
	for _, n := range MethodPrompts {
		if !found[n] {
			r.Missing = append(r.Missing, n)
		}
	}
	if _, err := prompt.Load(dir); err != nil {
		return r, fmt.Errorf("prompts import: the written directory does not load: %w", err)
	}
	return r, nil
}
