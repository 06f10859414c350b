package loadkit

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestAnswerText(t *testing.T) {
	cases := []struct{ raw, want, err string }{
		{`"Business Administration"`, "Business Administration", ""},
		{`2022`, "2022", ""},
		{`3.0`, "3", ""},
		{`2.5`, "2.5", ""},
		{`-1e2`, "-100", ""},
		{`"7"`, "7", ""},
		{`null`, "", "got null"},
		{``, "", "field missing"},
		{`true`, "", "got true"},
		{`{"a":1}`, "", `got {"a":1}`},
		{`1e999`, "", "got 1e999"},
	}
	for _, c := range cases {
		got, err := AnswerText(json.RawMessage(c.raw))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.raw, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %q %v, want %q", c.raw, got, err, c.want)
		}
	}
}

func TestGroup(t *testing.T) {
	cases := []struct {
		roles string
		want  [][2]int
	}{
		{"", nil},
		{"u a", [][2]int{{0, 2}}},
		{"u a u a", [][2]int{{0, 2}, {2, 4}}},
		{"a u a", [][2]int{{0, 1}, {1, 3}}},
		{"a a u", [][2]int{{0, 2}, {2, 3}}},
		{"u u a", [][2]int{{0, 1}, {1, 3}}},
		{"u a a u", [][2]int{{0, 3}, {3, 4}}},
		{"u", [][2]int{{0, 1}}},
	}
	for _, c := range cases {
		var roles []string
		for _, r := range strings.Fields(c.roles) {
			roles = append(roles, map[string]string{"u": "user", "a": "assistant"}[r])
		}
		if got := Group(roles); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.roles, got, c.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	got, err := ParseTime("2023/05/30  (Tue) 23:40", "2006/01/02 (Mon) 15:04")
	if err != nil || got.Format("2006-01-02 15:04") != "2023-05-30 23:40" {
		t.Errorf("got %v %v", got, err)
	}
	_, err = ParseTime("yesterday", "3:04 pm on 2 January, 2006")
	if err == nil || !strings.Contains(err.Error(), `"11:40 pm on 30 May, 2023"`) || !strings.Contains(err.Error(), `"yesterday"`) {
		t.Errorf("err %v", err)
	}
}

func TestFilter(t *testing.T) {
	canon := func(s string) string {
		if s == "a" || s == "b" {
			return s
		}
		return ""
	}
	cases := []struct {
		names, def []string
		keepA      bool
		keepB      bool
		err        bool
	}{
		{nil, nil, true, true, false},
		{nil, []string{"a"}, true, false, false},
		{[]string{"b"}, []string{"a"}, false, true, false},
		{[]string{" A , b "}, nil, true, true, false},
		{[]string{"b", "ALL"}, nil, true, true, false},
		{[]string{"c"}, nil, false, false, true},
	}
	for _, c := range cases {
		f, err := NewFilter(c.names, c.def, canon)
		if (err != nil) != c.err {
			t.Errorf("%q: err %v", c.names, err)
			continue
		}
		if err == nil && (f.Keep("a") != c.keepA || f.Keep("b") != c.keepB) {
			t.Errorf("%q/%q: keep a %v b %v", c.names, c.def, f.Keep("a"), f.Keep("b"))
		}
	}
}

func TestAt(t *testing.T) {
	cases := []struct{ path, err, want string }{
		{"qa[3]", "category: expected 1–5, got 7", "qa[3].category: expected 1–5, got 7"},
		{"qa[3]", "expected an object, got JSON number", "qa[3]: expected an object, got JSON number"},
		{"x", `"trivia": unknown`, `x: "trivia": unknown`},
	}
	for _, c := range cases {
		if got := At(c.path, errors.New(c.err)).Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if At("x", nil) != nil {
		t.Error("At(nil) != nil")
	}
}

func TestDecodeArray(t *testing.T) {
	var got []int
	err := DecodeArray(context.Background(), strings.NewReader(" [1, 2,3] \n"), 0, nil, func(i int, dec *json.Decoder) error {
		var v int
		if err := dec.Decode(&v); err != nil {
			return err
		}
		got = append(got, v)
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Errorf("got %v %v", got, err)
	}
	for _, bad := range []string{"", "{}", "[1,", "[1] x", "3"} {
		err := DecodeArray(context.Background(), strings.NewReader(bad), 0, nil, func(i int, dec *json.Decoder) error {
			var v any
			return dec.Decode(&v)
		})
		if err == nil || !strings.HasPrefix(err.Error(), "top level") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}
