package branchmemeval

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

var shippedParsed *File

// shippedCopy returns a deep copy of the shipped set for a test to mutate
// (parsed once: the file is a few megabytes).
func shippedCopy(t *testing.T) *File {
	t.Helper()
	if shippedParsed == nil {
		f, err := Parse(Shipped(), "embedded")
		if err != nil {
			t.Fatal(err)
		}
		shippedParsed = f
	}
	f := *shippedParsed
	f.Sessions = append([]Session(nil), f.Sessions...)
	for i := range f.Sessions {
		s := &f.Sessions[i]
		s.Turns = append([]Turn(nil), s.Turns...)
		for j := range s.Turns {
			if q := s.Turns[j].Question; q != nil {
				qc := *q
				s.Turns[j].Question = &qc
			}
		}
	}
	f.Annotations.Sessions = append([]SessionNotes(nil), f.Annotations.Sessions...)
	for i := range f.Annotations.Sessions {
		n := &f.Annotations.Sessions[i]
		n.Branches = append([]BranchNote(nil), n.Branches...)
		n.Turns = append([]TurnNote(nil), n.Turns...)
		n.Questions = append([]QuestionNote(nil), n.Questions...)
		for j := range n.Questions {
			q := &n.Questions[j]
			q.Evidence = append([]string(nil), q.Evidence...)
			q.LinkTurns = append([]string(nil), q.LinkTurns...)
		}
	}
	return &f
}

// firstQuestion finds the first question of dimension dim.
func firstQuestion(t *testing.T, f *File, dim string) (*Session, int, *QuestionNote) {
	t.Helper()
	return firstQuestionWhere(t, f, dim, func(*Session, int, *QuestionNote) bool { return true })
}

// firstQuestionWhere is the first question of dim for which keep holds.
func firstQuestionWhere(t *testing.T, f *File, dim string, keep func(*Session, int, *QuestionNote) bool) (*Session, int, *QuestionNote) {
	t.Helper()
	for si := range f.Sessions {
		s := &f.Sessions[si]
		n := f.Notes(s.ID)
		for qi := range n.Questions {
			qn := &n.Questions[qi]
			if qn.Dimension != dim {
				continue
			}
			for ti := range s.Turns {
				if s.Turns[ti].ID == qn.Turn && keep(s, ti, qn) {
					return s, ti, qn
				}
			}
		}
	}
	t.Fatalf("no %s question", dim)
	return nil, 0, nil
}

func turnIdx(s *Session, id string) int {
	for i := range s.Turns {
		if s.Turns[i].ID == id {
			return i
		}
	}
	return -1
}

func TestValidateCatchesBrokenFiles(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, f *File) []Issue // returns the exact issues expected
	}{
		{"leaked gold", func(t *testing.T, f *File) []Issue {
			s, ti, _ := firstQuestion(t, f, DimResume)
			tu := &s.Turns[ti]
			tu.User += " Was it " + tu.Question.Gold + "?"
			return []Issue{{s.ID, tu.ID, RuleGoldLeak, fmt.Sprintf("gold %q appears in the question %q", tu.Question.Gold, tu.User)}}
		}},
		{"leaked confounder", func(t *testing.T, f *File) []Issue {
			s, ti, _ := firstQuestion(t, f, DimTwin)
			tu := &s.Turns[ti]
			tu.User += " Not " + tu.Question.Confounder + ", right?"
			return []Issue{{s.ID, tu.ID, RuleConfLeak, fmt.Sprintf("confounder %q appears in the question %q", tu.Question.Confounder, tu.User)}}
		}},
		{"unsupported answer", func(t *testing.T, f *File) []Issue {
			s, ti, qn := firstQuestion(t, f, DimResume)
			tu := &s.Turns[ti]
			tu.Question.Gold = "Zanzibar Quay"
			return []Issue{
				{s.ID, tu.ID, RuleSupported, `no interaction before the question states the gold "Zanzibar Quay"`},
				{s.ID, tu.ID, RuleSupported, fmt.Sprintf(`evidence turn %s does not state the gold "Zanzibar Quay"`, qn.Evidence[0])},
			}
		}},
		{"missing confounder", func(t *testing.T, f *File) []Issue {
			s, ti, qn := firstQuestion(t, f, DimArtifact)
			tu := &s.Turns[ti]
			tu.Question.Confounder = "Quokka Lounge"
			item := listItem1(s.Turns[turnIdx(s, qn.ConfounderTurn)].Assistant, qn.Ordinal)
			return []Issue{
				{s.ID, tu.ID, RuleConfPresent, `confounder "Quokka Lounge" does not appear before the question`},
				{s.ID, tu.ID, RuleArtifact, fmt.Sprintf(`item %d of the list in %s is %q, not the confounder "Quokka Lounge"`, qn.Ordinal, qn.ConfounderTurn, item)},
			}
		}},
		{"empty confounder", func(t *testing.T, f *File) []Issue {
			s, ti, _ := firstQuestion(t, f, DimBridge)
			tu := &s.Turns[ti]
			tu.Question.Confounder = ""
			return []Issue{{s.ID, tu.ID, RuleConfPresent, fmt.Sprintf("%s has no confounder", tu.Question.ID)}}
		}},
		{"broken B2 order", func(t *testing.T, f *File) []Issue {
			// The new value is stated first and the old one after it: swap
			// the two turns' texts and let the annotations follow them.
			s, ti, qn := firstQuestion(t, f, DimLatest)
			oldI, newI := turnIdx(s, qn.ConfounderTurn), turnIdx(s, qn.Evidence[0])
			a, b := &s.Turns[oldI], &s.Turns[newI]
			a.User, b.User = b.User, a.User
			a.Assistant, b.Assistant = b.Assistant, a.Assistant
			qn.ConfounderTurn, qn.Evidence[0] = b.ID, a.ID
			q := s.Turns[ti].Question
			return []Issue{{s.ID, s.Turns[ti].ID, RuleUpdate, fmt.Sprintf("old value %q (%s) is not set before the new value %q (%s)", q.Confounder, b.ID, q.Gold, a.ID)}}
		}},
		{"B1 preceded by its own branch's resume turn", func(t *testing.T, f *File) []Issue {
			// The question is no longer the return: a resume turn of its
			// branch comes right before it.
			s, ti, qn := firstQuestionWhere(t, f, DimResume, func(s *Session, ti int, qn *QuestionNote) bool {
				return s.Turns[ti-1].ID != qn.ConfounderTurn // relabelling the confounder turn would break its own rule
			})
			prev := &f.Notes(s.ID).Turns[ti-1]
			prev.Branch, prev.Act = qn.Branch, actResume
			return []Issue{{s.ID, s.Turns[ti].ID, RuleResume, fmt.Sprintf("a B1 question must be the return to branch %s, right after another branch's turn (turn before: %s, branch %s, resume)", qn.Branch, prev.Turn, qn.Branch)}}
		}},
		{"B4 link in one branch", func(t *testing.T, f *File) []Issue {
			s, ti, qn := firstQuestion(t, f, DimBridge)
			qn.LinkTurns[0] = qn.LinkTurns[1]
			return []Issue{{s.ID, s.Turns[ti].ID, RuleLink, fmt.Sprintf("linking value %q must appear in two branches (found 1)", qn.Link)}}
		}},
		{"B5 anchor missing from the question", func(t *testing.T, f *File) []Issue {
			s, ti, qn := firstQuestion(t, f, DimTwin)
			tu := &s.Turns[ti]
			tu.User = "What was it again?"
			return []Issue{{s.ID, tu.ID, RuleAnchor, fmt.Sprintf("anchor %q is not in the question", qn.Anchor)}}
		}},
		{"time goes backwards", func(t *testing.T, f *File) []Issue {
			s := &f.Sessions[2]
			s.Turns[5].Time = s.Turns[4].Time.Add(-3600e9)
			return []Issue{{s.ID, s.Turns[5].ID, RuleStructure, fmt.Sprintf("time %s is before the previous turn's %s",
				s.Turns[5].Time.Format("2006-01-02 15:04"), s.Turns[4].Time.Format("2006-01-02 15:04"))}}
		}},
		{"composition", func(t *testing.T, f *File) []Issue {
			f.Composition.Interactions = 1441
			return []Issue{{"", "", RuleComposition, "1442 non-question interactions, composition asks for 1441"}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := shippedCopy(t)
			want := c.mutate(t, f)
			got := Validate(f)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %d issues:\n%s\nwant:\n%s", len(got), issueLines(got), issueLines(want))
			}
		})
	}
}

func issueLines(is []Issue) string {
	var b strings.Builder
	for _, i := range is {
		b.WriteString("  " + i.String() + "\n")
	}
	return b.String()
}

func TestParseErrors(t *testing.T) {
	const head = `{"format": "branchmemeval/v1", "seed": 1, "verbalizer": "template",
 "composition": {"families": [], "interactions": 0, "min_turns": 42, "max_turns": 52},
 "annotations": {"sessions": []},
 "sessions": [`
	turn := `{"id": "s01-t001", "time": "2025-01-06T10:00:00Z", "user": "hi", "assistant": "hello"%s}`
	cases := []struct{ name, data, want string }{
		{"broken JSON", head + "\n  {\"id\": \"s01\", \"turns\": [}]}",
			`bad.json: line 5 col 28: invalid JSON: invalid character '}' looking for beginning of value`},
		{"truncated", head + `{"id": "s01"`,
			`bad.json: line 4 col 27: truncated JSON`},
		{"unknown turn field", head + `{"id": "s01", "turns": [` + fmt.Sprintf(turn, `, "mood": "happy"`) + `]}]}`,
			`bad.json: sessions[0] (s01).turns[0] (s01-t001): unknown field "mood"`},
		{"unknown top field", `{"format": "branchmemeval/v1", "extra": 1}`,
			`bad.json: unknown field "extra"`},
		{"unknown question field", head + `{"id": "s01", "turns": [` + fmt.Sprintf(turn, `, "question": {"id": "q", "gold": "x", "confounder": "y", "hint": "x"}`) + `]}]}`,
			`bad.json: sessions[0] (s01).turns[0] (s01-t001): unknown field "hint"`},
		{"wrong type", head + `{"id": "s01", "turns": [{"id": "s01-t001", "time": "2025-01-06T10:00:00Z", "user": 3, "assistant": "a"}]}]}`,
			`bad.json: sessions[0] (s01).turns[0] (s01-t001): field "user": expected a string, got JSON number`},
		{"bad time", head + `{"id": "s01", "turns": [{"id": "s01-t001", "time": "yesterday", "user": "u", "assistant": "a"}]}]}`,
			`bad.json: sessions[0] (s01).turns[0] (s01-t001): parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{"empty user", head + `{"id": "s01", "turns": [{"id": "s01-t001", "time": "2025-01-06T10:00:00Z", "user": " ", "assistant": "a"}]}]}`,
			`bad.json: sessions[0] (s01).turns[0] (s01-t001): empty user text`},
		{"wrong version", `{"format": "branchmemeval/v0", "seed": 1, "verbalizer": "t", "composition": {"families": [], "interactions": 0, "min_turns": 1, "max_turns": 1}, "annotations": {"sessions": []}, "sessions": []}`,
			`bad.json: format: expected "branchmemeval/v1", got "branchmemeval/v0"`},
		{"missing sessions", `{"format": "branchmemeval/v1", "seed": 1, "verbalizer": "t", "composition": {"families": [], "interactions": 0, "min_turns": 1, "max_turns": 1}, "annotations": {"sessions": []}}`,
			`bad.json: missing field "sessions"`},
		{"trailing data", head + `]} {}`,
			`bad.json: line 4 col 18: unexpected data after the value`},
		{"empty", ``, `bad.json: empty input`},
		// Sessions decode side by side; the error is still the first in
		// file order.
		{"first bad session", head + strings.Repeat(`{"id": "s00", "turns": []}, `, 9) +
			`{"id": "s01", "turns": [{"id": "s01-t001", "time": "2025-01-06T10:00:00Z", "user": " ", "assistant": "a"}]}, ` +
			strings.Repeat(`{"id": "s00", "turns": []}, `, 5) + `{"id": "", "turns": []}, {"id": "s03", "turns": [` + fmt.Sprintf(turn, `, "mood": "happy"`) + `]}]}`,
			`bad.json: sessions[9] (s01).turns[0] (s01-t001): empty user text`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.data), "bad.json")
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Error() != c.want {
				t.Fatalf("got  %s\nwant %s", err, c.want)
			}
		})
	}
}
