package record

import "testing"

func TestSelectionMatcherAndHistory(t *testing.T) {
	sel := Selection{Command: []string{"arbor", "eval"}, Available: 3,
		Episodes: []SelectedEpisode{{ID: "e1", Questions: []string{"q1", "q2"}}}, Systems: []string{"bm25"}, Budgets: []int{512}}
	m := sel.Matcher()
	for _, tc := range []struct {
		s    Sample
		want bool
	}{
		{Sample{Episode: "e1", Question: "q1", System: "bm25", Budget: 512}, true},
		{Sample{Episode: "e1", Question: "q3", System: "bm25", Budget: 512}, false},
		{Sample{Episode: "e2", Question: "q1", System: "bm25", Budget: 512}, false},
		{Sample{Episode: "e1", Question: "q1", System: "full", Budget: 512}, false},
		{Sample{Episode: "e1", Question: "q1", System: "bm25", Budget: 1024}, false},
		{Sample{Episode: "e1", Question: "q1", System: "bm25", Budget: 512, Variant: "no-localization"}, false},
	} {
		if got := m.Sample(tc.s); got != tc.want {
			t.Errorf("%+v: in selection %v, want %v", tc.s, got, tc.want)
		}
	}
	if sel.Questions() != 2 {
		t.Errorf("questions = %d", sel.Questions())
	}
	var man Manifest
	man.AddSelection(sel)
	other := sel
	other.Episodes = []SelectedEpisode{{ID: "e2", Questions: []string{"q9"}}}
	man.AddSelection(other)
	again := sel
	again.Command = []string{"arbor", "eval", "--tables", "all"}
	man.AddSelection(again)
	if len(man.Selections) != 2 || man.Latest().Command[2] != "--tables" || man.Selections[0].Episodes[0].ID != "e2" {
		t.Errorf("selections after a repeat: %+v", man.Selections)
	}
}
