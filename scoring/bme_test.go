package scoring

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/memory"
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

func TestBMERulesScore(t *testing.T) {
	cases := []struct {
		name, gold, conf, pred string
		outcome                string
	}{
		{"dollar and commas", "$1,200", "$1,800", "It is 1200 dollars.", OutcomeCorrect},
		{"ampersand", "Barnes & Noble", "Waterstones", "barnes and noble", OutcomeCorrect},
		{"A & B", "A & B", "C & D", "It was a and b.", OutcomeCorrect},
		{"articles", "the Harbor Room", "the Lantern Hall", "A harbor room, I think", OutcomeCorrect},
		{"year is not ten", "10", "12", "That was back in 2010.", OutcomeMiss},
		{"punctuation only", "Dr. Lee", "Dr. Park", "dr lee!", OutcomeCorrect},
		{"unicode quotes", "\u201cGolden Hour\u201d", "Blue Rooms", "I'd pick 'Golden Hour'.", OutcomeCorrect},
		{"confusion", "Maple Inn", "Pine Lodge", "You are at the Pine Lodge.", OutcomeConfusion},
		{"both", "Maple Inn", "Pine Lodge", "Either Maple Inn or Pine Lodge.", OutcomeAmbiguous},
		{"neither", "Maple Inn", "Pine Lodge", "I don't know.", OutcomeMiss},
		{"empty prediction", "Maple Inn", "Pine Lodge", "", OutcomeMiss},
		{"no confounder", "May 12", "", "On May 12.", OutcomeCorrect},
		{"gold inside longer token", "Inn", "Lodge", "Innsbruck", OutcomeMiss},
	}
	s := BMERules{}
	if s.Name() != "bme-rules" || s.Heuristic() {
		t.Fatalf("name %q heuristic %v", s.Name(), s.Heuristic())
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := &datasets.Question{Gold: c.gold, Confounder: c.conf}
			r, err := s.Score(context.Background(), q, c.pred)
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != c.outcome {
				t.Errorf("outcome %q, want %q", r.Outcome, c.outcome)
			}
			want := 0.0
			if c.outcome == OutcomeCorrect {
				want = 1
			}
			if r.Score != want {
				t.Errorf("score %v, want %v", r.Score, want)
			}
		})
	}
}

func TestBMERecall(t *testing.T) {
	q := &datasets.Question{Gold: "$2,400", Confounder: "$18,000"}
	b := memory.Bundle{Items: []memory.Item{
		{Text: "user: the trip budget is $2,400"},
		{Text: "user: the renovation budget is 18000"},
	}}
	r := BMERecall(q, b)
	if r.Gold != 1 || r.Confounder == nil || !*r.Confounder {
		t.Fatalf("got %+v", r)
	}
	r = BMERecall(q, memory.Bundle{Items: b.Items[:1]})
	if r.Gold != 1 || r.Confounder == nil || *r.Confounder {
		t.Fatalf("got %+v", r)
	}
	r = BMERecall(q, memory.Bundle{Items: b.Items[1:]})
	if r.Gold != 0 || !*r.Confounder {
		t.Fatalf("got %+v", r)
	}
	// Items are joined with a separator, so a value never straddles two items.
	r = BMERecall(&datasets.Question{Gold: "Maple Inn"}, memory.Bundle{Items: []memory.Item{{Text: "Maple"}, {Text: "Inn"}}})
	if r.Gold != 1 || r.Confounder != nil {
		// "maple\ninn" normalises to "maple inn": whitespace is whitespace.
		t.Fatalf("got %+v", r)
	}
	r = BMERecall(&datasets.Question{Gold: "x"}, memory.Bundle{})
	if r.Gold != 0 {
		t.Fatalf("empty bundle: %+v", r)
	}
}

func FuzzBMEScore(f *testing.F) {
	f.Add("$1,200", "1200", "It is 1200.")
	f.Add("A & B", "c", "a and b")
	f.Add("", "", "")
	f.Add("\u201cx\u201d", "the", "’’,,,&&&")
	s := BMERules{}
	f.Fuzz(func(t *testing.T, gold, conf, pred string) {
		r, err := s.Score(context.Background(), &datasets.Question{Gold: gold, Confounder: conf}, pred)
		if err != nil {
			t.Fatal(err)
		}
		switch r.Outcome {
		case OutcomeCorrect, OutcomeConfusion, OutcomeAmbiguous, OutcomeMiss:
		default:
			t.Fatalf("outcome %q", r.Outcome)
		}
		n := NormalizeAnswer(pred)
		if utf8.ValidString(pred) && NormalizeAnswer(n) != n {
			t.Fatalf("normalisation not idempotent: %q → %q → %q", pred, n, NormalizeAnswer(n))
		}
		if strings.Contains(n, "  ") || strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") {
			t.Fatalf("whitespace not collapsed: %q", n)
		}
		// A prediction that is exactly the gold is never a miss.
		if g := NormalizeAnswer(gold); g != "" {
			r2, _ := s.Score(context.Background(), &datasets.Question{Gold: gold, Confounder: conf}, gold)
			if r2.Outcome == OutcomeMiss || r2.Outcome == OutcomeConfusion {
				t.Fatalf("gold %q as prediction scored %q", gold, r2.Outcome)
			}
		}
	})
}

func BenchmarkNormalizeAnswer(b *testing.B) {
	s := strings.Repeat("Got it — the budget for Sam’s trip is $2,400. Keep documents and chargers in one pouch. ", 30)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		NormalizeAnswer(s)
	}
}
