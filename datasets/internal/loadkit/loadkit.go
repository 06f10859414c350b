// Package loadkit holds what the benchmark loaders (longmemeval, locomo,
// beam) share: opening a benchmark file, streaming a top-level JSON array
// one element at a time, naming elements in errors,
// turning JSON answers into text, parsing dates against a list of layouts,
// grouping turns into interactions, and reading category filters.
package loadkit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// countingReader counts the bytes handed to the JSON decoder so progress can
// be reported without buffering the file.
type countingReader struct {
	r io.Reader
	n int64
	// limit, when above zero, is the offset past which reading fails: one
	// element may not grow beyond MaxElement.
	limit int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.limit > 0 && c.n >= c.limit {
		return 0, errElementTooLarge
	}
	if c.limit > 0 && int64(len(p)) > c.limit-c.n {
		p = p[:c.limit-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// MaxElement bounds one element of a streamed benchmark file (one
// LongMemEval instance, one LoCoMo conversation). Decoding holds an element
// whole, at many times its size in memory (a 50 MB single-line episode
// peaked at 1.9 GB); the largest official element (LongMemEval _m) is about
// 6 MB, so anything beyond this bound is a damaged or foreign file.
const MaxElement = 32 << 20

var errElementTooLarge = fmt.Errorf("element larger than %d MB: not a benchmark episode (damaged file?)", MaxElement>>20)

// DecodeArray reads a top-level JSON array from r and calls each once per
// element with a decoder positioned at that element; each must consume
// exactly one value (dec.Decode). Only one element is held at a time, which
// is what keeps LongMemEval_M (2.7 GB) within bounded memory. progress, when
// set, receives the bytes read so far after every element and at the end.
func DecodeArray(ctx context.Context, r io.Reader, total int64, progress func(done, total int64), each func(i int, dec *json.Decoder) error) error {
	cr := &countingReader{r: r}
	dec := json.NewDecoder(bufio.NewReaderSize(ValidUTF8(cr), 64<<10))
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("top level: expected a JSON array: %w", describe(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("top level: expected a JSON array, got %s", tokenKind(tok))
	}
	for i := 0; dec.More(); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The decoder reads ahead by at most its buffer: the bound is on
		// what it has consumed, plus that margin.
		cr.limit = cr.n + MaxElement + 128<<10
		if err := each(i, dec); err == io.EOF {
			return fmt.Errorf("top level: unterminated array: %w", io.ErrUnexpectedEOF)
		} else if err != nil {
			return err
		}
		if progress != nil {
			progress(cr.n, total)
		}
	}
	cr.limit = 0
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("top level: unterminated array: %w", describe(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("top level: unexpected data after the array (offset %d)", dec.InputOffset())
	}
	if progress != nil {
		progress(cr.n, total)
	}
	return nil
}

// DecodeFile opens the benchmark file at path and hands it to decode with its
// size in bytes (for progress; 0 when unknown). Errors read "load <name>:
// <open error>" or "load <name> <file>: <decode error>", as every
// single-file loader reports them.
func DecodeFile(name, path string, decode func(r io.Reader, size int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("load %s: %w", name, err)
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	if err := decode(f, size); err != nil {
		return fmt.Errorf("load %s %s: %w", name, filepath.Base(path), err)
	}
	return nil
}

// Where names array element i in an error: "<unit> i", with its ID in
// parentheses once the ID is known ("instance 3 (q7)").
func Where(unit string, i int, id string) string {
	if id == "" {
		return fmt.Sprintf("%s %d", unit, i)
	}
	return fmt.Sprintf("%s %d (%s)", unit, i, id)
}

func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

func describe(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// FieldError rewrites a decoding error from dec.Decode into one naming the
// field and what was expected; other errors pass through with their offset.
func FieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("expected %s, got JSON %s", TypeName(te.Type.String()), te.Value)
		}
		return fmt.Errorf("%s: expected %s, got JSON %s", te.Field, TypeName(te.Type.String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return describe(err)
}

// TypeName says in words what JSON a Go type t (reflect.Type.String())
// expects: "a string", "an array", "an object", for error messages that a
// user who never saw the Go code can act on.
func TypeName(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "map[") || strings.HasPrefix(t, "struct") || strings.Contains(t, "."):
		return "an object"
	}
	return t
}

// IsNull reports whether raw is absent or JSON null.
func IsNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// AnswerText renders a JSON answer as text: strings as they are, numbers
// without a trailing ".0" (LongMemEval and LoCoMo store some answers as
// integers, e.g. 2022). Anything else is an error describing what was found.
func AnswerText(raw json.RawMessage) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "", fmt.Errorf("expected a string or number, got %s", Snippet(raw))
	}
	switch s[0] {
	case '"':
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("expected a string or number, got %s", Snippet(raw))
		}
		return v, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "", fmt.Errorf("expected a string or number, got %s", Snippet(raw))
		}
		return FormatNumber(f), nil
	}
	return "", fmt.Errorf("expected a string or number, got %s", Snippet(raw))
}

// FormatNumber prints f in the shortest form that round-trips, so 3.0 is "3".
func FormatNumber(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Snippet is raw JSON shortened for an error message.
func Snippet(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return "nothing (field missing)"
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// ParseTime parses s with the first matching layout. Whitespace runs are
// collapsed first because hand-edited files carry double spaces.
func ParseTime(s string, layouts ...string) (time.Time, error) {
	s = strings.Join(strings.Fields(s), " ")
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	example := time.Date(2023, 5, 30, 23, 40, 0, 0, time.UTC).Format(layouts[0])
	return time.Time{}, fmt.Errorf("expected a date like %q, got %q", example, s)
}

// Group splits a turn sequence into interactions by role: a user turn opens
// an interaction and the assistant turns after it join it; assistant turns
// before the first user turn (sessions that open with the assistant) form an
// interaction of their own, and consecutive user turns each open their own.
// It returns [start, end) index ranges.
func Group(roles []string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range roles {
		if r == "user" || start < 0 {
			if start >= 0 {
				out = append(out, [2]int{start, i})
			}
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(roles)})
	}
	return out
}

// Filter is a parsed datasets.Options.Categories.
type Filter struct {
	all  bool
	keep map[string]bool
}

// NewFilter resolves names through canon, which maps a user-given name
// (case-folded) to the canonical category, or "" when unknown. "all" keeps
// everything; an empty list keeps def (nil def: everything).
func NewFilter(names []string, def []string, canon func(string) string) (Filter, error) {
	if len(names) == 0 {
		if def == nil {
			return Filter{all: true}, nil
		}
		names = def
	}
	f := Filter{keep: map[string]bool{}}
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			p := strings.ToLower(strings.TrimSpace(part))
			if p == "" {
				continue
			}
			if p == "all" {
				return Filter{all: true}, nil
			}
			c := canon(p)
			if c == "" {
				return Filter{}, fmt.Errorf("unknown category %q", strings.TrimSpace(part))
			}
			f.keep[c] = true
		}
	}
	return f, nil
}

// Keep reports whether any of cats passes the filter.
func (f Filter) Keep(cats ...string) bool {
	if f.all {
		return true
	}
	for _, c := range cats {
		if f.keep[c] {
			return true
		}
	}
	return false
}

// AppendUnique appends s to list unless it is already there.
func AppendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// At prefixes err with the field path it happened under: "qa[3]" and
// "category: …" give "qa[3].category: …", and "qa[3]" and "expected an
// object, …" give "qa[3]: expected an object, …".
func At(path string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if i := strings.Index(msg, ":"); i > 0 && !strings.ContainsAny(msg[:i], " \"") {
		return fmt.Errorf("%s.%w", path, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}
