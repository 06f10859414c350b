package text

import (
	"strings"
	"testing"
)

func TestNormalizeAnswer(t *testing.T) {
	cases := []struct{ in, want string }{
		{"$1,200", "1200"},
		{"1200", "1200"},
		{"$1,250,000.50", "1250000 50"},
		{"1,2,3", "1 2 3"},   // a list, not a number: items stay apart
		{"10,5", "10 5"},     // not a thousands group
		{"1,2345", "1 2345"}, // four digits after the comma: not a group
		{"12,000,000", "12000000"},
		{"A & B", "and b"}, // "a" is an article
		{"Smith & Wesson", "smith and wesson"},
		{"The Harbor Room", "harbor room"},
		{"an apple a day", "apple day"},
		{"Anna's  café", "anna s café"},
		{"Sam\u2019s trip", "sam s trip"},
		{"\u201cMaple Inn\u201d.", "maple inn"},
		{"3:30 pm", "3 30 pm"},
		{"3.30 PM", "3 30 pm"},
		{"Smith-Jones", "smith jones"},
		{"QX4821", "qx4821"},
		{"May 12, 2025", "may 12 2025"},
		{"  tabs\tand\nnewlines ", "tabs and newlines"},
		{"STRASSE", "strasse"},
		{"Straße", "strasse"},
		{"ＭＡＰＬＥ", "maple"}, // full-width compatibility forms
		{"...!?", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := NormalizeAnswer(c.in); got != c.want {
			t.Errorf("NormalizeAnswer(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestContainsAnswer(t *testing.T) {
	cases := []struct {
		hay, needle string
		want        bool
	}{
		{"the budget is $1,200 in total", "1200", true},
		{"it was 2010 when we met", "10", false},
		{"we have 10 days", "10", true},
		{"anna booked it", "ann", false},
		{"Sam's trip", "Sam", true},
		{"maple inn", "maple inn", true},
		{"maple innkeeper", "maple inn", false},
		{"the old maple inn!", "Maple Inn", true},
		{"x", "", false},
		{"", "x", false},
		{"A and B, then C", "a & b", true},
		{"a b a b c", "b c", true}, // a later occurrence is found after an early partial one
		{"10x 10", "10", true},     // first occurrence is not at a boundary, second is
		{"may 12 and may 1", "may 1", true},
		{"may 12 only", "may 1", false},
	}
	for _, c := range cases {
		got := ContainsAnswer(NormalizeAnswer(c.hay), NormalizeAnswer(c.needle))
		if got != c.want {
			t.Errorf("ContainsAnswer(%q, %q) = %v, want %v", c.hay, c.needle, got, c.want)
		}
	}
}

func BenchmarkNormalizeAnswer(b *testing.B) {
	s := strings.Repeat("Got it — the budget for Sam’s trip is $2,400. Keep documents and chargers in one pouch. ", 30)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		NormalizeAnswer(s)
	}
}
