package runners

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
)

// TestLimitRunsShareAFolder makes two selections (--limit 2, then --limit 1)
// in one results folder: each command's tables cover its own episodes and
// say so; arbor report tables the latest selection with a note, and the
// union only when asked.
func TestLimitRunsShareAFolder(t *testing.T) {
	cfg := testConfig(t)
	systems := []string{"bm25"}
	run := func(limit int, cmd ...string) (*Outcome, string) {
		t.Helper()
		var out strings.Builder
		res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: limit, Systems: systems, RunID: "shared",
			Config: cfg, Out: &out, Log: io.Discard, Command: cmd})
		if err != nil {
			t.Fatal(err)
		}
		return res, out.String()
	}
	two, _ := run(2, "arbor", "eval", "branchmemeval", "--limit", "2")
	eps := episodes(t, 2)
	want2 := wantKeys(eps, systems, cfg.Answer.Budget)
	if len(two.Samples) != len(want2) {
		t.Fatalf("--limit 2 tables %d samples, want %d", len(two.Samples), len(want2))
	}
	one, printed := run(1, "arbor", "eval", "branchmemeval", "--limit", "1")
	want1 := wantKeys(eps[:1], systems, cfg.Answer.Budget)
	if len(one.Samples) != len(want1) {
		t.Fatalf("--limit 1 into the same folder tables %d samples, want %d (its own selection)", len(one.Samples), len(want1))
	}
	for _, s := range one.Samples {
		if s.Episode != eps[0].ID {
			t.Errorf("--limit 1 tables episode %s", s.Episode)
		}
	}
	wantNote := "Selection: 1 of " + strconv.Itoa(len(episodes(t, 0))) + " episodes, " + strconv.Itoa(len(want1)/len(systems)) + " questions."
	if !strings.Contains(printed, wantNote) {
		t.Errorf("--limit 1 table does not say what it covers (%q):\n%s", wantNote, printed)
	}
	main := readTable(t, one.Dir, "main")
	if !slices.Contains(main.Notes, wantNote) {
		t.Errorf("main.json notes %q, want %q", main.Notes, wantNote)
	}

	m, err := record.ReadManifest(one.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Selections) != 2 || strings.Join(m.Selections[0].Command, " ") != "arbor eval branchmemeval --limit 2" ||
		strings.Join(m.Selections[1].Command, " ") != "arbor eval branchmemeval --limit 1" {
		t.Fatalf("manifest selections: %+v", m.Selections)
	}

	var out strings.Builder
	latest, err := Report(one.Dir, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(latest.Samples) != len(want1) || !strings.Contains(out.String(), "written by 2 different selections") {
		t.Errorf("report of a folder of two selections: %d samples, output:\n%s", len(latest.Samples), out.String())
	}
	o := DefaultReportOptions()
	o.Union = true
	out.Reset()
	union, err := Report(one.Dir, &out, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(union.Samples) != len(want2) || !strings.Contains(out.String(), "Union of the 2 selections") {
		t.Errorf("report --union: %d samples, want %d; output:\n%s", len(union.Samples), len(want2), out.String())
	}

	// Running --limit 2 again makes it the latest selection: its tables
	// cover both episodes again, and nothing is re-run.
	again, _ := run(2, "arbor", "eval", "branchmemeval", "--limit", "2")
	if len(again.Samples) != len(want2) {
		t.Errorf("--limit 2 again tables %d samples, want %d", len(again.Samples), len(want2))
	}
	if m, _ := record.ReadManifest(again.Dir); len(m.Selections) != 2 {
		t.Errorf("a repeated selection is listed twice: %d selections", len(m.Selections))
	}
}
