package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/prompt"
)

func TestImportFixture(t *testing.T) {
	src, err := os.ReadFile("testdata/paper-fixture.tex")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := Import(string(src), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"path_evolution", "node_metadata", "answer_format"}; !slices.Equal(r.Written, want) {
		t.Errorf("written %v, want %v", r.Written, want)
	}
	if len(r.Unknown) != 1 || !strings.Contains(r.Unknown[0], "Something & Else") {
		t.Errorf("unknown boxes %v", r.Unknown)
	}
	if slices.Contains(r.Missing, "path_evolution") || !slices.Contains(r.Missing, "system_anchor") {
		t.Errorf("missing %v", r.Missing)
	}
	if len(r.SchemaDiffs) != 1 || !strings.Contains(r.SchemaDiffs[0], "node_metadata: paper fields arbor does not read [mood]") {
		t.Errorf("schema diffs %v", r.SchemaDiffs)
	}
	// node_metadata's box has no placeholder for the exchange: arbor's
	// inputs are appended so that the model still sees the interaction.
	if len(r.Appended) != 1 || !strings.HasPrefix(r.Appended[0], "node_metadata: ") || !strings.Contains(r.Appended[0], "Exchange") {
		t.Errorf("appended %v", r.Appended)
	}
	set, err := prompt.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := set.Render("path_evolution", struct{ PrevPathSummary, CurrentSummary string }{"Topic: trip", "booked the hotel"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "Old: Topic: trip\nNew: booked the hotel") || !strings.Contains(got, "keep {{braces}} literal") {
		t.Errorf("path_evolution rendered:\n%s", got)
	}
	af, err := set.Render("answer_format", struct {
		Preference, YesNo, PrevOrCurrent, Current, Previous bool
		Anchors                                             []string
		Ordinal                                             string
		Bridge, CountSum, HasComputation                    bool
	}{YesNo: true, Anchors: []string{"book club", "trip"}, Ordinal: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "### ANSWER FORMAT\n- two: yes or no\n- six: anchored to 'book club', 'trip' only\n- seven: position 2"; af != want {
		t.Errorf("answer_format rendered:\n%q\nwant\n%q", af, want)
	}
	none, _ := set.Render("answer_format", struct {
		Preference, YesNo, PrevOrCurrent, Current, Previous bool
		Anchors                                             []string
		Ordinal                                             string
		Bridge, CountSum, HasComputation                    bool
	}{})
	if none != "" {
		t.Errorf("answer_format with no condition: %q", none)
	}
}

func TestImportRefusesNonPaper(t *testing.T) {
	if _, err := Import(`\documentclass{article}\begin{document}hi\end{document}`, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "no arbormempromptbox") {
		t.Errorf("err = %v", err)
	}
	if _, err := ReadLaTeX(`\begin{arbormempromptbox}{\texttt{x}} never closed`); err == nil || !strings.Contains(err.Error(), "not closed") {
		t.Errorf("err = %v", err)
	}
}

// TestImportPaper imports the real paper when it is beside the repository:
// every prompt of appendix D is found and the directory loads.
func TestImportPaper(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "shared", "spec", "arbormem-paper.tex")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("the paper's LaTeX source is not at %s: %v", path, err)
	}
	dir := t.TempDir()
	r, err := Import(string(src), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Missing) > 0 {
		t.Errorf("prompts of pkg/prompt not found in the paper: %v", r.Missing)
	}
	t.Logf("written %v; schema: %v; appended: %v; unknown: %v", r.Written, r.SchemaDiffs, r.Appended, r.Unknown)
}

// FuzzReadLaTeX: any source either is refused or yields boxes whose bodies
// are substrings of it, and Template always makes a parseable template.
func FuzzReadLaTeX(f *testing.F) {
	src, _ := os.ReadFile("testdata/paper-fixture.tex")
	for _, s := range []string{string(src), `\begin{arbormempromptbox}{\texttt{a\_b}: T}` + "\n$x {{y}}\n" + `\end{arbormempromptbox}`,
		`\begin{arbormempromptbox}{{{}`, `\begin{arbormempromptbox}{Dynamic Answer-Format Instructions}` + "\n- a\n- b <asked_ordinal>\n" + `\end{arbormempromptbox}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ReadLaTeX(s)
		if err != nil {
			return
		}
		for _, p := range ps {
			if !strings.Contains(s, p.Body) {
				t.Fatalf("body %q is not in the source", p.Body)
			}
			text, _ := Template(p, "{{.Exchange}}")
			if _, err := parseTemplate(p.Name, text); err != nil {
				t.Fatalf("box %q makes no template: %v\n%s", p.Title, err, text)
			}
		}
	})
}

// judgeInput is the data arbor's judges render their prompts with
// (scoring.JudgeInput's fields).
type judgeInput struct{ Date, Question, Gold, Response, RubricItem, First, Second string }

var sample = judgeInput{Date: "2023/05/01 (Mon) 10:00", Question: "Where?", Gold: "Porto", Response: "In Porto.", RubricItem: "names Porto", First: "moved to Porto", Second: "went to Porto"}

// TestImportJudges reads each fixture (our own wording, in the code layout
// of the official evaluation code or another layout such code uses) and
// renders every judge it holds: one case per judge and layout.
func TestImportJudges(t *testing.T) {
	type judge struct{ name, want, system string }
	cases := []struct {
		layout  string
		files   []string
		judges  []judge
		missing []string
		from    string
	}{
		{"LongMemEval's evaluate_qa.py: if/elif, template.format by position", []string{"judges/lme_evaluate_qa.py"}, []judge{
			{"judge_lme_standard", "Judge it.\n\nQ: Where?\n\nGold: Porto\n\nSaid: In Porto.\n\nRight? yes or no.", ""},
			{"judge_lme_temporal", "Judge time, allow off-by-one.\n\nQ: Where?\n\nGold: Porto\n\nSaid: In Porto.\n\nRight? yes or no.", ""},
			{"judge_lme_knowledge_update", "Judge the update. \"Latest\" wins.\n\nQ: Where?\n\nGold: Porto\n\nSaid: In Porto.\n\nRight? yes or no.", ""},
			{"judge_lme_preference", "Judge the {style}.\n\nQ: Where?\n\nRubric: Porto\n\nSaid: In Porto.\n\nRight? yes or no.", ""},
			{"judge_lme_abstention", "Judge abstention.\n\nQ: Where?\n\nWhy: Porto\n\nSaid: In Porto.\n\nAbstained? yes or no.", ""},
		}, nil, "lme_evaluate_qa.py:6"},
		{"a dict of templates by question type, %-formatting by name", []string{"judges/lme_dict_percent.py"}, []judge{
			{"judge_lme_standard", "Plain check. 100% sure?\nQ: Where?\nGold: Porto\nSaid: In Porto.\nyes/no", ""},
			{"judge_lme_temporal", "Time check, off by one is fine.\nQ: Where?\nGold: Porto\nSaid: In Porto.\nyes/no", ""},
			{"judge_lme_knowledge_update", "Update check: the {latest} counts.\nQ: Where?\nGold: Porto\nSaid: In Porto.\nyes/no", ""},
			{"judge_lme_preference", "Taste check.\nQ: Where?\nRubric: Porto\nSaid: In Porto.\nyes/no", ""},
			{"judge_lme_abstention", "Refusal check.\nQ: Where?\nWhy: Porto\nSaid: In Porto.\nyes/no", ""},
		}, nil, "lme_dict_percent.py:5"},
		{"f-strings, joined literals, conversions", []string{"judges/lme_fstring.py"}, []judge{
			{"judge_lme_standard", "Right?\nQ: Where?\nGold: Porto\nSaid: In Porto.\nyes/no", ""},
			{"judge_lme_temporal", "Dates {loosely}.\nQ: Where?\nGold: Porto\nSaid: In Porto.\nyes/no", ""},
			{"judge_lme_knowledge_update", "Newest wins.\nQ: Where?\nGold: Porto\nSaid: In Porto.\nyes/no", ""},
			{"judge_lme_preference", "Personal enough?\nQ: Where?\nRubric: Porto\nSaid: In Porto.\nyes/no", ""},
			{"judge_lme_abstention", "Refused rightly?\nQ: Where?\nWhy: Porto\nSaid: In Porto.\nyes/no", ""},
		}, nil, "lme_fstring.py:5"},
		{"BEAM's src/prompts.py and evaluation.py: .replace chain, system and f-string user messages", []string{"judges/beam/src/prompts.py", "judges/beam/evaluation.py"}, []judge{
			{"judge_beam_rubric", "\nGrade one rubric criterion.\n\n- QUESTION: Where?\n- CRITERION: names Porto\n- RESPONSE: In Porto.\n\nGive 1.0, 0.5 or 0.0. Braces stay literal: {{not a field}}.\n\n{\n   \"score\": [1.0, 0.5 or 0.0],\n   \"reason\": \"[why]\"\n}\n", ""},
			{"judge_beam_equivalence", "One: moved to Porto \n\n                       Two: went to Porto\n                    ", "\n            Say YES when both snippets tell the same thing, else NO.\n        "},
		}, nil, "prompts.py:10"},
		{"BEAM's src/prompts.py alone: the rubric judge by its placeholders", []string{"judges/beam/src/prompts.py"}, []judge{
			{"judge_beam_rubric", "\nGrade one rubric criterion.\n\n- QUESTION: Where?\n- CRITERION: names Porto\n- RESPONSE: In Porto.\n\nGive 1.0, 0.5 or 0.0. Braces stay literal: {{not a field}}.\n\n{\n   \"score\": [1.0, 0.5 or 0.0],\n   \"reason\": \"[why]\"\n}\n", ""},
		}, []string{"judge_beam_equivalence"}, "prompts.py:10"},
	}
	for _, c := range cases {
		t.Run(c.layout, func(t *testing.T) {
			srcs, err := JudgeSources(prefixed("testdata/", c.files))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			r, err := ImportJudges(srcs, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Written) != len(c.judges) || !slices.Equal(r.Missing, c.missing) {
				t.Fatalf("written %v, missing %v; want %d written, missing %v", r.Written, r.Missing, len(c.judges), c.missing)
			}
			if !slices.ContainsFunc(r.From, func(s string) bool { return strings.HasSuffix(s, "← "+c.from) }) {
				t.Errorf("from %v: no judge read at %s", r.From, c.from)
			}
			set, err := prompt.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range c.judges {
				got, err := set.Render(j.name, sample)
				if err != nil || got != j.want {
					t.Errorf("%s: %q (%v)\nwant %q", j.name, got, err, j.want)
				}
				sys, ok, err := set.RenderPart(j.name, prompt.SystemPart, sample)
				if err != nil || ok != (j.system != "") || sys != j.system {
					t.Errorf("%s: system part %q (%v, %v), want %q", j.name, sys, ok, err, j.system)
				}
			}
		})
	}
}

// TestImportJudgesUnfilledQuestion: BEAM's code never fills the rubric
// prompt's <question>; the import maps it to the question all the same and
// says so.
func TestImportJudgesUnfilledQuestion(t *testing.T) {
	srcs, err := JudgeSources([]string{"testdata/judges/beam"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ImportJudges(srcs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Unfilled) != 1 || !strings.HasPrefix(r.Unfilled[0], "judge_beam_rubric: <question>") {
		t.Errorf("unfilled %v", r.Unfilled)
	}
}

func prefixed(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}

// TestImportJudgesRefuses: code without a judge prompt, and a checkout
// without evaluation code, are refused with a message naming what was
// looked for.
func TestImportJudgesRefuses(t *testing.T) {
	for name, src := range map[string]string{
		"no strings":        "import os\nprint(1)\n",
		"no judge's inputs": "PROMPT = \"Summarise {}\".format(topic)\nOTHER = \"\"\"Answer <question> from <context>\"\"\"\n",
		"not python at all": `\documentclass{article}`,
	} {
		_, err := ImportJudges([]Source{{Path: "x.py", Text: src}}, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "holds no official judge prompt") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := JudgeSources([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no evaluation code") {
		t.Errorf("empty checkout: err = %v", err)
	}
}

// TestImportOfficialCheckouts imports the judges from real checkouts of the
// benchmarks' repositories when ARBOR_LONGMEMEVAL_DIR (xiaowu0162/LongMemEval)
// or ARBOR_BEAM_DIR (mohammadtavakoli78/BEAM) names one: every judge of the
// benchmark is found, and each renders every input it is given.
func TestImportOfficialCheckouts(t *testing.T) {
	for env, bench := range map[string]string{"ARBOR_LONGMEMEVAL_DIR": "longmemeval", "ARBOR_BEAM_DIR": "beam"} {
		t.Run(bench, func(t *testing.T) {
			dir := os.Getenv(env)
			if dir == "" {
				t.Skipf("%s names no checkout of %s's repository", env, bench)
			}
			srcs, err := JudgeSources([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			r, err := ImportJudges(srcs, out)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Missing) > 0 || !slices.Equal(sorted(r.Written), sorted(JudgeNames[bench])) {
				t.Fatalf("written %v, missing %v", r.Written, r.Missing)
			}
			set, err := prompt.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range JudgeNames[bench] {
				got, err := set.Render(n, sample)
				if err != nil {
					t.Fatal(err)
				}
				var wants []string
				switch {
				case strings.HasPrefix(n, "judge_lme_"):
					wants = []string{sample.Question, sample.Gold, sample.Response}
				case n == "judge_beam_rubric":
					wants = []string{sample.RubricItem, sample.Response}
				default:
					wants = []string{sample.First, sample.Second}
				}
				for _, w := range wants {
					if !strings.Contains(got, w) {
						t.Errorf("%s does not show %q:\n%s", n, w, got)
					}
				}
			}
			t.Logf("read %v; unfilled %v", r.From, r.Unfilled)
		})
	}
}

func sorted(xs []string) []string {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	return ys
}

// FuzzReadJudges: any source either is refused or yields parseable
// templates.
func FuzzReadJudges(f *testing.F) {
	for _, p := range []string{"judges/lme_evaluate_qa.py", "judges/lme_dict_percent.py", "judges/lme_fstring.py", "judges/beam/src/prompts.py", "judges/beam/evaluation.py"} {
		src, _ := os.ReadFile(filepath.Join("testdata", p))
		f.Add(string(src))
	}
	f.Add("def get_anscheck_prompt():\n    else:\n        template = \"{{{} {} {}\\\"\"")
	f.Add("x = f'{question!r:>{width}} {answer} {response}'")
	f.Add("t = {'abstention': '%(question)s %(answer)s %s' % (response)}")
	f.Fuzz(func(t *testing.T, s string) {
		js, err := ReadJudges([]Source{{Path: "f.py", Text: s}})
		if err != nil {
			return
		}
		for name, j := range js {
			text := j.template()
			if _, err := parseTemplate(name, text); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, text)
			}
		}
	})
}

// TestFieldsOfEveryTemplate: the fields of each of arbor's templates are
// read, built-in functions and all (answer_format uses "or").
func TestFieldsOfEveryTemplate(t *testing.T) {
	set := prompt.Default()
	for _, name := range []string{"answer_format", "node_metadata", "atomic_fact_miner"} {
		txt, err := set.Text(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(fields(txt)) == 0 {
			t.Errorf("%s: no field read", name)
		}
	}
	if got := fields(`{{if or .A .B}}{{.C}}{{end}}`); strings.Join(got, ",") != "A,B,C" {
		t.Errorf("fields = %v, want A,B,C", got)
	}
}
