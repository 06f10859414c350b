package scoring

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/llm"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// fakeJudge is an in-test llm.Client: reply maps the prompt to a reply;
// every request is kept.
type fakeJudge struct {
	mu    sync.Mutex
	reqs  []llm.ChatRequest
	reply func(prompt string) string
	fail  bool
}

func (f *fakeJudge) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.fail {
		return llm.ChatResponse{}, errors.New("endpoint down")
	}
	return llm.ChatResponse{Content: f.reply(req.Messages[len(req.Messages)-1].Content)}, nil
}

func (f *fakeJudge) prompts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.reqs {
		out = append(out, r.Messages[len(r.Messages)-1].Content)
	}
	return out
}

func always(s string) func(string) string { return func(string) string { return s } }

// qTime is the date test questions are asked on; qDate its rendering.
var (
	qTime = time.Date(2023, 5, 20, 14, 30, 0, 0, time.UTC)
	qDate = "2023/05/20 (Sat) 14:30"
)
