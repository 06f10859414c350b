package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// answer.enable_thinking reaches every chat and judge call, not only the
// answers that set it themselves: a memory operation's request carries it.
func TestEnableThinkingReachesEveryChatCall(t *testing.T) {
	f := openaifake.New(openaifake.Options{Thinking: true})
	defer f.Close()
	for _, c := range []struct {
		extra string
		think bool
	}{{"", true}, {"answer: {enable_thinking: false}\n", false}, {"answer: {enable_thinking: true}\n", true}} {
		set := newSet(t, testConfig(t, allRolesYAML(f.URL, t.TempDir(), "")+c.extra))
		for _, cl := range []llm.Client{set.Chat, set.Judge} {
			resp, err := cl.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hi"}}, Purpose: "node_metadata"})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(resp.Content, "<think>"); got != c.think {
				t.Errorf("%q: reply %q, thinking %v, want %v", c.extra, resp.Content, got, c.think)
			}
		}
	}
}
