package runners

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
)

// TestPerfTraceTimeline checks that the trace prints every committed turn
// with its calls, localization's rerank and round 2's path evolution
// among them, and the summary line (no timing is asserted).
func TestPerfTraceTimeline(t *testing.T) {
	var out strings.Builder
	err := PerfTrace(context.Background(), PerfPlan{Latency: 2 * time.Millisecond, Turns: 3,
		Reference: func() (*config.Config, error) { return config.Load("../configs/a800.yaml", nil, nil) }}, &out)
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if n := strings.Count(s, "\nturn ") + strings.Count(s[:min(len(s), 5)], "turn "); n != 3 {
		t.Errorf("%d turns printed, want 3:\n%s", n, s)
	}
	for _, want := range []string{"rerank/rerank", "chat/path_evolution", "chat/node_metadata", "embed/embed", "3 turns, prefetch off: median"} {
		if !strings.Contains(s, want) {
			t.Errorf("trace lacks %q:\n%s", want, s)
		}
	}
}
