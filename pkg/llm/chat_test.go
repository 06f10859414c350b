package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

func ptr[T any](v T) *T { return &v }

func endpoint(url string) config.Endpoint {
	return config.Endpoint{URL: url, Model: "fake-model", MaxInflight: 4, Timeout: 5 * time.Second}
}

func TestChatStreamMeasuresAndCapturesReasoning(t *testing.T) {
	const first, per = 40 * time.Millisecond, 5 * time.Millisecond
	fake := openaifake.New(openaifake.Options{FirstTokenLatency: first, TokenLatency: per,
		Replies: []string{"one two three four"}, Reasoning: "let me think"})
	defer fake.Close()
	c := NewChatClient(endpoint(fake.URL), NewHTTPClient())
	msgs := []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "count to four"}}
	resp, err := c.Chat(context.Background(), ChatRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "one two three four" || resp.Reasoning != "let me think" {
		t.Errorf("content %q reasoning %q", resp.Content, resp.Reasoning)
	}
	// 3 reasoning + 4 content tokens: the first after `first`, six more `per` apart.
	if resp.TTFT < first || resp.Latency < first+6*per || resp.TTFT > resp.Latency {
		t.Errorf("ttft %v latency %v: want ttft ≥ %v, latency ≥ %v, ttft ≤ latency", resp.TTFT, resp.Latency, first, first+6*per)
	}
	wantPrompt := openaifake.PromptTokens([]openaifake.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "count to four"}})
	if resp.PromptTokens != wantPrompt || resp.CompletionTokens != 7 {
		t.Errorf("usage %d/%d, want %d/7", resp.PromptTokens, resp.CompletionTokens, wantPrompt)
	}
	if resp.FinishReason != "stop" || resp.Model != "fake-model" || resp.Endpoint != fake.URL || resp.Cached {
		t.Errorf("finish %q model %q endpoint %q cached %v", resp.FinishReason, resp.Model, resp.Endpoint, resp.Cached)
	}
}

func TestChatSendsEveryParameter(t *testing.T) {
	fake := openaifake.New(openaifake.Options{})
	defer fake.Close()
	c := NewChatClient(endpoint(fake.URL), NewHTTPClient())
	schema := []byte(`{"type":"object","properties":{"answer":{"type":"string"}}}`)
	cases := []struct {
		name  string
		req   ChatRequest
		check map[string]string // field → exact JSON
	}{
		{"temperature zero is sent", ChatRequest{Temperature: 0},
			map[string]string{"temperature": `0`, "stream": `true`, "stream_options": `{"include_usage":true}`}},
		{"float64 values survive", ChatRequest{Temperature: 0.7, TopP: ptr(0.8), TopK: ptr(20), MaxTokens: 512, Seed: ptr(42)},
			map[string]string{"temperature": `0.7`, "top_p": `0.8`, "top_k": `20`, "max_tokens": `512`, "seed": `42`}},
		{"stop, template kwargs and json_object", ChatRequest{Stop: []string{"\n\n"}, ResponseFormat: "json_object",
			ChatTemplateKwargs: map[string]any{"enable_thinking": false}},
			map[string]string{"stop": `["\n\n"]`, "response_format": `{"type":"json_object"}`, "chat_template_kwargs": `{"enable_thinking":false}`}},
		{"json_schema", ChatRequest{ResponseFormat: "json_schema", JSONSchema: schema},
			map[string]string{"response_format": `{"json_schema":{"name":"response","schema":` + string(schema) + `,"strict":true},"type":"json_schema"}`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Messages = []Message{{Role: "user", Content: "hi"}}
			if _, err := c.Chat(context.Background(), tc.req); err != nil {
				t.Fatal(err)
			}
			bodies := fake.Bodies("/v1/chat/completions")
			body := bodies[len(bodies)-1]
			var got map[string]json.RawMessage
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.check {
				g, err := compactJSON(got[k])
				w, _ := compactJSON([]byte(want))
				if err != nil || g != w {
					t.Errorf("%s = %s, want %s (body %s)", k, got[k], want, body)
				}
			}
			if tc.req.Temperature == 0 && !strings.Contains(string(body), `"temperature":0`) {
				t.Errorf("body does not contain \"temperature\":0: %s", body)
			}
		})
	}
}

func compactJSON(b []byte) (string, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	return string(out), err
}

func TestChatRefusesBadRequests(t *testing.T) {
	c := NewChatClient(endpoint("http://127.0.0.1:1"), NewHTTPClient())
	for _, req := range []ChatRequest{
		{},
		{Messages: []Message{{Role: "user", Content: "x"}}, ResponseFormat: "yaml"},
		{Messages: []Message{{Role: "user", Content: "x"}}, ResponseFormat: "json_schema", JSONSchema: []byte("{")},
	} {
		if _, err := c.Chat(context.Background(), req); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%+v: err %v, want ErrBadRequest", req, err)
		}
	}
}

// stubTransport replies with a fixed body, whatever the request.
type stubTransport struct {
	status      int
	contentType string
	body        string
	header      http.Header
}

func (s stubTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {s.contentType}}
	for k, v := range s.header {
		h[k] = v
	}
	return &http.Response{StatusCode: s.status, Header: h, Body: io.NopCloser(strings.NewReader(s.body)), Request: r}, nil
}

func stubChat(st stubTransport) *ChatClient {
	return NewChatClient(endpoint("http://stub"), &http.Client{Transport: st})
}

const (
	okChunk    = `data: {"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}` + "\n\n"
	endChunk   = `data: {"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	usageChunk = `data: {"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}` + "\n\n"
	done       = "data: [DONE]\n\n"
)

func TestChatStreamReplies(t *testing.T) {
	sse := "text/event-stream"
	cases := []struct {
		name    string
		st      stubTransport
		want    string
		wantErr error
	}{
		{"complete", stubTransport{200, sse, okChunk + endChunk + usageChunk + done, nil}, "hi", nil},
		{"done without newline", stubTransport{200, sse, okChunk + endChunk + "data: [DONE]", nil}, "hi", nil},
		{"keep-alive comments", stubTransport{200, sse, ": ping\n\n" + okChunk + done, nil}, "hi", nil},
		{"truncated before done", stubTransport{200, sse, okChunk + endChunk, nil}, "", ErrMalformed},
		{"cut mid-chunk", stubTransport{200, sse, okChunk + `data: {"choices":[{"ind`, nil}, "", ErrMalformed},
		{"invalid json", stubTransport{200, sse, "data: {nope}\n\n" + done, nil}, "", ErrMalformed},
		{"no choices at all", stubTransport{200, sse, usageChunk + done, nil}, "", ErrMalformed},
		{"empty body", stubTransport{200, sse, "", nil}, "", ErrMalformed},
		{"error event", stubTransport{200, sse, okChunk + `data: {"error":{"message":"engine died","code":500}}` + "\n\n", nil}, "", ErrMalformed},
		{"old vllm error event", stubTransport{200, sse, `data: {"object":"error","message":"boom"}` + "\n\n" + done, nil}, "", ErrMalformed},
		{"not a stream", stubTransport{200, "application/json", `{"choices":[]}`, nil}, "", ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := stubChat(tc.st).Chat(context.Background(), ChatRequest{Messages: []Message{{Role: "user", Content: "x"}}})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				if ok, _ := Retryable(err); !ok {
					t.Errorf("%v should be retryable", err)
				}
				return
			}
			if err != nil || resp.Content != tc.want {
				t.Fatalf("got %q, %v; want %q", resp.Content, err, tc.want)
			}
		})
	}
}

func TestChatStatusErrors(t *testing.T) {
	cases := []struct {
		status    int
		header    http.Header
		retryable bool
		after     time.Duration
	}{
		{400, nil, false, 0},
		{401, nil, false, 0},
		{404, nil, false, 0},
		{422, nil, false, 0},
		{429, http.Header{"Retry-After": {"2"}}, true, 2 * time.Second},
		{500, nil, true, 0},
		{503, http.Header{"Retry-After": {"0.5"}}, true, 500 * time.Millisecond},
	}
	for _, tc := range cases {
		body := `{"error":{"message":"nope","type":"X","code":` + strconv.Itoa(tc.status) + `}}`
		_, err := stubChat(stubTransport{tc.status, "application/json", body, tc.header}).
			Chat(context.Background(), ChatRequest{Messages: []Message{{Role: "user", Content: "x"}}})
		var se *StatusError
		if !errors.As(err, &se) || se.Code != tc.status {
			t.Errorf("%d: err %v, want StatusError", tc.status, err)
			continue
		}
		if ok, after := Retryable(err); ok != tc.retryable || after != tc.after {
			t.Errorf("%d: retryable %v after %v, want %v %v", tc.status, ok, after, tc.retryable, tc.after)
		}
	}
}

func TestChatConnectionRefusedIsTransport(t *testing.T) {
	fake := openaifake.New(openaifake.Options{})
	url := fake.URL
	fake.Close()
	_, err := NewChatClient(endpoint(url), NewHTTPClient()).Chat(context.Background(), ChatRequest{Messages: []Message{{Role: "user", Content: "x"}}})
	if !errors.Is(err, ErrTransport) {
		t.Fatalf("err %v, want ErrTransport", err)
	}
}

func FuzzChatStream(f *testing.F) {
	f.Add(okChunk + endChunk + usageChunk + done)
	f.Add(okChunk + `data: {"choices":[{"index":0,"delta":{"reasoning":"r","reasoning_content":"r"}}]}` + "\n\n" + done)
	f.Add("data: {\"choices\": null}\n\ndata: [DONE]\n")
	f.Add("event: x\ndata: \n\n")
	f.Add(strings.Repeat("\n", 400))
	f.Fuzz(func(t *testing.T, body string) {
		resp, err := stubChat(stubTransport{200, "text/event-stream", body, nil}).
			Chat(context.Background(), ChatRequest{Messages: []Message{{Role: "user", Content: "x"}}})
		if err == nil && (resp.TTFT > resp.Latency || resp.Latency < 0) {
			t.Fatalf("ttft %v > latency %v", resp.TTFT, resp.Latency)
		}
		if err != nil {
			if ok, _ := Retryable(err); !ok {
				t.Fatalf("a bad stream must be a retryable error, got %v", err)
			}
		}
	})
}
