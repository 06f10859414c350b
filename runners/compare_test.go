package runners

import (
	"math"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/fake"
)

// recallTolerance is how far the model-backed run's mean evidence recall
// may be from the offline run's (README, "The model path without a GPU").
const recallTolerance = 0.01

// TestCompareModelPath asserts the equivalence figures of `arbor
// fake-endpoint compare` on the first episodes of the default set (two
// without noise, one with; the README has the whole set's): without
// noise the model-backed ArborMem places every interaction where the
// offline one does, recalls the same bundles, and no reply goes unparsed;
// with noise 0.2 its repaired and unparseable counts are exactly the
// replies the fake made repairable and unrepairable.
func TestCompareModelPath(t *testing.T) {
	for _, tc := range []struct {
		noise float64
		limit int
	}{{0, 2}, {0.2, 1}} {
		noise := tc.noise
		c, err := CompareModelPath(slowDeadline(t), testConfig(t), CompareOptions{Limit: tc.limit, Noise: noise, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		var report strings.Builder
		WriteComparison(&report, c)
		t.Log(report.String())
		if c.Interactions == 0 || c.SamePlacement != c.Interactions {
			t.Errorf("noise %.1f: %d of %d interactions placed as offline", noise, c.SamePlacement, c.Interactions)
		}
		if c.Questions == 0 || math.Abs(c.ModelRecall-c.OfflineRecall) > recallTolerance {
			t.Errorf("noise %.1f: evidence recall %.3f, offline %.3f (tolerance %.2f)", noise, c.ModelRecall, c.OfflineRecall, recallTolerance)
		}
		if u := c.Speaker[fake.Unrecognised].Replies; u > 0 {
			t.Errorf("noise %.1f: %d requests unrecognised", noise, u)
		}
		m, d := c.Metrics, c.Degraded
		if d.ModelErrors != 0 || d.IngestErrors != 0 || m.ModelCalls == 0 {
			t.Errorf("noise %.1f: %d model errors, %d failed commits in %d memory-operation calls", noise, d.ModelErrors, d.IngestErrors, m.ModelCalls)
		}
		if d.BadReplies != c.Unrepairable() || d.Fallbacks != d.BadReplies || d.Repaired != c.RepairedReplies() {
			t.Errorf("noise %.1f: degraded counts %+v; the fake made %d replies unrepairable and %d repairable",
				noise, d, c.Unrepairable(), c.RepairedReplies())
		}
		switch {
		case noise == 0 && (c.SameBundle != c.Questions || d.Any()):
			t.Errorf("noise 0: %d of %d bundles equal, degraded %+v", c.SameBundle, c.Questions, d)
		case noise > 0 && d.Repaired == 0:
			t.Errorf("noise %.1f: no reply needed repair", noise)
		}
	}
}
