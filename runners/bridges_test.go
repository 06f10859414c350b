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

	"github.com/arbor-eval/arbor/baselines/sidecar"
	"github.com/arbor-eval/arbor/internal/realdeps"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// TestEvalMem0EndToEnd is `arbor eval locomo --data <fixture> --systems mem0`
// against the fake endpoint: the real Node Mem0 sidecar adds memories, finds
// them for the questions, and its model calls reach the cost table.
func TestEvalMem0EndToEnd(t *testing.T) {
	if msg := sidecar.Mem0NodeMissing("../scripts/bridges"); msg != "" {
		realdeps.Missing(t, msg)
	}
	script, err := filepath.Abs("../scripts/bridges/mem0/sidecar.mjs")
	if err != nil {
		t.Fatal(err)
	}
	fake := openaifake.New(openaifake.Options{Dim: 1024})
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
`, fake.URL, script))
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

// badSidecar is a Python sidecar that answers the handshake and commits,
// then fails at its first recall in the way mode says.
const badSidecar = `import json, sys, time
mode = sys.argv[1]
for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "recall":
        if mode == "crash":
            sys.stderr.write("boom: segmentation fault\n"); sys.stderr.flush(); sys.exit(139)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("<html>not json</html>", flush=True); continue
    rep = {"id": req["id"], "ok": True, "protocol": 1, "system": "mem0", "library": "bad", "library_version": "0", "written_against": "0"}
    if req["op"] == "flush":
        rep["interactions"] = commits
    if req["op"] == "reset":
        commits = 0
    if req["op"] == "commit":
        commits += 1
    print(json.dumps(rep), flush=True)
`

// TestEvalBrokenSidecar: a sidecar that crashes, hangs past its timeout or
// writes garbage turns the episode's questions into error samples naming the
// system and how to install it; the run finishes, and every episode gets a
// fresh process.
func TestEvalBrokenSidecar(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		realdeps.Missing(t, "python3 not found")
	}
	script := filepath.Join(t.TempDir(), "bad.py")
	if err := os.WriteFile(script, []byte(badSidecar), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := openaifake.New(openaifake.Options{})
	defer fake.Close()
	for _, mode := range []string{"crash", "hang", "garbage"} {
		t.Run(mode, func(t *testing.T) {
			cfg := testConfig(t, fmt.Sprintf(`models:
  chat: {endpoints: [{url: %[1]s, model: fake-model}]}
  embed: {endpoints: [{url: %[1]s, model: fake-model}]}
bridges:
  timeout: 300ms
  start_timeout: 20s
  mem0: {command: [python3, %[2]s, %[3]s]}
`, fake.URL, script, mode))
			res, err := Run(context.Background(), Plan{Benchmark: "locomo", Data: "../datasets/locomo/testdata/locomo10.json",
				Systems: []string{"mem0"}, Config: cfg, Out: io.Discard, Log: io.Discard, Integrity: Integrity{AllowErrors: true}})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"crash": "exited (exit status 139) during recall: boom: segmentation fault",
				"hang": "did not answer recall within 300ms", "garbage": "wrote garbage in reply to recall"}[mode]
			episodes := map[string]bool{}
			for _, s := range res.Samples {
				episodes[s.Episode] = true
				if !strings.Contains(s.Error, "mem0 sidecar: ") || !strings.Contains(s.Error, "npm ci") {
					t.Errorf("%s: error %q does not name the system and how to install it", s.Key(), s.Error)
				}
			}
			if len(episodes) != 2 {
				t.Fatalf("samples of %d episodes, want 2", len(episodes))
			}
			// The first question of each episode meets the failure itself
			// (so each episode had a working process); the later ones
			// fail at once with the same error.
			first := map[string]bool{}
			for _, s := range res.Samples {
				if !first[s.Episode] {
					first[s.Episode] = true
					if !strings.Contains(s.Error, want) {
						t.Errorf("%s: error %q, want %q", s.Key(), s.Error, want)
					}
				}
			}
		})
	}
}
