package runners

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/record"
)

// TestDegradedRunIsSaidOutLoud: a judge endpoint that only echoes (nothing
// parseable) and a summary call that fails leave a run whose tables would
// look normal; the run prints the counts per system, puts them in the
// table notes and the manifest, and --strict makes it fail.
func TestDegradedRunIsSaidOutLoud(t *testing.T) {
	fake := openaifake.New(openaifake.Options{FaultAt: map[int]openaifake.Fault{0: openaifake.Status400}})
	defer fake.Close()
	yaml := strings.Replace(chatYAML(fake, 1), "models:\n", fmt.Sprintf("models:\n  judge:\n    endpoints: [{url: %s, model: fake-model}]\n", fake.URL), 1)
	cfg := testConfig(t, yaml)
	cfg.Run.Workers = 1
	var log, out strings.Builder
	data := "../datasets/longmemeval/testdata/longmemeval_oracle.json"
	plan := Plan{Benchmark: "longmemeval", Data: data, Limit: 1, Systems: []string{"summary", "recent"}, RunID: "degraded", Config: cfg, Out: &out, Log: &log}
	res, err := Run(deadline(t), plan)
	if err != nil {
		t.Fatalf("a degraded run without --strict failed: %v", err)
	}
	nq := 0
	for _, s := range res.Samples {
		if s.System == "recent" {
			nq++
		}
	}
	for _, want := range []string{
		"degraded: Summary: 1 interactions failed to commit",
		fmt.Sprintf("judge replies unparsed (scored 0) (100.0%% of %d replies)", nq),
		"degraded: Recent",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log does not say %q:\n%s", want, log.String())
		}
	}
	if !strings.Contains(out.String(), "Degraded: Summary") {
		t.Errorf("printed tables do not note the degraded counts:\n%s", out.String())
	}
	if !strings.Contains(mdTables(t, res.Dir)["degraded.md"], "Degraded operations per system") {
		t.Error("no tables/degraded.md")
	}
	m, err := record.ReadManifest(filepath.Join(cfg.Run.Results, "degraded"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]record.SystemDegraded{}
	for _, d := range m.Degraded {
		got[d.System] = d
	}
	if got["summary"].IngestErrors != 1 || got["recent"].JudgeUnparsed != nq || got["recent"].JudgeReplies != nq {
		t.Errorf("manifest degraded counts: %+v", m.Degraded)
	}

	// Resuming with --strict: nothing to do, but the finished run is
	// degraded, so it fails; a limit above the worst share passes.
	plan.Integrity = Integrity{Strict: true}
	if _, err := Run(deadline(t), plan); !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "Recent 100.0%") {
		t.Fatalf("--strict on a degraded run: %v", err)
	}
	plan.Integrity = Integrity{Strict: true, MaxDegraded: 50}
	if _, err := Run(deadline(t), plan); !errors.Is(err, ErrDegraded) {
		t.Fatalf("--max-degraded 50%% with 100%% unparsed judge replies: %v", err)
	}
	if err := integrityError(Integrity{Strict: true, MaxDegraded: 50}, []record.SystemDegraded{{System: "x", Degraded: record.Degraded{Fallbacks: 1}, Committed: 10}}, 0); err != nil {
		t.Errorf("10%% fallbacks under --max-degraded 50%%: %v", err)
	}
	if err := integrityError(Integrity{}, []record.SystemDegraded{{System: "x", Degraded: record.Degraded{Fallbacks: 1}, Committed: 10}}, 0); err != nil {
		t.Errorf("degraded counts without --strict: %v", err)
	}
}

// TestGarbageMemoryOpsFailStrict: a chat model that answers memory
// operations with garbage leaves ArborMem running on rules; the run prints
// its fallbacks and --strict exits non-zero.
func TestGarbageMemoryOpsFailStrict(t *testing.T) {
	fake := openaifake.New(openaifake.Options{Reply: func(openaifake.Request) string { return "%%% not json at all" }})
	defer fake.Close()
	yaml := strings.Replace(chatYAML(fake, 4), "arbormem: {extractors: heuristic}", "arbormem: {extractors: chat}", 1)
	cfg := testConfig(t, yaml)
	var log strings.Builder
	plan := Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"arbormem"}, Config: cfg, Out: io.Discard, Log: &log,
		Integrity: Integrity{Strict: true}}
	_, err := Run(deadline(t), plan)
	if !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "ArborMem") {
		t.Fatalf("--strict with garbage memory-op replies: %v", err)
	}
	if !strings.Contains(log.String(), "degraded: ArborMem:") || !strings.Contains(log.String(), "fell back to rules") {
		t.Errorf("the run does not print the fallbacks:\n%s", log.String())
	}
}
