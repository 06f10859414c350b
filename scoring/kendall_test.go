package scoring

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/datasets"
)

func TestKendallTauB(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		tau  float64
		ok   bool
	}{
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 1, true},
		{"reversed", []float64{1, 2, 3}, []float64{3, 2, 1}, -1, true},
		// C=5 D=1 over 6 pairs, no ties: 4/6.
		{"one swap", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 4.0 / 6, true},
		// Pairs: (0,1) C, (0,2) C, (1,2) tied in x only: 2/sqrt(2·3).
		{"tie in x", []float64{1, 2, 2}, []float64{1, 2, 3}, 2 / math.Sqrt(6), true},
		// Pairs: (0,1) tied in both, (0,2) C, (1,2) C: 2/sqrt(2·2) = 1.
		{"joint tie", []float64{1, 1, 2}, []float64{5, 5, 6}, 1, true},
		// (0,1) C, (0,2) tie y, (1,2) D: 0/sqrt(3·2) = 0.
		{"tie in y", []float64{1, 2, 3}, []float64{1, 3, 1}, 0, true},
		{"single item", []float64{1}, []float64{1}, 0, false},
		{"empty", nil, nil, 0, false},
		{"constant y", []float64{1, 2, 3}, []float64{4, 4, 4}, 0, false},
		{"constant x", []float64{2, 2}, []float64{1, 2}, 0, false},
		{"length mismatch", []float64{1, 2}, []float64{1}, 0, false},
	} {
		tau, ok := KendallTauB(tc.x, tc.y)
		if ok != tc.ok || math.Abs(tau-tc.tau) > 1e-12 || math.IsNaN(tau) {
			t.Errorf("%s: τ=%v ok=%v, want %v %v", tc.name, tau, ok, tc.tau, tc.ok)
		}
	}
}

func TestNormalizedTau(t *testing.T) {
	for _, tc := range []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, 1},
		{[]float64{1, 2, 3}, []float64{3, 2, 1}, 0},
		{[]float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, (4.0/6 + 1) / 2},
		{[]float64{1}, []float64{1}, 1},       // one event, matched
		{[]float64{1}, []float64{2}, 0},       // one event, missed
		{[]float64{1, 2}, []float64{3, 3}, 0}, // nothing in the answer
		{nil, nil, 0},
	} {
		got := NormalizedTau(tc.x, tc.y)
		if math.IsNaN(got) || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("NormalizedTau(%v, %v) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

func TestEventOrdering(t *testing.T) {
	ref := []string{"A", "B", "C"}
	for _, tc := range []struct {
		name     string
		aligned  []string
		official bool
		tauNorm  float64
		f1       float64
	}{
		{"same order", []string{"A", "B", "C"}, false, 1, 1},
		// x=[1,2,3] y=[2,1,3]: C=2 D=1 → τ=1/3.
		{"one swap", []string{"B", "A", "C"}, false, (1.0/3 + 1) / 2, 1},
		// union [A B C X]: x=[1,2,3,5] y=[1,5,5,2]: C=3 D=2, one y tie → 1/sqrt(6·5).
		{"partial with extra", []string{"A", "X"}, false, (1/math.Sqrt(30) + 1) / 2, 0.4},
		// No lines: y all ties → undefined → 0 in both modes.
		{"empty answer", nil, false, 0, 0},
		{"empty answer official", nil, true, 0, 0},
	} {
		d := EventOrdering(ref, tc.aligned, tc.official)
		if math.Abs(d.TauNorm-tc.tauNorm) > 1e-12 || math.Abs(d.F1-tc.f1) > 1e-12 || math.IsNaN(d.FinalScore) {
			t.Errorf("%s: %+v, want τnorm %v f1 %v", tc.name, d, tc.tauNorm, tc.f1)
		}
	}
	// One reference event named correctly: defined as 1 (corrected) but 0
	// where the official code has NaN.
	if d := EventOrdering([]string{"A"}, []string{"A"}, false); d.TauNorm != 1 || d.TauB != nil {
		t.Errorf("single corrected: %+v", d)
	}
	if d := EventOrdering([]string{"A"}, []string{"A"}, true); d.TauNorm != 0 {
		t.Errorf("single official: %+v", d)
	}
}

func TestAnswerLinesAndAlign(t *testing.T) {
	ans := "1. Moved to Denver\n\n- Started the new job\n  3) Adopted a dog  \n"
	if got := AnswerLines(ans, false); strings.Join(got, "|") != "Moved to Denver|Started the new job|Adopted a dog" {
		t.Fatalf("corrected lines %q", got)
	}
	if got := AnswerLines(ans, true); len(got) != 5 {
		t.Fatalf("official lines %q", got)
	}
	ref := []string{"User moved to Denver", "User adopted a dog", "User started a new job"}
	calls := 0
	eq := func(r, l string) (bool, error) {
		calls++
		return TokenF1(l, r) >= 0.5, nil
	}
	got, err := AlignEvents(ref, []string{"Moved to Denver", "Started the new job", "Adopted a dog", "Moved to Denver"}, eq)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"User moved to Denver", "User started a new job", "User adopted a dog", "Moved to Denver"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("aligned %q, want %q", got, want)
	}
}

func TestBEAMEventOrderingScorer(t *testing.T) {
	q := &datasets.Question{ID: "2:event_ordering:0", Category: "event_ordering", Time: qTime,
		Rubric: []string{"moved to Denver", "started a new job", "adopted a dog"}}
	// Model judge: equivalent when the snippets share their last word.
	fj := &fakeJudge{reply: func(p string) string {
		var first, second string
		for _, l := range strings.Split(p, "\n") {
			if v, ok := strings.CutPrefix(l, "First snippet: "); ok {
				first = v
			}
			if v, ok := strings.CutPrefix(l, "Second snippet: "); ok {
				second = v
			}
		}
		f, s := strings.Fields(first), strings.Fields(second)
		if len(f) > 0 && len(s) > 0 && f[len(f)-1] == s[len(s)-1] {
			return "YES"
		}
		return "NO"
	}}
	r, err := NewBEAMRubric(fj, nil, Options{}).Score(context.Background(), q, "1. I adopted a dog\n2. I moved to Denver\n3. Then the job")
	if err != nil {
		t.Fatal(err)
	}
	// aligned = [adopted, moved, started]: x=[1,2,3], y=[2,3,1]: C=1 D=2 → τ=-1/3.
	if math.Abs(r.Score-(1-1.0/3)/2) > 1e-12 || !strings.Contains(r.Raw, `"tau_b"`) {
		t.Fatalf("%+v", r)
	}
	// Lexical equivalence, labelled heuristic.
	lr, err := NewBEAMRubric(nil, nil, Options{}).Score(context.Background(), q, "moved to Denver\nstarted a new job\nadopted a dog")
	if err != nil || lr.Score != 1 {
		t.Fatalf("lexical %+v %v", lr, err)
	}
}

func FuzzEventOrdering(f *testing.F) {
	f.Add("a\nb\nc", "b\na", false)
	f.Add("", "\n\n", true)
	f.Fuzz(func(t *testing.T, ref, answer string, official bool) {
		r := strings.Split(ref, "\n")
		lines := AnswerLines(answer, official)
		aligned, err := AlignEvents(r, lines, func(a, b string) (bool, error) { return a == b, nil })
		if err != nil {
			t.Fatal(err)
		}
		d := EventOrdering(r, aligned, official)
		for _, v := range []float64{d.TauNorm, d.F1, d.FinalScore, d.Precision, d.Recall} {
			if math.IsNaN(v) || v < 0 || v > 1+1e-12 {
				t.Fatalf("value %v out of [0,1]: %+v", v, d)
			}
		}
	})
}
