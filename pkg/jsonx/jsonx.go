// Package jsonx parses the JSON that language models actually return: wrapped
// in markdown fences or prose, with trailing commas, Python literals, or cut
// off mid-array by a token limit. It repairs what can be repaired without
// guessing content, and fails with an error otherwise.
package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ErrNoJSON is returned when the text holds no JSON object or array.
var ErrNoJSON = errors.New("no JSON object or array in reply")

// Unmarshal extracts the first JSON object or array from text (after any
// reasoning block, StripReasoning) that decodes
// into v, repairing it if needed. Prose before the JSON may hold brackets
// ("as said in turn [3]: {...}"), so a candidate that is not JSON, or is
// complete JSON of the wrong shape, is skipped for the next one after it; a
// repaired (truncated) candidate runs to the end of the text and is final.
// The first candidate's error is returned when none decodes.
//
// A reply that holds several complete values (a stray example in the
// prose, then the answer) gives its last complete value of v's shape (an
// object for a struct or map, with at least one of a struct's fields; an
// array for a slice); repair is tried only when no complete value fits.
func Unmarshal(text string, v any) error {
	s := stripFences(StripReasoning(text))
	if raw, ok := lastComplete(s, v); ok {
		return json.Unmarshal([]byte(raw), v)
	}
	var first error
	for off := 0; off < len(s); {
		i := strings.IndexAny(s[off:], "{[")
		if i < 0 {
			break
		}
		off += i
		rest := s[off:]
		raw, err := Extract(rest)
		next := off + 1
		if err == nil {
			if err = json.Unmarshal([]byte(raw), v); err == nil {
				return nil
			}
			err = fmt.Errorf("decode repaired JSON: %w", err)
			if !strings.HasPrefix(rest, raw) {
				next = len(s) // repaired: it spans the rest of the text
			} else {
				next = off + len(raw) // not inside a valid value of the wrong shape
			}
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
				rv.Elem().SetZero() // drop what the failed candidate filled in
			}
		}
		if first == nil {
			first = err
		}
		off = next
	}
	if first == nil {
		return ErrNoJSON
	}
	return first
}

// lastComplete is the last complete JSON value in s (not inside another
// one) that has v's shape and decodes into it.
func lastComplete(s string, v any) (string, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return "", false
	}
	t := rv.Type().Elem()
	var last string
	for off := 0; off < len(s); {
		i := strings.IndexAny(s[off:], "{[")
		if i < 0 {
			break
		}
		off += i
		dec := json.NewDecoder(strings.NewReader(s[off:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			off++
			continue
		}
		if fitsShape(raw, t) {
			probe := reflect.New(t)
			if json.Unmarshal(raw, probe.Interface()) == nil {
				last = string(raw)
			}
		}
		off += int(dec.InputOffset())
	}
	return last, last != ""
}

// fitsShape reports whether raw has the shape of type t: an array for a
// slice or array, an object for a map, an object with at least one of the
// struct's JSON fields for a struct; anything for an interface.
func fitsShape(raw json.RawMessage, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	isObj := len(raw) > 0 && raw[0] == '{'
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return !isObj
	case reflect.Map:
		return isObj
	case reflect.Interface:
		return true
	case reflect.Struct:
		if !isObj {
			return false
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal(raw, &keys) != nil {
			return false
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			for k := range keys {
				if strings.EqualFold(k, name) {
					return true
				}
			}
		}
		return false
	}
	return false
}

// Extract returns the first JSON object or array in text as valid JSON:
// fences and surrounding prose are dropped, trailing commas removed, Python
// literals (True/False/None) mapped, and a truncated value closed after its
// last complete element.
func Extract(text string) (string, error) {
	s := stripFences(StripReasoning(text))
	start := strings.IndexAny(s, "{[")
	if start < 0 {
		return "", ErrNoJSON
	}
	s = s[start:]
	// Fast path: a valid value possibly followed by prose.
	dec := json.NewDecoder(strings.NewReader(s))
	var probe json.RawMessage
	if err := dec.Decode(&probe); err == nil {
		return string(probe), nil
	}
	fixed, err := repair(s)
	if err != nil {
		return "", err
	}
	if !json.Valid([]byte(fixed)) {
		return "", fmt.Errorf("reply is not repairable JSON: %.80q", s)
	}
	return fixed, nil
}

func stripFences(s string) string {
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			rest = rest[:j]
		}
		if strings.ContainsAny(rest, "{[") {
			return rest
		}
	}
	return s
}

// repair rewrites s (starting at '{' or '[') token by token. It tracks the
// container stack and remembers the last point at which a complete value
// ended, so a truncated tail can be cut there and the open containers closed.
func repair(s string) (string, error) {
	var out strings.Builder
	type frame struct {
		obj       bool
		expectKey bool // in an object, the next string is a key
	}
	var stack []frame
	cut := -1 // length of out after the last complete value
	var cutStack []frame
	markValue := func() {
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].expectKey = false
		}
		cut = out.Len()
		cutStack = append(cutStack[:0], stack...)
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '{' || c == '[':
			stack = append(stack, frame{obj: c == '{', expectKey: c == '{'})
			out.WriteByte(c)
			i++
		case c == '}' || c == ']':
			if len(stack) == 0 {
				i = len(s)
				continue
			}
			trimTrailingComma(&out)
			stack = stack[:len(stack)-1]
			out.WriteByte(c)
			i++
			markValue()
			if len(stack) == 0 {
				return out.String(), nil
			}
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) { // truncated inside a string
				i = len(s)
				continue
			}
			str := s[i : j+1]
			out.WriteString(str)
			i = j + 1
			n := len(stack)
			if n > 0 && stack[n-1].obj && stack[n-1].expectKey {
				continue // a key; the value follows
			}
			markValue()
		case c == ',':
			out.WriteByte(c)
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].expectKey = true
			}
			i++
		case c == ':':
			// The key is done: the next string is its value.
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].expectKey = false
			}
			out.WriteByte(c)
			i++
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			out.WriteByte(c)
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(",}] \n\t\r:", rune(s[j])) {
				j++
			}
			lit := s[i:j]
			switch lit {
			case "True":
				lit = "true"
			case "False":
				lit = "false"
			case "None":
				lit = "null"
			}
			if j >= len(s) { // a literal cut by the end may be incomplete
				i = j
				continue
			}
			out.WriteString(lit)
			i = j
			markValue()
		}
	}
	if cut < 0 {
		return "", fmt.Errorf("reply is not repairable JSON: %.80q", s)
	}
	res := strings.TrimRight(out.String()[:cut], " \n\t\r")
	var b strings.Builder
	b.WriteString(res)
	for k := len(cutStack) - 1; k >= 0; k-- {
		if cutStack[k].obj {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
	return b.String(), nil
}

// asciiLower lower-cases ASCII letters only, byte for byte.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func trimTrailingComma(b *strings.Builder) {
	s := strings.TrimRight(b.String(), " \n\t\r")
	if strings.HasSuffix(s, ",") {
		s = s[:len(s)-1]
		b.Reset()
		b.WriteString(s)
	}
}

// StripReasoning drops a reasoning model's thinking from a reply: the text
// up to the last "</think>" (vLLM's reasoning parser may have removed the
// opening tag already), or, when a "<think>" is never closed (the reply was
// cut off while thinking), everything from it on. Thinking often quotes
// braces and labels ("maybe {"label": ...}? No, WRONG...") that are not the
// answer.
func StripReasoning(s string) string {
	// ASCII-only lower-casing keeps byte offsets: strings.ToLower turns an
	// invalid byte into a 3-byte U+FFFD and the offsets would point past s.
	lower := asciiLower(s)
	if i := strings.LastIndex(lower, "</think>"); i >= 0 {
		return s[i+len("</think>"):]
	}
	if i := strings.Index(lower, "<think>"); i >= 0 {
		return s[:i]
	}
	return s
}
