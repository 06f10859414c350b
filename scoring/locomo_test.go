package scoring

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
)

func TestNormalizeLoCoMo(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"The Cat, and a Dog!", "cat dog"},
		{"an apple-pie", "applepie"},
		{"  Hello\t\nworld  ", "hello world"},
		{"A's", "as"},
		{"the_end", "theend"},
		{"and/or", "andor"},
		{"naïve café", "naïve café"},
		{"theatre", "theatre"},
		{"", ""},
	} {
		if got := NormalizeLoCoMo(tc.in); got != tc.want {
			t.Errorf("NormalizeLoCoMo(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLoCoMoF1Table uses values computed by hand from the official rules.
func TestLoCoMoF1Table(t *testing.T) {
	for _, tc := range []struct {
		name, cat, pred, gold string
		want                  float64
	}{
		// Category 2/4: stemmed multiset F1.
		{"exact", "2", "7 May 2023", "7 May 2023", 1},
		// pred {7, may, 2023, morn} vs gold {7, may, 2023}: P=3/4 R=1 → 6/7.
		{"extra token", "2", "7 May 2023 morning", "7 May 2023", 6.0 / 7},
		// pred {run, daili} vs gold {run}: P=1/2 R=1 → 2/3.
		{"stemmed", "4", "Running daily", "runs", 2.0 / 3},
		{"disjoint", "4", "pottery", "painting", 0},
		{"articles only", "4", "the a an", "the", 0},
		// multiset: pred {appl, appl} vs gold {appl}: same=1, P=1/2 R=1 → 2/3.
		{"multiset", "4", "apple apple", "apple", 2.0 / 3},
		// Category 3: gold before ';' = "hiking" → pred {go, hike} P=1/2 R=1.
		{"cat3 semicolon", "3", "went hiking", "hiking; because she likes nature", 2.0 / 3},
		// Category 1: gold parts "pottery", "camping", "painting"; pred parts
		// "pottery", "camping trips": best F1s 1, 2/3, 0 → mean 5/9.
		{"cat1 parts", "1", "pottery, camping trips", "pottery, camping, painting", 5.0 / 9},
		{"cat1 order free", "1", "camping,pottery", "pottery, camping", 1},
		// Category 5: phrase rule, case-insensitive.
		{"cat5 yes", "5", "That is NOT mentioned anywhere.", "adversarial", 1},
		{"cat5 info", "5", "No information available", "", 1},
		{"cat5 no", "5", "She went to Paris.", "", 0},
		{"cat5 other abstention", "5", "I don't know.", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &datasets.Question{ID: "s:1", Category: tc.cat, Gold: tc.gold}
			r, err := LoCoMoF1{}.Score(context.Background(), q, tc.pred)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Score-tc.want) > 1e-12 {
				t.Fatalf("score %v, want %v", r.Score, tc.want)
			}
		})
	}
}

func TestLoCoMoF1Cat1Parts(t *testing.T) {
	q := &datasets.Question{ID: "s:1", Category: "1", Gold: "pottery, camping, painting"}
	r, _ := LoCoMoF1{}.Score(context.Background(), q, "pottery, camping trips")
	want := []float64{1, 2.0 / 3, 0}
	if len(r.Parts) != 3 {
		t.Fatalf("parts %v", r.Parts)
	}
	for i := range want {
		if math.Abs(r.Parts[i]-want[i]) > 1e-12 {
			t.Fatalf("parts %v, want %v", r.Parts, want)
		}
	}
}

func TestLoCoMoF1BadCategory(t *testing.T) {
	q := &datasets.Question{ID: "conv-1:7", Category: "6"}
	_, err := LoCoMoF1{}.Score(context.Background(), q, "x")
	if err == nil || !contains(err.Error(), "conv-1:7") {
		t.Fatalf("want an error naming the question, got %v", err)
	}
}

// TestLoCoMoF1Golden compares with scores computed in Python with NLTK and
// the `regex` module (scripts/locomo-f1-golden.py).
func TestLoCoMoF1Golden(t *testing.T) {
	f, err := os.Open("testdata/locomo_f1_golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		var c struct {
			Category, Prediction, Gold string
			Score                      float64
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		q := &datasets.Question{ID: "g", Category: c.Category, Gold: c.Gold}
		r, err := LoCoMoF1{}.Score(context.Background(), q, c.Prediction)
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if math.Abs(r.Score-c.Score) > 1e-9 {
			t.Errorf("line %d: cat %s pred %q gold %q: %v, Python %v", line, c.Category, c.Prediction, c.Gold, r.Score, c.Score)
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d golden cases", n)
	}
}

func FuzzLoCoMoF1(f *testing.F) {
	f.Add("1", "a, b", "b, c")
	f.Add("3", "x;y", ";")
	f.Add("5", "İΣ", "\x1c")
	f.Fuzz(func(t *testing.T, cat, pred, gold string) {
		q := &datasets.Question{ID: "f", Category: cat, Gold: gold}
		r, err := LoCoMoF1{}.Score(context.Background(), q, pred)
		if err != nil {
			return
		}
		if math.IsNaN(r.Score) || r.Score < 0 || r.Score > 1+1e-12 {
			t.Fatalf("score %v out of [0,1]", r.Score)
		}
	})
}

func BenchmarkLoCoMoF1(b *testing.B) {
	q := &datasets.Question{ID: "b", Category: "1", Gold: "pottery, camping, painting the sunrise, swimming lessons"}
	pred := "She does pottery classes, took the kids camping and painted a sunrise over the lake last weekend"
	for b.Loop() {
		LoCoMoF1{}.Score(context.Background(), q, pred)
	}
}
