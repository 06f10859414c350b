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

func TestImportLongMemEvalJudges(t *testing.T) {
	src, err := os.ReadFile("testdata/evaluate_qa_fixture.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := ImportJudges(string(src), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Written) != 5 || len(r.Missing) != 0 {
		t.Fatalf("written %v, missing %v", r.Written, r.Missing)
	}
	set, err := prompt.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := struct{ Question, Gold, Response, Date string }{"Where?", "Porto", "In Porto.", "2023-05-01"}
	for name, want := range map[string]string{
		"judge_lme_knowledge_update": "Judge the update. \"Latest\" wins.\n\nQ: Where?\n\nGold: Porto\n\nSaid: In Porto.\n\nRight? yes or no.\n",
		"judge_lme_preference":       "Judge the {{style}}.\n\nQ: Where?\n\nRubric: Porto\n\nSaid: In Porto.\n\nRight? yes or no.\n",
		"judge_lme_abstention":       "Judge abstention.\n\nQ: Where?\n\nWhy: Porto\n\nSaid: In Porto.\n\nAbstained? yes or no.\n",
	} {
		got, err := set.Render(name, data)
		if err != nil || got != want {
			t.Errorf("%s: %q (%v), want %q", name, got, err, want)
		}
	}
	if _, err := ImportJudges("print('hello')", t.TempDir()); err == nil {
		t.Error("a file without get_anscheck_prompt was accepted")
	}
}

// FuzzReadLongMemEvalJudges: any source either is refused or yields
// parseable templates.
func FuzzReadLongMemEvalJudges(f *testing.F) {
	src, _ := os.ReadFile("testdata/evaluate_qa_fixture.py")
	f.Add(string(src))
	f.Add("def get_anscheck_prompt():\n    else:\n        template = \"{{{} {} {}\\\"\"")
	f.Fuzz(func(t *testing.T, s string) {
		js, err := ReadLongMemEvalJudges(s)
		if err != nil {
			return
		}
		for name, text := range js {
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
