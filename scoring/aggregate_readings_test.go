package scoring

import (
	"fmt"
	"testing"

	"github.com/arbor-eval/arbor/pkg/record"
)

func TestGoldenReadingsTable(t *testing.T) {
	var samples []record.Sample
	var eps []record.EpisodeStat
	// variant: correct answers of 4, parents in branch of 4, new roots of 40
	for _, v := range []struct {
		name           string
		right, parents int
		roots          int
	}{{"", 3, 3, 6}, {"ce-scaled", 2, 2, 3}, {"tau=10", 1, 1, 30}, {"no-atomic-facts", 2, 3, 0}} {
		for q := range 4 {
			in := q < v.parents
			s := record.Sample{Benchmark: "branchmemeval", Episode: "s01", Question: fmt.Sprintf("q%d", q), System: "arbormem", Variant: v.name, Budget: 30968,
				Primary: "rule", Scores: map[string]record.ScoreRecord{"rule": {Score: boolToFloat(q < v.right)}}, QuestionParentInBranch: &in}
			samples = append(samples, s)
		}
		if v.name != "no-atomic-facts" { // recall-only: no ingestion of its own
			eps = append(eps, record.EpisodeStat{Benchmark: "branchmemeval", Episode: "s01", System: "arbormem", Variant: v.name, Committed: 40, NewRoots: v.roots, Localizes: true})
		}
	}
	tb := ReadingsTable(samples, eps)
	if len(tb.Rows) != 4 || tb.Rows[0].Label != variantLabel("") {
		t.Fatalf("rows %+v", tb.Rows)
	}
	// no-atomic-facts is answered from the reference's forest.
	for _, r := range tb.Rows {
		if r.Label == variantLabel("no-atomic-facts") && (r.Cells[1].Value == nil || *r.Cells[1].Value != 15) {
			t.Errorf("recall-only variant's new roots %+v, want the reference's 15%%", r.Cells[1])
		}
		if r.Label == "tau=10" && *r.Cells[1].Value != 75 {
			t.Errorf("tau=10 new roots %v", *r.Cells[1].Value)
		}
	}
	for ext, b := range renderAll(t, tb) {
		goldenFile(t, "readings."+ext, b)
	}
}
