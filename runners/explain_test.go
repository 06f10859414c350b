package runners

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExplainReplaysToTheQuestion(t *testing.T) {
	eps := episodes(t, 1)
	qs := questions(eps)
	cfg := testConfig(t)
	res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Episodes: []string{eps[0].ID}, Systems: []string{"arbormem"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	page := filepath.Join(t.TempDir(), "forest.html")
	if err := Explain(deadline(t), res.Dir, cfg, "", eps[0].ID, qs[0].ID, page, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"question " + qs[0].ID, "forest:", "localization:", "decided by: ", "channels (tokens):", "forest page: " + page} {
		if !strings.Contains(got, want) {
			t.Errorf("explain output lacks %q:\n%s", want, got)
		}
	}
	// The page holds the forest's data and the drawing arbor serve's page uses.
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"function drawForest(", `"nodes":[{"id":"` + eps[0].Steps[0].Interaction.ID + `"`, "Localized to "} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the forest page lacks %q", want)
		}
	}
	// Only what was committed before the question may appear in the forest.
	for _, st := range eps[0].Steps {
		if st.Question != nil && st.Question.ID == qs[0].ID {
			break
		}
		if st.Interaction != nil && !strings.Contains(got, st.Interaction.ID) {
			t.Errorf("committed interaction %s missing from the forest", st.Interaction.ID)
		}
	}
	after := false
	for _, st := range eps[0].Steps {
		if st.Question != nil && st.Question.ID == qs[0].ID {
			after = true
			continue
		}
		if after && st.Interaction != nil && strings.Contains(got, st.Interaction.ID+" ") {
			t.Errorf("interaction %s, committed after the question, is in the explained forest", st.Interaction.ID)
		}
	}
	if err := Explain(deadline(t), res.Dir, cfg, "", eps[0].ID, "no-such-question", "", io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "no-such-question") {
		t.Errorf("unknown question: got %v", err)
	}
	if err := Explain(deadline(t), res.Dir, cfg, "", "no-such-episode", "", "", io.Discard, io.Discard); err == nil {
		t.Error("unknown episode: want an error")
	}
}
