package branchmemeval

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/arbor-eval/arbor/pkg/text"
)

// Validation (appendix B.2, Table "Construction and automatic validation
// controls"): evidence validity, leakage prevention and the dimension
// checks, plus the file's own consistency and its composition. Matching uses
// the scorer's normalisation, so "appears" means what scoring would credit.

// Issue is one validation failure, located at a session and a turn.
type Issue struct {
	Session string `json:"session"`
	Turn    string `json:"turn,omitempty"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func (i Issue) String() string {
	loc := i.Session
	if i.Turn != "" {
		loc += " " + i.Turn
	}
	if loc == "" {
		loc = "file"
	}
	return fmt.Sprintf("%s [%s]: %s", loc, i.Rule, i.Message)
}

// The validation rules.
const (
	RuleStructure   = "structure"       // IDs, times, annotations line up
	RuleComposition = "composition"     // counts match the composition asked for
	RuleGoldLeak    = "gold-leak"       // the gold appears in the question
	RuleConfLeak    = "confounder-leak" // the confounder appears in the question
	RuleDistinct    = "distinct"        // gold and confounder are distinguishable
	RuleSupported   = "gold-supported"  // an earlier interaction states the gold
	RuleConfPresent = "confounder-present"
	RuleResume      = "b1-resume"
	RuleUpdate      = "b2-order"
	RuleArtifact    = "b3-artifact"
	RuleLink        = "b4-link"
	RuleAnchor      = "b5-anchor"
)

type turnIndex struct {
	pos    int
	note   *TurnNote
	text   string // normalised user + assistant
	user   string // normalised user
	branch string
}

// Validate checks f against every rule and returns all failures, in file
// order. An empty result means the set is valid.
func Validate(f *File) []Issue {
	var out []Issue
	add := func(s, t, rule, format string, a ...any) {
		out = append(out, Issue{Session: s, Turn: t, Rule: rule, Message: fmt.Sprintf(format, a...)})
	}
	if len(f.Annotations.Sessions) != len(f.Sessions) {
		add("", "", RuleStructure, "%d sessions but %d annotation entries", len(f.Sessions), len(f.Annotations.Sessions))
	}
	seenSess := map[string]bool{}
	seenQ := map[string]string{}
	for si := range f.Sessions {
		s := &f.Sessions[si]
		if seenSess[s.ID] {
			add(s.ID, "", RuleStructure, "duplicate session id")
		}
		seenSess[s.ID] = true
		var notes *SessionNotes
		if si < len(f.Annotations.Sessions) {
			notes = &f.Annotations.Sessions[si]
		}
		if notes == nil || notes.Session != s.ID {
			add(s.ID, "", RuleStructure, "annotations entry %d is not for this session", si)
			continue
		}
		out = append(out, validateSession(s, notes, seenQ)...)
	}
	out = append(out, checkComposition(f)...)
	return out
}

func validateSession(s *Session, notes *SessionNotes, seenQ map[string]string) []Issue {
	var out []Issue
	add := func(t, rule, format string, a ...any) {
		out = append(out, Issue{Session: s.ID, Turn: t, Rule: rule, Message: fmt.Sprintf(format, a...)})
	}
	branches := map[string]*BranchNote{}
	for i := range notes.Branches {
		b := &notes.Branches[i]
		if branches[b.ID] != nil {
			add("", RuleStructure, "duplicate branch id %q", b.ID)
		}
		branches[b.ID] = b
	}
	if n := len(notes.Branches); n < 3 || n > 4 {
		add("", RuleStructure, "%d branches; sessions interleave 3 or 4 (§5)", n)
	}
	if !contains(Families, notes.Family) {
		add("", RuleStructure, "unknown family %q", notes.Family)
	}
	if len(notes.Turns) != len(s.Turns) {
		add("", RuleStructure, "%d turns but %d turn annotations", len(s.Turns), len(notes.Turns))
		return out
	}
	idx := map[string]*turnIndex{}
	turns := make([]*turnIndex, len(s.Turns))
	wantPrefix := s.ID + "-t"
	for i := range s.Turns {
		t := &s.Turns[i]
		n := &notes.Turns[i]
		if idx[t.ID] != nil {
			add(t.ID, RuleStructure, "duplicate turn id")
		}
		if !strings.HasPrefix(t.ID, wantPrefix) {
			add(t.ID, RuleStructure, "turn id does not start with %q", wantPrefix)
		}
		if n.Turn != t.ID {
			add(t.ID, RuleStructure, "turn annotation %d is for %q", i, n.Turn)
		}
		if branches[n.Branch] == nil {
			add(t.ID, RuleStructure, "unknown branch %q", n.Branch)
		}
		if i > 0 && t.Time.Before(s.Turns[i-1].Time) {
			add(t.ID, RuleStructure, "time %s is before the previous turn's %s", t.Time.Format("2006-01-02 15:04"), s.Turns[i-1].Time.Format("2006-01-02 15:04"))
		}
		if (t.Question != nil) != (n.Act == actQuestion) {
			add(t.ID, RuleStructure, "act %q does not match whether the turn holds a question", n.Act)
		}
		ti := &turnIndex{pos: i, note: n, branch: n.Branch,
			text: text.NormalizeAnswer(t.User + "\n" + t.Assistant),
			user: text.NormalizeAnswer(t.User)}
		idx[t.ID] = ti
		turns[i] = ti
	}
	qnotes := map[string]*QuestionNote{}
	for i := range notes.Questions {
		qnotes[notes.Questions[i].Question] = &notes.Questions[i]
	}
	nq := 0
	for i := range s.Turns {
		t := &s.Turns[i]
		q := t.Question
		if q == nil {
			continue
		}
		nq++
		if prev, ok := seenQ[q.ID]; ok {
			add(t.ID, RuleStructure, "question id %q already used in %s", q.ID, prev)
		}
		seenQ[q.ID] = s.ID
		qn := qnotes[q.ID]
		if qn == nil {
			add(t.ID, RuleStructure, "question %s has no annotation", q.ID)
			continue
		}
		if qn.Turn != t.ID {
			add(t.ID, RuleStructure, "annotation of %s places it at %q", q.ID, qn.Turn)
		}
		if qn.Family != notes.Family {
			add(t.ID, RuleStructure, "question family %q differs from the session's %q", qn.Family, notes.Family)
		}
		if !contains(familyDims[notes.Family], qn.Dimension) {
			add(t.ID, RuleStructure, "dimension %q is not one the %s family hosts", qn.Dimension, notes.Family)
		}
		if turns[i].branch != qn.Branch {
			add(t.ID, RuleStructure, "question branch %q differs from the turn's %q", qn.Branch, turns[i].branch)
		}
		out = append(out, checkQuestion(s, t, i, qn, turns, idx, branches)...)
	}
	if nq != len(notes.Questions) {
		add("", RuleStructure, "%d questions in the dialogue but %d question annotations", nq, len(notes.Questions))
	}
	return out
}

var listLine = regexp.MustCompile(`(?m)^(\d+)\) (.+?) — `)

func checkQuestion(s *Session, t *Turn, pos int, qn *QuestionNote, turns []*turnIndex, idx map[string]*turnIndex, branches map[string]*BranchNote) []Issue {
	var out []Issue
	add := func(rule, format string, a ...any) {
		out = append(out, Issue{Session: s.ID, Turn: t.ID, Rule: rule, Message: fmt.Sprintf(format, a...)})
	}
	q := t.Question
	g, c := text.NormalizeAnswer(q.Gold), text.NormalizeAnswer(q.Confounder)
	qtext := turns[pos].user
	if g == "" {
		add(RuleDistinct, "gold %q is empty after normalisation", q.Gold)
		return out
	}
	if c == "" {
		add(RuleConfPresent, "%s has no confounder", q.ID)
	}
	if c != "" && (text.ContainsAnswer(g, c) || text.ContainsAnswer(c, g)) {
		add(RuleDistinct, "gold %q and confounder %q cannot be told apart by the scorer", q.Gold, q.Confounder)
	}
	if text.ContainsAnswer(qtext, g) {
		add(RuleGoldLeak, "gold %q appears in the question %q", q.Gold, t.User)
	}
	if c != "" && text.ContainsAnswer(qtext, c) {
		add(RuleConfLeak, "confounder %q appears in the question %q", q.Confounder, t.User)
	}
	// Evidence validity: an interaction before the question states the gold.
	first := func(v string, pred func(*turnIndex) bool) int {
		for _, ti := range turns[:pos] {
			if (pred == nil || pred(ti)) && text.ContainsAnswer(ti.text, v) {
				return ti.pos
			}
		}
		return -1
	}
	if first(g, nil) < 0 {
		add(RuleSupported, "no interaction before the question states the gold %q", q.Gold)
	}
	for _, e := range qn.Evidence {
		ti := idx[e]
		switch {
		case ti == nil:
			add(RuleSupported, "evidence turn %q does not exist", e)
		case ti.pos >= pos:
			add(RuleSupported, "evidence turn %s is not before the question", e)
		}
	}
	if len(qn.Evidence) == 0 {
		add(RuleSupported, "no evidence turn annotated")
	} else if ev := idx[qn.Evidence[len(qn.Evidence)-1]]; ev != nil && ev.pos < pos && !text.ContainsAnswer(ev.text, g) {
		add(RuleSupported, "evidence turn %s does not state the gold %q", qn.Evidence[len(qn.Evidence)-1], q.Gold)
	}
	// The confounder is a real trap: it is in the history.
	ct := idx[qn.ConfounderTurn]
	if c != "" {
		switch {
		case first(c, nil) < 0:
			add(RuleConfPresent, "confounder %q does not appear before the question", q.Confounder)
		case ct == nil:
			add(RuleConfPresent, "confounder turn %q does not exist", qn.ConfounderTurn)
		case ct.pos >= pos || !text.ContainsAnswer(ct.text, c):
			add(RuleConfPresent, "confounder turn %s does not state %q before the question", qn.ConfounderTurn, q.Confounder)
		case ct.branch != qn.ConfounderBranch:
			add(RuleConfPresent, "confounder turn %s is in branch %s, annotated %s", qn.ConfounderTurn, ct.branch, qn.ConfounderBranch)
		}
	}
	switch qn.Dimension {
	case DimResume:
		// The question is itself the return: it follows another branch's
		// turn, never a resume turn (or any turn) of its own branch.
		prev := turns[max(pos-1, 0)]
		if pos == 0 || prev.branch == qn.Branch {
			add(RuleResume, "a B1 question must be the return to branch %s, right after another branch's turn (turn before: %s, branch %s, %s)", qn.Branch, prev.note.Turn, prev.branch, prev.note.Act)
			break
		}
		// Intervening dialogue: another branch spoke after the evidence.
		if ev := idx[first1(qn.Evidence)]; ev != nil {
			other := false
			for _, ti := range turns[ev.pos:pos] {
				other = other || ti.branch != qn.Branch
			}
			if !other {
				add(RuleResume, "no other branch intervenes between evidence %s and the question", ev.note.Turn)
			}
		}
		if qn.ConfounderBranch == qn.Branch {
			add(RuleResume, "a B1 confounder must come from another branch")
		}
	case DimLatest:
		ev := idx[first1(qn.Evidence)]
		switch {
		case ev == nil || ct == nil:
			add(RuleUpdate, "B2 needs an evidence (new value) and a confounder (old value) turn")
		case ev.branch != qn.Branch || ct.branch != qn.Branch:
			add(RuleUpdate, "old value (%s, branch %s) and new value (%s, branch %s) must both be in the question's branch %s", ct.note.Turn, ct.branch, ev.note.Turn, ev.branch, qn.Branch)
		case ct.pos >= ev.pos:
			add(RuleUpdate, "old value %q (%s) is not set before the new value %q (%s)", q.Confounder, ct.note.Turn, q.Gold, ev.note.Turn)
		default:
			inBranch := func(ti *turnIndex) bool { return ti.branch == qn.Branch }
			if p := first(g, inBranch); p >= 0 && p < ev.pos {
				add(RuleUpdate, "new value %q already appears in %s, before the update %s", q.Gold, turns[p].note.Turn, ev.note.Turn)
			}
			for _, ti := range turns[ev.pos+1 : pos] {
				if ti.branch == qn.Branch && text.ContainsAnswer(ti.text, c) {
					add(RuleUpdate, "old value %q reappears in %s after the update %s", q.Confounder, ti.note.Turn, ev.note.Turn)
					break
				}
			}
		}
	case DimArtifact:
		ev := idx[first1(qn.Evidence)]
		switch {
		case qn.Ordinal < 1:
			add(RuleArtifact, "B3 needs a positive ordinal")
		case ev == nil || ev.note.Act != actList || ev.branch != qn.Branch:
			add(RuleArtifact, "evidence must be a list turn of branch %s", qn.Branch)
		case ct == nil || ct.branch == qn.Branch || ct.note.Act != actList:
			add(RuleArtifact, "confounder must come from a list in another branch")
		default:
			if got := listItem1(s.Turns[ev.pos].Assistant, qn.Ordinal); text.NormalizeAnswer(got) != g {
				add(RuleArtifact, "item %d of the list in %s is %q, not the gold %q", qn.Ordinal, ev.note.Turn, got, q.Gold)
			}
			if got := listItem1(s.Turns[ct.pos].Assistant, qn.Ordinal); text.NormalizeAnswer(got) != c {
				add(RuleArtifact, "item %d of the list in %s is %q, not the confounder %q", qn.Ordinal, ct.note.Turn, got, q.Confounder)
			}
		}
	case DimBridge:
		l := text.NormalizeAnswer(qn.Link)
		if l == "" {
			add(RuleLink, "B4 needs a linking value")
			break
		}
		if text.ContainsAnswer(qtext, l) {
			add(RuleLink, "linking value %q appears in the question", qn.Link)
		}
		bs := map[string]bool{}
		for _, lt := range qn.LinkTurns {
			ti := idx[lt]
			switch {
			case ti == nil || ti.pos >= pos:
				add(RuleLink, "link turn %q is not before the question", lt)
			case !text.ContainsAnswer(ti.text, l):
				add(RuleLink, "link turn %s does not mention the linking value %q", lt, qn.Link)
			default:
				bs[ti.branch] = true
			}
		}
		if len(bs) < 2 {
			add(RuleLink, "linking value %q must appear in two branches (found %d)", qn.Link, len(bs))
		}
	case DimTwin:
		b := branches[qn.Branch]
		a := text.NormalizeAnswer(qn.Anchor)
		switch {
		case b == nil || a == "" || b.Anchor != qn.Anchor:
			add(RuleAnchor, "B5 needs the question branch's anchor (got %q)", qn.Anchor)
		case !text.ContainsAnswer(qtext, a):
			add(RuleAnchor, "anchor %q is not in the question", qn.Anchor)
		case branches[b.Twin] == nil:
			add(RuleAnchor, "branch %s has no twin", b.ID)
		default:
			tw := branches[b.Twin]
			switch {
			case tw.Domain != b.Domain || tw.Anchor == "" || tw.Anchor == b.Anchor:
				add(RuleAnchor, "twin %s must share the schema %q and carry a different anchor", tw.ID, b.Domain)
			case text.ContainsAnswer(qtext, text.NormalizeAnswer(tw.Anchor)):
				add(RuleAnchor, "the twin's anchor %q is in the question", tw.Anchor)
			case qn.ConfounderBranch != tw.ID:
				add(RuleAnchor, "the confounder must come from the twin %s", tw.ID)
			}
			for _, x := range []*BranchNote{b, tw} {
				if ft := firstTurn(turns, x.ID); ft == nil || !text.ContainsAnswer(ft.text, text.NormalizeAnswer(x.Anchor)) {
					add(RuleAnchor, "branch %s does not introduce its anchor %q in its first turn", x.ID, x.Anchor)
				}
			}
		}
	}
	return out
}

func first1(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

func firstTurn(turns []*turnIndex, branch string) *turnIndex {
	for _, t := range turns {
		if t.branch == branch {
			return t
		}
	}
	return nil
}

// listItem1 returns the name of item n of a numbered list ("3) Name — ..."),
// the form the verbalizer writes so that sentence splitters keep the number
// with its item.
func listItem1(text string, n int) string {
	for _, m := range listLine.FindAllStringSubmatch(text, -1) {
		if m[1] == fmt.Sprint(n) {
			return m[2]
		}
	}
	return ""
}

// checkComposition compares the sessions with the composition the file
// says was asked for.
func checkComposition(f *File) []Issue {
	var out []Issue
	add := func(s, format string, a ...any) {
		out = append(out, Issue{Session: s, Rule: RuleComposition, Message: fmt.Sprintf(format, a...)})
	}
	c := f.Composition
	sessions := map[string]int{}
	dims := map[string]map[string]int{}
	interactions := 0
	for i := range f.Sessions {
		s := &f.Sessions[i]
		n := len(s.Turns)
		if n < c.MinTurns || n > c.MaxTurns {
			add(s.ID, "%d turns, outside %d–%d", n, c.MinTurns, c.MaxTurns)
		}
		for _, t := range s.Turns {
			if t.Question == nil {
				interactions++
			}
		}
		if i >= len(f.Annotations.Sessions) {
			continue
		}
		notes := &f.Annotations.Sessions[i]
		sessions[notes.Family]++
		for _, q := range notes.Questions {
			if dims[notes.Family] == nil {
				dims[notes.Family] = map[string]int{}
			}
			dims[notes.Family][q.Dimension]++
		}
	}
	if interactions != c.Interactions {
		add("", "%d non-question interactions, composition asks for %d", interactions, c.Interactions)
	}
	for _, fs := range c.Families {
		if got := sessions[fs.Family]; got != fs.Sessions {
			add("", "family %s: %d sessions, composition asks for %d", fs.Family, got, fs.Sessions)
		}
		for _, d := range fs.Questions {
			if got := dims[fs.Family][d.Dimension]; got != d.Count {
				add("", "family %s: %d %s questions, composition asks for %d", fs.Family, got, d.Dimension, d.Count)
			}
			delete(dims[fs.Family], d.Dimension)
		}
		delete(sessions, fs.Family)
	}
	var extra []string
	for fam, n := range sessions {
		extra = append(extra, fmt.Sprintf("family %s: %d sessions not in the composition", fam, n))
	}
	for fam, m := range dims {
		for d, n := range m {
			if n > 0 {
				extra = append(extra, fmt.Sprintf("family %s: %d %s questions not in the composition", fam, n, d))
			}
		}
	}
	sort.Strings(extra)
	for _, e := range extra {
		add("", "%s", e)
	}
	return out
}
