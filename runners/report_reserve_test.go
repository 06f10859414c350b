package runners

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepTablesStateEvidenceReserve: a sweep run with a non-zero
// arbormem.evidence_reserve says so under its budget tables.
func TestSweepTablesStateEvidenceReserve(t *testing.T) {
	for _, reserve := range []string{"0", "0.5"} {
		cfg := testConfig(t, "arbormem: {evidence_reserve: "+reserve+"}\n")
		res, err := Run(deadline(t), Plan{Kind: "sweep", Benchmark: "branchmemeval", Limit: 1, Systems: []string{"arbormem"},
			Budgets: []int{256, 1024}, Config: cfg, Out: io.Discard, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(res.Dir, "tables", "budget-accuracy.md"))
		if err != nil {
			t.Fatal(err)
		}
		stated := strings.Contains(string(b), "arbormem.evidence_reserve 0.5")
		if stated != (reserve != "0") {
			t.Errorf("evidence_reserve %s: note stated %v in\n%s", reserve, stated, b)
		}
	}
}
