package runners

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// TestAPIKeyNeverReachesResults runs a chat-backed eval whose key comes from
// the environment and greps every file under the results folder (manifest,
// samples, episode records, tables, response cache) and everything printed.
func TestAPIKeyNeverReachesResults(t *testing.T) {
	const key = "sk-arbor-test-4f9c1e7d2b"
	t.Setenv("ARBOR_TEST_SECRET_KEY", key)
	fake := openaifake.New(openaifake.Options{Reply: func(openaifake.Request) string { return "the answer" }})
	defer fake.Close()
	cfg := testConfig(t, fmt.Sprintf(`models:
  chat:
    endpoints: [{url: %s, model: fake-model, max_inflight: 2, timeout: 20s, api_key_env: ARBOR_TEST_SECRET_KEY}]
answer: {answerer: chat}
baselines: {summaries: chat}
arbormem: {extractors: chat}
`, fake.URL))
	cfg.Run.Verbose = true
	if cfg.Models.Chat.Endpoints[0].APIKey.Reveal() != key {
		t.Fatal("the key was not read from the environment")
	}
	var out, log bytes.Buffer
	if _, err := Run(deadline(t), Plan{Benchmark: "branchmemeval", Limit: 1, Systems: []string{"summary", "arbormem"}, Config: cfg, Out: &out, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if got := fake.LastHeader("/v1/chat/completions").Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the key was not sent: Authorization %q", got)
	}
	files := 0
	err := filepath.WalkDir(cfg.Run.Results, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s contains the API key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Fatalf("only %d files under the results folder: the run wrote less than expected", files)
	}
	if strings.Contains(out.String()+log.String(), key) {
		t.Error("the API key was printed")
	}
}
