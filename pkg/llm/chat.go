package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/arbor-eval/arbor/pkg/config"
)

// ChatClient talks to one OpenAI-compatible chat endpoint (vLLM, SGLang,
// llama.cpp, Ollama). Every call is streamed with
// stream_options.include_usage, so time to first token, total latency and
// token usage all come from one request.
//
// Requests are built by go-openai v1.43.0; the openaiDoer under it writes
// `temperature` (always, even 0), `top_p` and `top_k` into the body, which
// go-openai cannot (omitempty floats, no top_k). Chunks are read with
// go-openai's RecvRaw and decoded here, because its delta type has no
// `reasoning` field, which is where current vLLM streams thinking text
// (vllm-project/vllm vllm/entrypoints/openai/engine/protocol.py, DeltaMessage:
// `reasoning`, with the deprecated copy `reasoning_content`). Keeping
// go-openai for the request and the SSE framing, rather than hand-rolling
// both over net/http, keeps its error-event handling and request types.
type ChatClient struct {
	oc    *openai.Client
	model string
	url   string
	key   string // only to redact it from error messages
}

// NewChatClient returns a client for ep sharing hc's connections.
func NewChatClient(ep config.Endpoint, hc *http.Client) *ChatClient {
	return &ChatClient{oc: newOpenAI(ep, hc), model: ep.Model, url: DisplayURL(ep.URL), key: ep.APIKey.Reveal()}
}

// newOpenAI builds a go-openai client for ep; the key only ever reaches the
// Authorization header (go-openai's setCommonHeaders).
func newOpenAI(ep config.Endpoint, hc *http.Client) *openai.Client {
	oc := openai.DefaultConfig(ep.APIKey.Reveal())
	oc.BaseURL = serverRoot(ep.URL) + "/v1"
	oc.HTTPClient = openaiDoer{hc: hc, query: endpointQuery(ep.URL)}
	return openai.NewClientWithConfig(oc)
}

// Chat sends req and reads the whole stream.
func (c *ChatClient) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	resp, err := c.chat(ctx, req)
	if err != nil {
		return resp, redact(err, c.key)
	}
	resp.Endpoint = c.url
	return resp, nil
}

func (c *ChatClient) chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	oreq, patch, err := c.request(req)
	if err != nil {
		return ChatResponse{}, err
	}
	ex := &exchange{patch: patch}
	ctx = withExchange(ctx, ex)
	st := chatStream{start: time.Now(), onDelta: req.OnDelta}
	stream, err := c.oc.CreateChatCompletionStream(ctx, oreq)
	if err != nil {
		return ChatResponse{}, openaiErr(ctx, ex, err)
	}
	defer stream.Close()
	if ex.stream == nil {
		return ChatResponse{}, malformed("reply is not an event stream (content-type %q)", stream.Header().Get("Content-Type"))
	}
	for {
		raw, err := stream.RecvRaw()
		if err == io.EOF {
			break
		}
		if err != nil {
			return ChatResponse{}, streamErr(ctx, err)
		}
		if err := st.add(raw, time.Now()); err != nil {
			return ChatResponse{}, err
		}
	}
	return st.finish(ex.stream.done, time.Now())
}

// request maps req onto go-openai's type plus the body fields go-openai
// cannot express.
func (c *ChatClient) request(req ChatRequest) (openai.ChatCompletionRequest, map[string]any, error) {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionRequest{}, nil, fmt.Errorf("%w: no messages", ErrBadRequest)
	}
	msgs := make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	o := openai.ChatCompletionRequest{
		Model:              c.model,
		Messages:           msgs,
		MaxTokens:          req.MaxTokens,
		Seed:               req.Seed,
		Stop:               req.Stop,
		ChatTemplateKwargs: req.ChatTemplateKwargs,
		Stream:             true,
		StreamOptions:      &openai.StreamOptions{IncludeUsage: true},
	}
	switch req.ResponseFormat {
	case "", "text":
	case "json_object":
		o.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	case "json_schema":
		if !json.Valid(req.JSONSchema) {
			return o, nil, fmt.Errorf("%w: response_format json_schema needs a valid JSON schema in JSONSchema", ErrBadRequest)
		}
		o.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "response", Schema: json.RawMessage(req.JSONSchema), Strict: true},
		}
	default:
		return o, nil, fmt.Errorf("%w: response_format %q is not one of json_object, json_schema", ErrBadRequest, req.ResponseFormat)
	}
	// Sent as float64 from our own values: go-openai's float32 fields would
	// drop 0 and turn 0.7 into 0.699999988.
	patch := map[string]any{"temperature": req.Temperature}
	if req.TopP != nil {
		patch["top_p"] = *req.TopP
	}
	if req.TopK != nil {
		patch["top_k"] = *req.TopK
	}
	return o, patch, nil
}

// openaiErr classifies an error from a go-openai call using what the doer saw.
func openaiErr(ctx context.Context, ex *exchange, err error) error {
	if errors.Is(err, ErrBadRequest) {
		return err
	}
	if ex.status >= 300 {
		msg := err.Error()
		var ae *openai.APIError
		var re *openai.RequestError
		switch {
		case errors.As(err, &ae):
			msg = ae.Message
		case errors.As(err, &re):
			msg = strings.TrimSpace(string(re.Body))
		}
		se := statusError(ex.status, nil, []byte(msg))
		se.RetryAfter = ex.retryAfter
		return se
	}
	if !ex.sent {
		// go-openai refused to build the request (its model checks).
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return transportErr(ctx, err)
}

// replyErr classifies an error from a go-openai call that decodes a whole
// JSON reply: after a 2xx the body did not decode (ErrMalformed, named by
// what); otherwise as openaiErr.
func replyErr(ctx context.Context, ex *exchange, what string, err error) error {
	if ex.status >= 200 && ex.status < 300 {
		return malformed("%s: %v", what, err)
	}
	return openaiErr(ctx, ex, err)
}

// streamErr classifies an error from RecvRaw.
func streamErr(ctx context.Context, err error) error {
	var ae *openai.APIError
	switch {
	case ctx.Err() != nil:
		return transportErr(ctx, err)
	case errors.As(err, &ae):
		return malformed("error event in stream: %s", ae.Message)
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return malformed("too many non-data lines in stream")
	}
	return transportErr(ctx, err)
}

// streamChunk is one `data:` payload of a streamed chat completion.
type streamChunk struct {
	Object  string `json:"object"`
	Message string `json:"message"` // older vLLM error events: {"object":"error","message":...}
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string `json:"content"`
			Reasoning        string `json:"reasoning"`
			ReasoningContent string `json:"reasoning_content"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// chatStream accumulates chunks into a ChatResponse.
type chatStream struct {
	start      time.Time
	onDelta    func(string)
	content    strings.Builder
	reasoning  strings.Builder
	resp       ChatResponse
	chunks     int
	sawChoice  bool
	firstToken bool
}

func (s *chatStream) add(raw []byte, now time.Time) error {
	var ch streamChunk
	if err := json.Unmarshal(raw, &ch); err != nil {
		return malformed("stream chunk %d: %v", s.chunks, err)
	}
	s.chunks++
	if ch.Object == "error" {
		return malformed("error event in stream: %s", ch.Message)
	}
	if ch.Model != "" {
		s.resp.Model = ch.Model
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // arbor always asks for n=1
		}
		s.sawChoice = true
		// vLLM fills both fields with the same text; older servers only
		// the second.
		r := c.Delta.Reasoning
		if r == "" {
			r = c.Delta.ReasoningContent
		}
		if !s.firstToken && (c.Delta.Content != "" || r != "") {
			s.firstToken = true
			s.resp.TTFT = now.Sub(s.start)
		}
		s.content.WriteString(c.Delta.Content)
		s.reasoning.WriteString(r)
		if s.onDelta != nil && c.Delta.Content != "" {
			s.onDelta(c.Delta.Content)
		}
		if c.FinishReason != "" {
			s.resp.FinishReason = c.FinishReason
		}
	}
	if ch.Usage != nil {
		s.resp.PromptTokens = ch.Usage.PromptTokens
		s.resp.CompletionTokens = ch.Usage.CompletionTokens
	}
	return nil
}

func (s *chatStream) finish(done bool, now time.Time) (ChatResponse, error) {
	if !done {
		return ChatResponse{}, malformed("stream ended without data: [DONE] after %d chunks (truncated)", s.chunks)
	}
	if !s.sawChoice {
		return ChatResponse{}, malformed("stream of %d chunks had no choices", s.chunks)
	}
	s.resp.Content = s.content.String()
	s.resp.Reasoning = s.reasoning.String()
	s.resp.Latency = now.Sub(s.start)
	if !s.firstToken {
		s.resp.TTFT = s.resp.Latency
	}
	return s.resp, nil
}
