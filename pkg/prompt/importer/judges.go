package importer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/prompt"
)

// The official judges are read from the benchmarks' own evaluation code,
// as the code builds its prompt strings; these are the files read (their
// layouts as of the sources cited):
//
//   - LongMemEval (xiaowu0162/LongMemEval, src/evaluation/evaluate_qa.py):
//     get_anscheck_prompt assigns one template string per question type
//     (if/elif on task: single-session-user/-assistant and multi-session,
//     temporal-reasoning, knowledge-update, single-session-preference) and
//     one for abstention (the else of `if not abstention`), each filled by
//     `template.format(question, answer, response)`.
//   - BEAM (mohammadtavakoli78/BEAM): the rubric judge is
//     unified_llm_judge_base_prompt, a triple-quoted string of src/prompts.py
//     filled in evaluation.py by `.replace("<rubric_item>", item)
//     .replace("<llm_response>", llm_response)` (some versions also carry a
//     <question> placeholder that the code never fills); the event-ordering
//     equivalence check is llm_equivalence in evaluation.py, a system message
//     (a triple-quoted string) and a user message (an f-string over
//     first_paragraph and second_paragraph).
//
// Other layouts of the same judges are read too: f-strings, %-formatting
// (positional or by name), str.format by position or keyword, and dicts of
// templates keyed by question type.

// JudgeNames are the judge prompts of pkg/prompt an import of official
// judges can write, by benchmark.
var JudgeNames = map[string][]string{
	"longmemeval": {"judge_lme_standard", "judge_lme_temporal", "judge_lme_knowledge_update", "judge_lme_preference", "judge_lme_abstention"},
	"beam":        {"judge_beam_rubric", "judge_beam_equivalence"},
}

// Source is one file of a benchmark's evaluation code.
type Source struct {
	// Path names the file in reports.
	Path string
	// Text is its content.
	Text string
}

// Judge is one official judge prompt read from the code.
type Judge struct {
	// Name is the pkg/prompt judge it stands for.
	Name string
	// Text is the prompt as a Go template over scoring.JudgeInput's fields.
	Text string
	// System is the system message the code sends with it, as a template
	// ("" for none).
	System string
	// From says where it was read ("evaluate_qa.py:27").
	From string
	// Unfilled lists placeholders of the text that the code never fills
	// (BEAM's <question>); they are mapped to their input anyway, and the
	// report says so.
	Unfilled []string
}

// template is the judge as a pkg/prompt template file: its text, and its
// system message as the template's system part.
func (j Judge) template() string {
	if j.System == "" {
		return j.Text
	}
	return j.Text + `{{define "` + prompt.SystemPart + `"}}` + j.System + "{{end}}"
}

// inputOf maps the names the official code gives a judge's inputs
// (variables, keywords, <placeholders>) to scoring.JudgeInput's fields.
var inputOf = map[string]string{
	"question": "Question", "probing_question": "Question", "q": "Question", "query": "Question",
	"answer": "Gold", "ans": "Gold", "gold": "Gold", "gold_answer": "Gold", "correct_answer": "Gold", "reference": "Gold", "explanation": "Gold", "rubric": "Gold",
	"response": "Response", "hyp": "Response", "hypothesis": "Response", "llm_response": "Response", "model_response": "Response", "prediction": "Response", "generated_answer": "Response",
	"rubric_item": "RubricItem", "item": "RubricItem", "criterion": "RubricItem",
	"first_paragraph": "First", "first": "First", "reference_event": "First",
	"second_paragraph": "Second", "second": "Second", "system_event": "Second",
	"question_date": "Date", "date": "Date",
}

// A placeholder of each fill style, with the expression it reads.
var (
	reFormatField  = regexp.MustCompile(`\{\{|\}\}|\{([^{}]*)\}`)
	rePercentField = regexp.MustCompile(`%%|%(?:\(([A-Za-z_][A-Za-z0-9_]*)\))?[-#0 +]*\d*(?:\.\d+)?[sdrifgeEGxXc]`)
	reAngleField   = regexp.MustCompile(`<([A-Za-z_][A-Za-z0-9_]*)>`)
	reAssigned     = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*[A-Za-z_][A-Za-z0-9_.\[\], ]*)?=\s*\(?\s*$`)
	reDictKey      = regexp.MustCompile(`["']([^"'\n]+)["']\s*:\s*\(?\s*$`)
	reReplaceCall  = regexp.MustCompile(`^(?:\s|\\\n)*\.(?:\s|\\\n)*replace\(\s*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')\s*,\s*([^()]*(?:\([^()]*\)[^()]*)*)\)`)
	reLastName     = regexp.MustCompile(`(?:\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\]|([A-Za-z_][A-Za-z0-9_]*))\s*$`)
	reFunc         = regexp.MustCompile(`(?m)^[ \t]*def\s+([A-Za-z_][A-Za-z0-9_]*)`)
	reRole         = regexp.MustCompile(`["']role["']\s*:\s*["'](\w+)["']`)
	reContentKey   = regexp.MustCompile(`["']content["']\s*:\s*\(?\s*$`)
	reDictItem     = regexp.MustCompile(`["']([A-Za-z_][A-Za-z0-9_]*)["']\s*:\s*([^,}]+)`)
	reOperand      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\[\]'"]*`)
	reKeyword      = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^=].*)$`)
)

// fill is how the code fills a template: its style and, for positional
// styles, the names of the arguments in order; for .replace, the
// placeholder each call replaces and the expression it puts there.
type fill struct {
	style string // "f", "format", "percent", "replace" or "" (none seen)
	args  []string
	kw    map[string]string
	repl  map[string]string
}

// uses indexes, for one source, where each name is followed by what may
// fill it (.format, %, .replace, or a subscript or .get of a dict), so that
// finding a template's fill reads the source once, not once per literal.
type uses map[string][]int

var reUse = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)(?:[ \t]|\\\n)*(?:\.(?:\s|\\\n)*(?:format|replace|get)\(|%[^=]|\[)`)

func indexUses(src string) uses {
	u := uses{}
	for _, m := range reUse.FindAllStringSubmatchIndex(src, -1) {
		n := src[m[2]:m[3]]
		u[n] = append(u[n], m[3])
	}
	return u
}

// use finds how the literal s of src (assigned to name, if any) is filled:
// by a call right after it, or at the first use of name after it in src or,
// failing that, anywhere in the other sources.
func use(src string, idx uses, s pyStr, name string, others []Source, otherIdx []uses) fill {
	if s.fstring {
		return fill{style: "f"}
	}
	after := strings.TrimLeft(src[s.end:], " \t)")
	if f, ok := fillAt(after); ok {
		return f
	}
	if name == "" {
		return fill{}
	}
	try := func(t string, at int) (fill, bool) {
		rest := t[at:]
		// A dict of templates is filled through a subscript or .get.
		if strings.HasPrefix(rest, "[") {
			rest = rest[len(closing(rest))+min(2, len(rest)):]
		} else if strings.HasPrefix(rest, ".get(") {
			rest = rest[min(len(rest), len(".get")+len(closing(rest[len(".get"):]))+2):]
		}
		return fillAt(rest)
	}
	for _, at := range idx[name] {
		if at > s.end {
			if f, ok := try(src, at); ok {
				return f
			}
		}
	}
	for k, o := range others {
		for _, at := range otherIdx[k][name] {
			if f, ok := try(o.Text, at); ok {
				return f
			}
		}
	}
	return fill{}
}

// fillAt reads a fill call at the start of rest: .format(…), % …, or a
// chain of .replace(…).
func fillAt(rest string) (fill, bool) {
	t := strings.TrimLeft(rest, " \t")
	switch {
	case strings.HasPrefix(strings.TrimLeft(t, " \t\\\n"), ".format("):
		t = strings.TrimLeft(t, " \t\\\n")
		args, _ := callArgs(t[len(".format"):])
		f := fill{style: "format", kw: map[string]string{}}
		for _, a := range args {
			if k, v, ok := keyword(a); ok {
				f.kw[k] = v
				continue
			}
			f.args = append(f.args, argName(a))
		}
		return f, true
	case strings.HasPrefix(t, "%") && !strings.HasPrefix(t, "%="):
		t = strings.TrimLeft(t[1:], " \t")
		f := fill{style: "percent", kw: map[string]string{}}
		switch {
		case strings.HasPrefix(t, "("):
			args, _ := callArgs(t)
			for _, a := range args {
				f.args = append(f.args, argName(a))
			}
		case strings.HasPrefix(t, "{"):
			for _, m := range reDictItem.FindAllStringSubmatch(closing(t), -1) {
				f.kw[m[1]] = argName(m[2])
			}
		default:
			f.args = []string{argName(reOperand.FindString(t))}
		}
		return f, true
	}
	f := fill{style: "replace", repl: map[string]string{}}
	for {
		m := reReplaceCall.FindStringSubmatchIndex(t)
		if m == nil {
			break
		}
		lits := pyStrings(t[m[2]:m[3]])
		if len(lits) == 1 {
			f.repl[lits[0].value] = argName(t[m[4]:m[5]])
		}
		t = t[m[1]:]
	}
	return f, len(f.repl) > 0
}

// callArgs splits the parenthesised argument list that opens s at its
// top-level commas.
func callArgs(s string) ([]string, bool) {
	body := closing(s)
	if body == "" {
		return nil, false
	}
	var args []string
	depth, start := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '"', '\'':
			i = readLiteral(body, i, "").end - 1
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(body[start:i]))
				start = i + 1
			}
		}
	}
	if a := strings.TrimSpace(body[start:]); a != "" {
		args = append(args, a)
	}
	return args, true
}

// closing returns the text inside the bracket that opens s.
func closing(s string) string {
	if s == "" || !strings.ContainsRune("([{", rune(s[0])) {
		return ""
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return s[1:i]
			}
		case '"', '\'':
			i = readLiteral(s, i, "").end - 1
		}
	}
	return ""
}

func keyword(a string) (string, string, bool) {
	m := reKeyword.FindStringSubmatch(strings.TrimSpace(a))
	if m == nil {
		return "", "", false
	}
	return m[1], argName(m[2]), true
}

// argName is the name an argument expression reads: the last subscript key
// (entry['question'] → question) or the last identifier.
func argName(expr string) string {
	m := reLastName.FindStringSubmatch(strings.TrimSpace(expr))
	if m == nil {
		return ""
	}
	if m[1] != "" {
		return m[1]
	}
	return m[2]
}

// segment is a piece of a template: literal text, or an input field.
type segment struct {
	text, field string
}

// placeholders splits the literal's text by its fill into literal text and
// inputs; an unmapped placeholder is an error. unfilled lists <name>
// placeholders that name an input but that the code never fills.
func placeholders(s pyStr, f fill) (segs []segment, unfilled []string, err error) {
	text := s.value
	lit := func(t string) { segs = append(segs, segment{text: t}) }
	field := func(ph, name string) error {
		in, ok := inputOf[strings.ToLower(name)]
		if !ok {
			return fmt.Errorf("placeholder %s reads %q, which is none of the judge's inputs", ph, name)
		}
		segs = append(segs, segment{field: in})
		return nil
	}
	switch f.style {
	case "f", "format":
		pos, last := 0, 0
		for _, m := range reFormatField.FindAllStringSubmatchIndex(text, -1) {
			lit(text[last:m[0]])
			last = m[1]
			ph := text[m[0]:m[1]]
			if ph == "{{" || ph == "}}" {
				lit(ph[:1])
				continue
			}
			expr := text[m[2]:m[3]]
			if i := strings.IndexAny(expr, "!:"); i >= 0 {
				expr = expr[:i]
			}
			expr = strings.TrimSpace(expr)
			name := expr
			switch {
			case f.style == "f":
				name = argName(expr)
			case expr == "":
				if pos >= len(f.args) {
					return nil, nil, fmt.Errorf("placeholder %d of %s has no argument", pos+1, ph)
				}
				name = f.args[pos]
				pos++
			case expr[0] >= '0' && expr[0] <= '9':
				var i int
				fmt.Sscan(expr, &i)
				if i >= len(f.args) {
					return nil, nil, fmt.Errorf("placeholder %s has no argument", ph)
				}
				name = f.args[i]
			default:
				if v, ok := f.kw[expr]; ok && inputOf[strings.ToLower(v)] != "" {
					name = v
				}
			}
			if err := field(ph, name); err != nil {
				return nil, nil, err
			}
		}
		lit(text[last:])
	case "percent":
		pos, last := 0, 0
		for _, m := range rePercentField.FindAllStringSubmatchIndex(text, -1) {
			lit(text[last:m[0]])
			last = m[1]
			ph := text[m[0]:m[1]]
			if ph == "%%" {
				lit("%")
				continue
			}
			var name string
			if m[2] >= 0 {
				name = text[m[2]:m[3]]
				if v, ok := f.kw[name]; ok && inputOf[strings.ToLower(v)] != "" {
					name = v
				}
			} else {
				if pos >= len(f.args) {
					return nil, nil, fmt.Errorf("placeholder %d (%s) has no argument", pos+1, ph)
				}
				name = f.args[pos]
				pos++
			}
			if err := field(ph, name); err != nil {
				return nil, nil, err
			}
		}
		lit(text[last:])
	default:
		// .replace chains, or no fill seen: <name> placeholders that name an
		// input. One the code never replaces is mapped all the same (the
		// judge's text names it) and reported.
		last := 0
		for _, m := range reAngleField.FindAllStringSubmatchIndex(text, -1) {
			ph, name := text[m[0]:m[1]], text[m[2]:m[3]]
			expr, replaced := f.repl[ph]
			if replaced && inputOf[strings.ToLower(expr)] == "" && inputOf[strings.ToLower(name)] == "" {
				return nil, nil, fmt.Errorf("placeholder %s is replaced by %q, which is none of the judge's inputs", ph, expr)
			}
			if inputOf[strings.ToLower(name)] == "" {
				if !replaced {
					continue // an angle-bracketed word of the text
				}
				name = expr
			}
			lit(text[last:m[0]])
			last = m[1]
			if !replaced && f.style == "replace" {
				unfilled = append(unfilled, ph)
			}
			if err := field(ph, name); err != nil {
				return nil, nil, err
			}
		}
		lit(text[last:])
	}
	return segs, unfilled, nil
}

// render writes segments as a Go template: literal braces quoted, fields
// as actions.
func render(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.field != "" {
			b.WriteString(act("." + s.field))
			continue
		}
		b.WriteString(dropSentinels.Replace(s.text))
	}
	return closeActions.Replace(quoteBraces(b.String()))
}

func fieldSet(segs []segment) map[string]bool {
	m := map[string]bool{}
	for _, s := range segs {
		if s.field != "" {
			m[s.field] = true
		}
	}
	return m
}

// lmeJudgeOf names the LongMemEval judge of a template by the condition or
// dict key written before it.
func lmeJudgeOf(before string) string {
	switch {
	case strings.Contains(before, "temporal-reasoning"):
		return "judge_lme_temporal"
	case strings.Contains(before, "knowledge-update"):
		return "judge_lme_knowledge_update"
	case strings.Contains(before, "single-session-preference"):
		return "judge_lme_preference"
	case strings.Contains(before, "multi-session"), strings.Contains(before, "single-session-user"), strings.Contains(before, "single-session-assistant"):
		return "judge_lme_standard"
	case strings.Contains(before, "abstention"), strings.Contains(before, "_abs"), strings.Contains(before, "else"):
		return "judge_lme_abstention"
	}
	return ""
}

// funcAt is the name of the Python function whose body holds offset i
// ("" at module level).
func funcAt(src string, i int) string {
	name := ""
	for _, m := range reFunc.FindAllStringSubmatchIndex(src, -1) {
		if m[0] > i {
			break
		}
		name = src[m[2]:m[3]]
	}
	return name
}

// lineOf is the 1-based line of offset i.
func lineOf(src string, i int) int { return 1 + strings.Count(src[:i], "\n") }

// ReadJudges reads the official judge prompts from a benchmark's evaluation
// code: LongMemEval's evaluate_qa.py, BEAM's src/prompts.py and
// evaluation.py (either alone, or both: evaluation.py says how prompts.py's
// template is filled). Every string literal is read with how the code fills
// it; those whose placeholders are exactly a judge's inputs become that
// judge. Code that holds none is refused.
func ReadJudges(srcs []Source) (map[string]Judge, error) {
	out := map[string]Judge{}
	var problems []string
	idx := make([]uses, len(srcs))
	for k, src := range srcs {
		idx[k] = indexUses(src.Text)
	}
	for k, src := range srcs {
		others := append(append([]Source{}, srcs[:k]...), srcs[k+1:]...)
		otherIdx := append(append([]uses{}, idx[:k]...), idx[k+1:]...)
		lits := pyStrings(src.Text)
		dicts := indexDicts(src.Text)
		prevEnd := 0
		// system is a system message's text waiting for the user message
		// built after it in the same function.
		var system, systemFunc string
		for _, s := range lits {
			head := src.Text[lineStart(src.Text, s.start):s.start]
			if reContentKey.MatchString(head) && roleBefore(src.Text, s.start) == "system" {
				segs, _, err := placeholders(s, fill{})
				if err == nil {
					system, systemFunc = render(segs), funcAt(src.Text, s.start)
				}
				continue
			}
			name := ""
			if m := reAssigned.FindStringSubmatch(head); m != nil {
				name = m[1]
			} else if reDictKey.MatchString(head) {
				name = dicts.nameAt(s.start) // filled as NAME[key]
			}
			f := use(src.Text, idx[k], s, name, others, otherIdx)
			if f.style == "" && !reAngleField.MatchString(s.value) {
				continue
			}
			segs, unfilled, err := placeholders(s, f)
			where := fmt.Sprintf("%s:%d", filepath.Base(src.Path), lineOf(src.Text, s.start))
			if err != nil {
				if low := strings.ToLower(s.value); f.style != "" && (strings.Contains(low, "judge") || strings.Contains(low, "rubric")) {
					problems = append(problems, where+": "+err.Error())
				}
				continue
			}
			fs := fieldSet(segs)
			j := Judge{Text: render(segs), From: where, Unfilled: unfilled}
			switch {
			case fs["Question"] && fs["Gold"] && fs["Response"] && len(fs) == 3:
				before := src.Text[prevEnd:s.start]
				if m := reDictKey.FindStringSubmatch(head); m != nil {
					before = m[1]
				}
				j.Name = lmeJudgeOf(before)
			case fs["RubricItem"] && fs["Response"] && !fs["Gold"]:
				j.Name = "judge_beam_rubric"
			case fs["First"] && fs["Second"] && !fs["Response"]:
				j.Name = "judge_beam_equivalence"
				if system != "" && systemFunc == funcAt(src.Text, s.start) {
					j.System = system
				}
			}
			prevEnd = s.end
			if j.Name == "" {
				continue
			}
			if _, dup := out[j.Name]; !dup {
				out[j.Name] = j
			}
		}
	}
	if len(out) == 0 {
		msg := "holds no official judge prompt (looked for LongMemEval's get_anscheck_prompt templates over question, answer and response, and BEAM's rubric judge over <rubric_item> and <llm_response> and its llm_equivalence check)"
		if len(problems) > 0 {
			msg += "; templates not read: " + strings.Join(problems, "; ")
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

var reDictOpen = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=\n]*)?=\s*\{`)

// dictOpens are the dict literals assigned in a source: where each opens,
// and its name.
type dictOpens struct {
	at    []int
	names []string
}

func indexDicts(src string) dictOpens {
	var d dictOpens
	for _, m := range reDictOpen.FindAllStringSubmatchIndex(src, -1) {
		d.at = append(d.at, m[1])
		d.names = append(d.names, src[m[2]:m[3]])
	}
	return d
}

// nameAt is the name of the dict literal assigned last before offset i.
func (d dictOpens) nameAt(i int) string {
	k := sort.SearchInts(d.at, i+1) - 1
	if k < 0 {
		return ""
	}
	return d.names[k]
}

// roleBefore is the role of the chat message whose dict holds offset i:
// the last "role": "…" within the few lines before it.
func roleBefore(src string, i int) string {
	ms := reRole.FindAllStringSubmatch(src[max(0, i-300):i], -1)
	if len(ms) == 0 {
		return ""
	}
	return ms[len(ms)-1][1]
}

// quoteBraces quotes every brace of s that would open a template action
// (before another brace, an action under construction or the end), as an
// action under construction (render turns the sentinels into braces).
func quoteBraces(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '{' && (i+1 == len(s) || s[i+1] == '{' || s[i+1] == open[0]) {
			b.WriteString(act(`"{"`))
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func lineStart(s string, i int) int {
	return strings.LastIndexByte(s[:i], '\n') + 1
}

// JudgeSources reads the evaluation code at paths: files as given, and for
// a directory (a checkout of a benchmark's repository) the files that hold
// its judges: src/evaluation/evaluate_qa.py (LongMemEval), src/prompts.py or
// prompts.py and evaluation.py or src/evaluation.py (BEAM).
func JudgeSources(paths []string) ([]Source, error) {
	var out []Source
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		files := []string{p}
		if st.IsDir() {
			files = nil
			for _, rel := range []string{"src/evaluation/evaluate_qa.py", "src/prompts.py", "prompts.py", "evaluation.py", "src/evaluation.py"} {
				if _, err := os.Stat(filepath.Join(p, rel)); err == nil {
					files = append(files, filepath.Join(p, rel))
				}
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: no evaluation code of LongMemEval (src/evaluation/evaluate_qa.py) or BEAM (src/prompts.py, evaluation.py)", p)
			}
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, Source{Path: f, Text: string(b)})
		}
	}
	return out, nil
}

// IsJudgeSource reports whether path looks like evaluation code (a .py
// file, or a directory) rather than the paper's LaTeX source.
func IsJudgeSource(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir() || strings.HasSuffix(strings.ToLower(path), ".py")
}

// ImportJudges writes the official judge prompts read from a benchmark's
// evaluation code srcs into dir, so that judge.parse official with that
// prompts_dir judges with the official text. The report's Written lists
// each judge with where it was read; Missing, the judges of the benchmarks
// found that the code does not hold; Appended, placeholders the code never
// fills (mapped to their input all the same).
func ImportJudges(srcs []Source, dir string) (Report, error) {
	judges, err := ReadJudges(srcs)
	if err != nil {
		return Report{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Report{}, fmt.Errorf("prompts import: %w", err)
	}
	var r Report
	for _, b := range []string{"beam", "longmemeval"} {
		if !slices.ContainsFunc(JudgeNames[b], func(n string) bool { _, ok := judges[n]; return ok }) {
			continue
		}
		for _, n := range JudgeNames[b] {
			j, ok := judges[n]
			if !ok {
				r.Missing = append(r.Missing, n)
				continue
			}
			if err := writeTemplate(dir, n, j.template()); err != nil {
				return r, fmt.Errorf("prompts import: %s: %w", j.From, err)
			}
			r.Written = append(r.Written, n)
			r.From = append(r.From, n+" ← "+j.From)
			if len(j.Unfilled) > 0 {
				r.Unfilled = append(r.Unfilled, fmt.Sprintf("%s: %s (the official code leaves it in the text; arbor fills it, and writes it literally under judge.beam_scoring: official)", n, strings.Join(j.Unfilled, ", ")))
			}
		}
	}
	sort.Strings(r.Missing)
	if _, err := prompt.Load(dir); err != nil {
		return r, fmt.Errorf("prompts import: the written directory does not load: %w", err)
	}
	return r, nil
}
