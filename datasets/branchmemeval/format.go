// Package branchmemeval builds, checks and loads BranchMemEval (paper §5 and
// appendix B), the diagnostic benchmark of interleaved, resumable and twin
// conversational branches. The benchmark is not public: the planner here
// follows the paper's description, the template verbalizer realizes the
// planned turns, and the validator enforces appendix B.2's controls. The
// default set (seed 42) ships embedded as branchmemeval.json.
//
// The file format is documented in README.md next to this file.
package branchmemeval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-eval/arbor/datasets/internal/loadkit"
)

// FormatVersion names the file format; Parse rejects any other.
const FormatVersion = "branchmemeval/v1"

// File is one BranchMemEval set: what a memory system may see (Sessions,
// with questions inline) and the construction-time labels it must never
// see (Annotations).
type File struct {
	Format string `json:"format"`
	// Seed is the planner seed the set was generated with.
	Seed int64 `json:"seed"`
	// Verbalizer says how non-question turns were realized ("template" or
	// "chat:<model>").
	Verbalizer string `json:"verbalizer"`
	// Composition is what was asked of the planner; validation checks the
	// sessions against it.
	Composition Composition `json:"composition"`
	Sessions    []Session   `json:"sessions"`
	Annotations Annotations `json:"annotations"`
}

// Session is one replayable conversation.
type Session struct {
	ID    string `json:"id"`
	Turns []Turn `json:"turns"`
}

// Turn is one user–assistant interaction. When Question is set the user
// text is the question and the assistant text its canonical response, which
// is committed only after the evaluated system has answered.
type Turn struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	User      string    `json:"user"`
	Assistant string    `json:"assistant"`
	Question  *Question `json:"question,omitempty"`
}

// Question holds what scoring needs; everything else about a question is in
// the annotations.
type Question struct {
	ID         string `json:"id"`
	Gold       string `json:"gold"`
	Confounder string `json:"confounder"`
}

// Annotations are the latent labels, one entry per session in the order of
// Sessions.
type Annotations struct {
	Sessions []SessionNotes `json:"sessions"`
}

// SessionNotes are one session's latent labels.
type SessionNotes struct {
	Session  string       `json:"session"`
	Family   string       `json:"family"`
	Branches []BranchNote `json:"branches"`
	// Turns has one entry per turn of the session, in order.
	Turns     []TurnNote     `json:"turns"`
	Questions []QuestionNote `json:"questions"`
}

// BranchNote describes one latent topical branch.
type BranchNote struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	Title  string `json:"title"`
	// Anchor is the explicit instance anchor (a person's name) that tells
	// twin branches apart; empty for the user's own agendas.
	Anchor string `json:"anchor,omitempty"`
	// Twin is the ID of the same-schema branch (B5), if any.
	Twin string `json:"twin,omitempty"`
}

// TurnNote labels one turn.
type TurnNote struct {
	Turn   string `json:"turn"`
	Branch string `json:"branch"`
	// Act is what the planner asked of the turn: intro, set, update, list,
	// link, filler, smalltalk, resume or question.
	Act  string `json:"act"`
	Slot string `json:"slot,omitempty"`
	// Values are the planned values the turn introduces.
	Values []string `json:"values,omitempty"`
}

// QuestionNote labels one question.
type QuestionNote struct {
	Question  string `json:"question"`
	Turn      string `json:"turn"`
	Dimension string `json:"dimension"`
	Family    string `json:"family"`
	Branch    string `json:"branch"`
	Slot      string `json:"slot,omitempty"`
	// Evidence are the turns that support the gold answer.
	Evidence []string `json:"evidence"`
	// ConfounderTurn introduces the confounder, in ConfounderBranch.
	ConfounderTurn   string `json:"confounder_turn"`
	ConfounderBranch string `json:"confounder_branch"`
	// Link is B4's hidden linking value and LinkTurns the two turns, in two
	// branches, that carry it.
	Link      string   `json:"link,omitempty"`
	LinkTurns []string `json:"link_turns,omitempty"`
	// Anchor is B5's instance anchor named in the question.
	Anchor string `json:"anchor,omitempty"`
	// Ordinal is B3's 1-based list position.
	Ordinal int `json:"ordinal,omitempty"`
}

// Notes returns the annotations of session id, or nil.
func (f *File) Notes(id string) *SessionNotes {
	for i := range f.Annotations.Sessions {
		if f.Annotations.Sessions[i].Session == id {
			return &f.Annotations.Sessions[i]
		}
	}
	return nil
}

// Marshal renders f as indented JSON with a trailing newline. Struct fields
// have a fixed order and no maps are involved, so equal files give equal
// bytes.
func (f *File) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("encode branchmemeval: %w", err)
	}
	return b.Bytes(), nil
}

// Parse decodes a BranchMemEval file strictly: unknown fields, trailing
// data and a wrong format version are errors that name the file and the
// location (line and column for syntax errors, a path such as
// "sessions[2] (s03).turns[16] (s03-t017)" otherwise). name labels errors.
// Parse checks shape only; Validate checks the benchmark's rules.
func Parse(data []byte, name string) (*File, error) {
	var top struct {
		Format      json.RawMessage   `json:"format"`
		Seed        json.RawMessage   `json:"seed"`
		Verbalizer  json.RawMessage   `json:"verbalizer"`
		Composition json.RawMessage   `json:"composition"`
		Sessions    []json.RawMessage `json:"sessions"`
		Annotations json.RawMessage   `json:"annotations"`
	}
	if i := loadkit.FirstInvalidUTF8(data); i >= 0 {
		// encoding/json would turn the bad bytes into U+FFFD silently.
		line, col := lineCol(data, int64(i))
		return nil, fmt.Errorf("%s: line %d col %d: invalid UTF-8 (byte offset %d)", name, line, col, i)
	}
	if err := strictDecode(data, &top); err != nil {
		return nil, locate(name, "", data, err)
	}
	f := &File{}
	fields := []struct {
		key string
		raw json.RawMessage
		dst any
	}{
		{"format", top.Format, &f.Format},
		{"seed", top.Seed, &f.Seed},
		{"verbalizer", top.Verbalizer, &f.Verbalizer},
		{"composition", top.Composition, &f.Composition},
		{"annotations", top.Annotations, &f.Annotations},
	}
	for _, fl := range fields {
		if len(fl.raw) == 0 {
			return nil, fmt.Errorf("%s: missing field %q", name, fl.key)
		}
		if err := strictDecode(fl.raw, fl.dst); err != nil {
			return nil, locate(name, fl.key, fl.raw, err)
		}
	}
	if f.Format != FormatVersion {
		return nil, fmt.Errorf("%s: format: expected %q, got %q", name, FormatVersion, f.Format)
	}
	if top.Sessions == nil {
		return nil, fmt.Errorf("%s: missing field \"sessions\"", name)
	}
	f.Sessions = make([]Session, len(top.Sessions))
	// Sessions decode apart, on every core: the shipped set is 4 MB of
	// JSON read before any episode can start. The error is the first
	// session's in file order, as when they were decoded one by one.
	errs := make([]error, len(top.Sessions))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(top.Sessions)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(top.Sessions); i = int(next.Add(1) - 1) {
				errs[i] = parseSession(top.Sessions[i], i, name, &f.Sessions[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return f, nil
}

// parseSession decodes session i of file name from raw into dst: in one
// pass when the session is well formed (parseSessionFast), else turn by
// turn, which names the turn at fault.
func parseSession(raw json.RawMessage, i int, name string, dst *Session) error {
	if parseSessionFast(raw, dst) {
		return nil
	}
	*dst = Session{}
	return parseSessionByTurn(raw, i, name, dst)
}

// freshTurns decodes a session's turns into a new slice, so that a
// repeated "turns" key gives the last one's turns decoded from zero, as
// parseSessionByTurn's do.
type freshTurns []Turn

// UnmarshalJSON decodes data strictly (unknown fields are errors).
func (ts *freshTurns) UnmarshalJSON(data []byte) error {
	var fresh []Turn
	if err := strictDecode(data, &fresh); err != nil {
		return err
	}
	*ts = fresh
	return nil
}

// parseSessionFast decodes a well-formed session in one pass, without a
// raw copy and a decoder per turn (parsing the shipped set's sessions was
// 4% of the main job's CPU), and reports whether it could: on any error
// parseSessionByTurn decodes the session again and says where it failed.
// TestParseSessionFastSame compares the two.
func parseSessionFast(raw json.RawMessage, dst *Session) bool {
	var s struct {
		ID    string     `json:"id"`
		Turns freshTurns `json:"turns"`
	}
	if strictDecode(raw, &s) != nil || s.ID == "" {
		return false
	}
	for j := range s.Turns {
		if checkTurnShape(&s.Turns[j]) != nil {
			return false
		}
	}
	dst.ID = s.ID
	dst.Turns = s.Turns
	if dst.Turns == nil {
		dst.Turns = []Turn{} // as parseSessionByTurn makes it
	}
	return true
}

// parseSessionByTurn decodes session i of file name from raw into dst, a
// turn at a time, naming the turn at fault in its error.
func parseSessionByTurn(raw json.RawMessage, i int, name string, dst *Session) error {
	var s struct {
		ID    string            `json:"id"`
		Turns []json.RawMessage `json:"turns"`
	}
	where := fmt.Sprintf("sessions[%d]", i)
	if err := strictDecode(raw, &s); err != nil {
		return locate(name, where, raw, err)
	}
	if s.ID == "" {
		return fmt.Errorf("%s: %s: missing session id", name, where)
	}
	where += " (" + s.ID + ")"
	dst.ID = s.ID
	dst.Turns = make([]Turn, len(s.Turns))
	for j, rt := range s.Turns {
		tw := fmt.Sprintf("%s.turns[%d]", where, j)
		t := &dst.Turns[j]
		if err := strictDecode(rt, t); err != nil {
			var id struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(rt, &id) == nil && id.ID != "" {
				tw += " (" + id.ID + ")"
			}
			return locate(name, tw, rt, err)
		}
		if err := checkTurnShape(t); err != nil {
			return fmt.Errorf("%s: %s (%s): %w", name, tw, t.ID, err)
		}
	}
	return nil
}

func checkTurnShape(t *Turn) error {
	switch {
	case t.ID == "":
		return errors.New("missing turn id")
	case t.Time.IsZero():
		return errors.New("missing time")
	case strings.TrimSpace(t.User) == "":
		return errors.New("empty user text")
	case strings.TrimSpace(t.Assistant) == "":
		return errors.New("empty assistant text")
	}
	if q := t.Question; q != nil {
		switch {
		case q.ID == "":
			return errors.New("question: missing id")
		case strings.TrimSpace(q.Gold) == "":
			return errors.New("question: empty gold")
		}
	}
	return nil
}

// strictDecode decodes exactly one JSON value with unknown fields rejected.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty input")
		}
		return err
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		// Point at the first byte after the value that is not white space.
		for end < int64(len(data)) && strings.ContainsRune(" \t\r\n", rune(data[end])) {
			end++
		}
		return trailingError{end}
	}
	return nil
}

// trailingError reports data after the one JSON value a file may hold.
type trailingError struct{ off int64 }

func (e trailingError) Error() string { return "unexpected data after the value" }

// locate turns a decode error into one that names the file, the path of
// the value and, for errors in the whole file, the line and column.
func locate(name, where string, data []byte, err error) error {
	prefix := name + ": "
	if where != "" {
		prefix += where + ": "
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset)
		return fmt.Errorf("%sline %d col %d: invalid JSON: %v", prefix, line, col, se)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "value"
		}
		if where != "" {
			// Nested values are decoded from copies, so offsets are not
			// file offsets; the path already says where.
			return fmt.Errorf("%sfield %q: expected %s, got JSON %s", prefix, field, loadkit.TypeName(te.Type.String()), te.Value)
		}
		line, col := lineCol(data, te.Offset)
		return fmt.Errorf("%sline %d col %d: field %q: expected %s, got JSON %s", prefix, line, col, field, loadkit.TypeName(te.Type.String()), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("%sunknown field %s", prefix, strings.TrimPrefix(err.Error(), "json: unknown field "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := lineCol(data, int64(len(data)))
		return fmt.Errorf("%sline %d col %d: truncated JSON", prefix, line, col)
	}
	var tr trailingError
	if errors.As(err, &tr) {
		line, col := lineCol(data, tr.off)
		return fmt.Errorf("%sline %d col %d: %v", prefix, line, col, tr)
	}
	return fmt.Errorf("%s%w", prefix, err)
}

// lineCol converts a byte offset into 1-based line and column numbers.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
