package scoring

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arbor-eval/arbor/datasets"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/text"
)

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
		n := text.NormalizeAnswer(pred)
		if utf8.ValidString(pred) && text.NormalizeAnswer(n) != n {
			t.Fatalf("normalisation not idempotent: %q → %q → %q", pred, n, text.NormalizeAnswer(n))
		}
		if strings.Contains(n, "  ") || strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") {
			t.Fatalf("whitespace not collapsed: %q", n)
		}
		// A prediction that is exactly the gold is never a miss.
		if g := text.NormalizeAnswer(gold); g != "" {
			r2, _ := s.Score(context.Background(), &datasets.Question{Gold: gold, Confounder: conf}, gold)
			if r2.Outcome == OutcomeMiss || r2.Outcome == OutcomeConfusion {
				t.Fatalf("gold %q as prediction scored %q", gold, r2.Outcome)
			}
		}
	})
}

// checkNormalizedItems fails unless the items' normal forms joined equal
// the normal form of their texts joined by "\n", on a first sight and
// from the memo.
func checkNormalizedItems(t *testing.T, texts ...string) {
	t.Helper()
	items := make([]memory.Item, len(texts))
	for i, s := range texts {
		items[i] = memory.Item{Text: s}
	}
	want := text.NormalizeAnswer(strings.Join(texts, "\n"))
	for _, pass := range []string{"first", "remembered"} {
		if got := normalizedItems(items); got != want {
			t.Fatalf("%s: normalizedItems(%q) = %q, want %q", pass, texts, got, want)
		}
	}
}

// TestNormalizedItems joins texts that end or start where the normal form
// could depend on its neighbour (thousands commas, articles, ampersands,
// combining marks, compatibility characters, empty and blank texts).
func TestNormalizedItems(t *testing.T) {
	frags := []string{"", " ", "\n", "the", "a", "An", "1,", "1,2", "1,23", "1,234", "234", "5", ",000", "&", "x &",
		"\u0301e", "e\u0301", "ﬁ", "Ⅻ", "ß", "Sycamore table.", "put at the", "Table", "₁", "\u00a0", "-", "'s"}
	for _, a := range frags {
		for _, b := range frags {
			checkNormalizedItems(t, a, b)
			for _, c := range frags[:8] {
				checkNormalizedItems(t, a, c, b)
			}
		}
	}
	checkNormalizedItems(t)
}

// FuzzNormalizedItems: for any texts, the joined normal forms are the
// normal form of the texts joined by "\n".
func FuzzNormalizedItems(f *testing.F) {
	f.Add("1,", "234 the", "\u0301x")
	f.Add("The A", "an &", "ﬁ 12,000")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		checkNormalizedItems(t, a, b, c)
		checkNormalizedItems(t, b, a)
	})
}
