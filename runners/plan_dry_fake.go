package runners

// A dry run's fake endpoints: speaking openaifake servers, one per role,
// whose chat usage is rewritten to exact Qwen3 prompt counts and the
// requests' max_tokens.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// dryEnv holds a dry run's fake endpoints, one per role (and embedding
// dimension and prompt set), shared by the models of a multi-model run.
type dryEnv struct {
	mu    sync.Mutex
	fakes map[string]*dryFake
}

func (e *dryEnv) close() {
	for _, f := range e.fakes {
		f.close()
	}
}

func (e *dryEnv) fake(key string, mk func() *dryFake) *dryFake {
	e.mu.Lock()
	defer e.mu.Unlock()
	if f := e.fakes[key]; f != nil {
		return f
	}
	f := mk()
	e.fakes[key] = f
	return f
}

// fakeConfig copies cfg with every remote role pointed at a fake (keeping
// the model name and the role's total capacity, so the run keeps as much in
// flight as the real one), the tokenizer offline, the cache off and results
// in dir.
func (e *dryEnv) fakeConfig(cfg *config.Config, dir string) *config.Config {
	c := *cfg
	c.Run.Results, c.Run.Progress, c.Run.Verbose = dir, false, false
	c.Cache.Enabled, c.Cache.Dir = false, filepath.Join(dir, ".cache")
	for _, role := range dryRoles {
		r := c.Models.Role(role)
		if r.Local() {
			continue
		}
		dim := r.Dim
		if role == "embed" && dim <= 0 {
			dim = 1024
		}
		f := e.fake(role+"/"+strconv.Itoa(dim), func() *dryFake { return newDryFake(dim) })
		r.Endpoints = []config.Endpoint{{URL: f.URL, Model: r.Endpoints[0].Model, MaxInflight: capacity(*r), Timeout: time.Minute}}
	}
	if !c.Models.Tokenizer.Local() {
		c.Models.Tokenizer = config.Role{Provider: "qwen3"}
	}
	return &c
}

// dryFake is a speaking openaifake server (package fake: every prompt answered
// with what the offline rules compute from it, embeddings and reranks from
// the offline providers, so the run takes the paths a real one takes) whose
// chat usage is rewritten: prompt tokens become exact Qwen3 counts and
// completion tokens the request's max_tokens (the fake itself counts words).
type dryFake struct {
	URL     string
	inner   *openaifake.Server
	front   *httptest.Server
	counter tokens.Counter
}

func newDryFake(dim int) *dryFake {
	sp, err := fake.New(fake.Options{Dim: dim})
	if err != nil {
		panic(err) // only the embedded prompts are read: a failure is a build bug
	}
	f := &dryFake{inner: openaifake.New(sp.Install(openaifake.Options{})), counter: tokens.Default()}
	f.front = httptest.NewServer(f)
	f.URL = f.front.URL
	return f
}

func (f *dryFake) close() {
	f.front.Close()
	f.inner.Close()
}

// ServeHTTP passes requests to the fake, rewriting chat usage.
func (f *dryFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		f.inner.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		Messages  []openaifake.Message `json:"messages"`
		MaxTokens int                  `json:"max_tokens"`
	}
	_ = json.Unmarshal(body, &req) // the fake itself reports a malformed body
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	f.inner.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(RewriteUsage(rec.Body.Bytes(), ChatPromptTokens(f.counter, req.Messages), req.MaxTokens))
}

// ChatPromptTokens is a chat request's prompt length under Qwen3's chat
// template: each message is "<|im_start|>role\n" + content + "<|im_end|>\n"
// (5 tokens besides the content) and the reply opens with
// "<|im_start|>assistant\n" (3 tokens).
func ChatPromptTokens(c tokens.Counter, msgs []openaifake.Message) int {
	n := 3
	for _, m := range msgs {
		n += 5 + c.Count(m.Content)
	}
	return n
}

// RewriteUsage sets the usage of a chat completion reply, streamed (SSE
// "data:" events) or whole (one JSON object): prompt_tokens to prompt,
// completion_tokens to completion when it is positive, and total_tokens to
// their sum. Anything it cannot parse is passed through unchanged.
func RewriteUsage(body []byte, prompt, completion int) []byte {
	fix := func(js []byte) []byte {
		var m map[string]json.RawMessage
		if json.Unmarshal(js, &m) != nil {
			return js
		}
		var u map[string]int
		if raw, ok := m["usage"]; !ok || json.Unmarshal(raw, &u) != nil || u == nil {
			return js
		}
		u["prompt_tokens"] = prompt
		if completion > 0 {
			u["completion_tokens"] = completion
		}
		u["total_tokens"] = u["prompt_tokens"] + u["completion_tokens"]
		m["usage"], _ = json.Marshal(u)
		out, err := json.Marshal(m)
		if err != nil {
			return js
		}
		return out
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return fix(trimmed)
	}
	lines := bytes.Split(body, []byte("\n"))
	for i, l := range lines {
		if rest, ok := bytes.CutPrefix(l, []byte("data: ")); ok && bytes.Contains(rest, []byte(`"usage"`)) {
			lines[i] = append([]byte("data: "), fix(rest)...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}
