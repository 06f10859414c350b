package runners

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseSubsetIDs(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
		err      string
	}{
		{"ids, comments and blanks", "# subset\n q1 \n\nq2\r\n#x\nq3", []string{"q1", "q2", "q3"}, ""},
		{"duplicate", "q1\nq2\nq1\n", nil, "f.txt: line 3: id \"q1\" is already listed on line 1"},
		{"empty", "# nothing\n\n", nil, "f.txt: no ids"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseSubsetIDs(strings.NewReader(c.in), "f.txt")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

func FuzzParseSubsetIDs(f *testing.F) {
	for _, s := range []string{"q1\nq2\n", "# c\n\n a \n", "a\na\n", "", "\x00\n\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := ParseSubsetIDs(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" || id != strings.TrimSpace(id) || strings.HasPrefix(id, "#") || seen[id] {
				t.Fatalf("bad id %q in %v", id, ids)
			}
			seen[id] = true
		}
	})
}

// TestSubsetWrittenAndPinned: a sampled subset's question ids land in the
// run folder with its turn figures; passing that file back as --subset-ids
// selects the same questions; an unknown id is refused.
func TestSubsetWrittenAndPinned(t *testing.T) {
	cfg := testConfig(t)
	var log strings.Builder
	res, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Systems: []string{"full"}, Subset: 3, Seed: 42, Config: cfg, Out: io.Discard, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(res.Dir, SubsetFile)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(body), "# subset: 3 episodes, ") || !strings.Contains(log.String(), "subset: 3 episodes") {
		t.Errorf("subset figures missing:\n%s\nlog:\n%s", body, log.String())
	}
	ids, err := ReadSubsetIDs(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range res.Samples {
		want = append(want, s.Question)
	}
	slices.Sort(want)
	if got := slices.Sorted(slices.Values(ids)); !slices.Equal(got, want) {
		t.Fatalf("subset.txt lists %v, the run answered %v", got, want)
	}
	pinned, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Systems: []string{"full"}, SubsetIDs: ids[:2], Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(pinned.Samples) == 0 || pinned.Dir == res.Dir {
		t.Fatalf("pinned run: %d samples in %s", len(pinned.Samples), pinned.Dir)
	}
	for _, s := range pinned.Samples {
		if !slices.Contains(want, s.Question) {
			t.Errorf("pinned run answered %s, outside the subset", s.Question)
		}
	}
	if _, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Systems: []string{"full"}, SubsetIDs: []string{"nope"}, Config: cfg, Out: io.Discard, Log: io.Discard}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown id: error = %v", err)
	}
}

func TestSubsetSummaryShowsThePapers(t *testing.T) {
	st := statsOf([]header{{id: "a", questions: []string{"a"}, interactions: 250}, {id: "b", questions: []string{"b"}, interactions: 11900}})
	got := st.summary("longmemeval")
	if want := "subset: 2 episodes, 2 questions, 12,150 turns (6075.00 per case); the paper's subset: 12,394 turns (247.88 per case)"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if strings.Contains(st.summary("locomo"), "paper") {
		t.Error("the paper's LongMemEval figures shown for LoCoMo")
	}
}
