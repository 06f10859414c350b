package importer

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/arbor-eval/arbor/pkg/prompt"
)

// LongMemEval's judge prompts are the template strings of
// get_anscheck_prompt in the benchmark's own evaluation code
// (xiaowu0162/LongMemEval, src/evaluation/evaluate_qa.py): one per question
// type, and one for abstention, each filled with question, answer and
// response by str.format in that order.
var reTemplateAssign = regexp.MustCompile(`template\s*=\s*"((?:[^"\\\n]|\\.)*)"`)

// lmeJudgeOf names the pkg/prompt judge of a template string by the
// condition written before it.
func lmeJudgeOf(before string) string {
	switch {
	case strings.Contains(before, "'temporal-reasoning'"):
		return "judge_lme_temporal"
	case strings.Contains(before, "'knowledge-update'"):
		return "judge_lme_knowledge_update"
	case strings.Contains(before, "'single-session-preference'"):
		return "judge_lme_preference"
	case strings.Contains(before, "'multi-session'"), strings.Contains(before, "'single-session-user'"):
		return "judge_lme_standard"
	case strings.Contains(before, "else"):
		return "judge_lme_abstention"
	}
	return ""
}

// pyString undoes the escapes of a double-quoted Python string literal.
func pyString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\', '"', '\'':
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// ReadLongMemEvalJudges reads the judge templates of LongMemEval's
// evaluate_qa.py as Go templates by pkg/prompt name: the three {} of each
// become {{.Question}}, {{.Gold}} and {{.Response}}. A source without
// get_anscheck_prompt is refused.
func ReadLongMemEvalJudges(src string) (map[string]string, error) {
	if !strings.Contains(src, "def get_anscheck_prompt") {
		return nil, errors.New("no get_anscheck_prompt: not LongMemEval's src/evaluation/evaluate_qa.py")
	}
	out := map[string]string{}
	last := 0
	for _, m := range reTemplateAssign.FindAllStringSubmatchIndex(src, -1) {
		name := lmeJudgeOf(src[last:m[0]])
		last = m[1]
		if name == "" || out[name] != "" {
			continue
		}
		text := strings.NewReplacer(open, "", shut, "").Replace(pyString(src[m[2]:m[3]]))
		parts := strings.Split(text, "{}")
		if len(parts) != 4 {
			return nil, fmt.Errorf("%s: %d {} placeholders, want 3 (question, answer, response)", name, len(parts)-1)
		}
		fields := []string{".Question", ".Gold", ".Response"}
		var b strings.Builder
		for i, p := range parts {
			b.WriteString(p)
			if i < 3 {
				b.WriteString(act(fields[i]))
			}
		}
		out[name] = strings.NewReplacer(open, "{{", shut, "}}").Replace(quoteBraces(b.String())) + "\n"
	}
	if len(out) == 0 {
		return nil, errors.New("get_anscheck_prompt holds no template string")
	}
	return out, nil
}

// quoteBraces quotes every brace of s that would open a template action
// (before another brace, an action under construction or the end), as an
// action under construction (Template turns the sentinels into braces).
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

// ImportJudges writes the official judge prompts read from a benchmark's
// evaluation code src into dir (LongMemEval's evaluate_qa.py), so that
// judge.parse official with that prompts_dir judges with the official text.
func ImportJudges(src, dir string) (Report, error) {
	judges, err := ReadLongMemEvalJudges(src)
	if err != nil {
		return Report{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Report{}, fmt.Errorf("prompts import: %w", err)
	}
	var r Report
	for _, name := range []string{"judge_lme_standard", "judge_lme_temporal", "judge_lme_knowledge_update", "judge_lme_preference", "judge_lme_abstention"} {
		text, ok := judges[name]
		if !ok {
			r.Missing = append(r.Missing, name)
			continue
		}
		if err := writeTemplate(dir, name, text); err != nil {
			return r, fmt.Errorf("prompts import: %w", err)
		}
		r.Written = append(r.Written, name)
	}
	if _, err := prompt.Load(dir); err != nil {
		return r, fmt.Errorf("prompts import: the written directory does not load: %w", err)
	}
	return r, nil
}
