package runners

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/llm/llmtest"
)

// TestEvalMem0EndToEnd is `arbor eval locomo --data <fixture> --systems mem0`
// against the fake endpoint: the real Node Mem0 sidecar adds memories, finds
// them for the questions, and its model calls reach the cost table.
func TestEvalMem0EndToEnd(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found: install node >= 20, then run `npm ci` in scripts/bridges/mem0")
	}
	sidecar, err := filepath.Abs("../scripts/bridges/mem0/sidecar.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(sidecar), "node_modules", "mem0ai")); err != nil {
		t.Skip("the Mem0 sidecar is not installed: run `npm ci` in scripts/bridges/mem0 (baselines/sidecar's tests install it from the npm cache)")
	}
	fake := llmtest.New(llmtest.Options{Dim: 1024})
	defer fake.Close()
	cfg := testConfig(t, fmt.Sprintf(`models:
  chat:
    endpoints:
      - {url: %[1]s, model: fake-model, max_inflight: 4, timeout: 20s}
  embed:
    endpoints:
      - {url: %[1]s, model: BAAI/bge-m3, max_inflight: 4, timeout: 20s}
answer: {answerer: chat}
retry: {max_attempts: 3, base_delay: 1ms, max_delay: 5ms}
bridges:
  timeout: 60s
  mem0: {command: [node, %[2]s]}
`, fake.URL, sidecar))
	res, err := Run(context.Background(), Plan{Benchmark: "locomo", Data: "../datasets/locomo/testdata/locomo10.json",
		Systems: []string{"mem0"}, Config: cfg, Out: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) == 0 || len(res.Episodes) == 0 {
		t.Fatalf("%d samples, %d episodes", len(res.Samples), len(res.Episodes))
	}
	found := 0
	for _, s := range res.Samples {
		if s.Error != "" {
			t.Errorf("%s: %s", s.Key(), s.Error)
		}
		if s.EvidenceTokens > 0 {
			found++
		}
		if s.Calls["embed"].Count == 0 {
			t.Errorf("%s: Mem0's query embedding was not accounted", s.Key())
		}
	}
	if found == 0 {
		t.Error("Mem0 found no memory for any question")
	}
	for _, e := range res.Episodes {
		if e.Error != "" || e.Calls["chat"].Count != e.Committed || e.Calls["embed"].Count == 0 {
			t.Errorf("episode %s: error %q, %d interactions, calls %+v: want one Mem0 extraction call per interaction and its embeddings", e.Episode, e.Error, e.Committed, e.Calls)
		}
	}
	cost := readTable(t, res.Dir, "cost")
	if got := cost.value(t, "Mem0", "Calls"); got < 1 {
		t.Errorf("cost table: Mem0 makes %.2f model calls per ingested interaction, want its extraction and embeddings (>= 1)", got)
	}
	labels := []string{}
	for _, r := range cost.Rows {
		labels = append(labels, r.Label)
	}
	if j := strings.Join(labels, ","); !strings.Contains(j, "Mem0,chat,embed") {
		t.Errorf("cost table rows %s: want Mem0 with its chat and embed roles", j)
	}
}
