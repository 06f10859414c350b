package scoring

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	rows := []Row{
		{Category: "temporal-reasoning", Score: 1},
		{Category: "temporal-reasoning", Score: 0},
		{Category: "temporal-reasoning", Score: 1, Abstention: true},
		{Category: "multi-session", Score: 0, Abstention: true},
	}
	s := Summarize(rows)
	// overall 2/4; types: temporal 2/3, multi 0 → task-averaged 1/3;
	// abstention 1/2.
	if s.N != 4 || s.Overall != 0.5 || math.Abs(s.TaskAveraged-1.0/3) > 1e-12 || s.Abstention != 0.5 || s.NAbstention != 2 {
		t.Fatalf("%+v", s)
	}
	if len(s.Categories) != 2 || s.Categories[0].Category != "multi-session" || s.Categories[1].N != 3 {
		t.Fatalf("categories %+v", s.Categories)
	}
	e := Summarize(nil)
	if e.Overall != 0 || e.TaskAveraged != 0 || e.NAbstention != 0 || math.IsNaN(e.Abstention) {
		t.Fatalf("empty %+v", e)
	}
}

func TestCohenKappa(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    []string
		kappa   float64
		ok      bool
		percent float64
	}{
		// po=3/4, pe=.5·.25+.5·.75=.5 → κ=.5.
		{"hand", []string{"1", "1", "0", "0"}, []string{"1", "0", "0", "0"}, 0.5, true, 0.75},
		{"perfect", []string{"1", "0"}, []string{"1", "0"}, 1, true, 1},
		// po=0, pe=.5 → κ=-1.
		{"opposite", []string{"1", "0"}, []string{"0", "1"}, -1, true, 0},
		// Three BEAM item labels: po=2/3; pe=(1/3·1/3)+(1/3·2/3)+(1/3·0)=1/3 → κ=.5.
		{"three labels", []string{"1", "0.5", "0"}, []string{"1", "0.5", "0.5"}, 0.5, true, 2.0 / 3},
		{"constant", []string{"1", "1"}, []string{"1", "1"}, 0, false, 1},
		{"empty", nil, nil, 0, false, 0},
	} {
		k, ok := CohenKappa(tc.a, tc.b)
		p := PercentAgreement(tc.a, tc.b)
		if ok != tc.ok || math.Abs(k-tc.kappa) > 1e-12 || math.Abs(p-tc.percent) > 1e-12 || math.IsNaN(k) {
			t.Errorf("%s: κ=%v ok=%v agreement %v", tc.name, k, ok, p)
		}
	}
}

func TestCompareLabels(t *testing.T) {
	a := [][]string{JudgeLabels(1, nil), JudgeLabels(0, nil), JudgeLabels(0.5, []float64{1, 0})}
	b := [][]string{JudgeLabels(1, nil), JudgeLabels(1, nil), JudgeLabels(1, []float64{1, 1})}
	ag := CompareLabels("x", "y", a, b)
	// units: 1/1, 0/1, 1/1, 0/1 → 50%.
	if ag.Units != 4 || ag.Percent != 0.5 || !ag.KappaDefined {
		t.Fatalf("%+v", ag)
	}
}
