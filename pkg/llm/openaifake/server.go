// Package openaifake is a fake OpenAI-compatible model server, used by the
// tests, by `arbor fake-endpoint`, `arbor perf` and dry-run plans: chat completions (streamed and not), embeddings, rerank in vLLM's
// and TEI's shapes, vLLM's /tokenize, /v1/models and /health. Replies are
// scripted or rule-based, latencies configurable, and faults (error codes,
// hangs, truncated or garbled bodies, dropped connections) can be injected by
// seeded rate or by request index. It counts requests and concurrent
// requests, and keeps the last request bodies for assertions.
//
// Wire shapes follow vLLM's OpenAI-compatible server
// (vllm-project/vllm: vllm/entrypoints/openai/engine/protocol.py,
// vllm/entrypoints/pooling/score/protocol.py,
// vllm/entrypoints/serve/tokenize/protocol.py) and TEI
// (huggingface/text-embeddings-inference router/src/http/types.rs).
package openaifake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// Fault is an injected failure.
type Fault int

// Faults. Truncate ends the body cleanly halfway (a stream without its
// `data: [DONE]`, half a JSON document); Drop closes the connection without
// replying; Hang replies only after Options.Hang (or never, if the client
// gives up first).
const (
	None Fault = iota
	Status500
	Status429
	Status400
	Hang
	Truncate
	Malformed
	Drop
)

var faultNames = []string{"none", "500", "429", "400", "hang", "truncate", "malformed", "drop"}

// String is the fault's name as ParseFault and --fail-kinds read it.
func (f Fault) String() string {
	if f >= 0 && int(f) < len(faultNames) {
		return faultNames[f]
	}
	return fmt.Sprintf("fault(%d)", int(f))
}

// ParseFault reads a fault name as printed by String.
func ParseFault(s string) (Fault, error) {
	for i, n := range faultNames {
		if n == s {
			return Fault(i), nil
		}
	}
	return None, fmt.Errorf("fault %q is not one of %s", s, strings.Join(faultNames, ", "))
}

// DefaultFaults are the kinds a FaultRate draws from when FaultKinds is empty.
var DefaultFaults = []Fault{Status500, Hang, Truncate, Drop}

// Request is a decoded chat request, as handed to Options.Reply.
type Request struct {
	Model          string
	Messages       []Message
	MaxTokens      int
	Stream         bool
	ResponseFormat string
	Body           []byte
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Options configure a fake server. The zero value is a fast, faultless,
// echoing server.
type Options struct {
	// Model is the served model id ("fake-model").
	Model string
	// Dim is the embedding dimension (16).
	Dim int
	// FirstTokenLatency passes before a chat's first token, and before
	// any other API reply.
	FirstTokenLatency time.Duration
	// TokenLatency passes between chat tokens (one token = one word).
	TokenLatency time.Duration
	// Reply scripts chat replies; when nil, Replies are used in order,
	// then the default: "echo: <last user message>" (as a JSON object
	// {"answer": ...} when a JSON response format is asked for).
	Reply   func(Request) string
	Replies []string
	// Speak, when set, is asked first: it answers the prompts it knows
	// (ok true) and leaves the others to Reply, Replies or the default. A
	// speaking fake (fake) plugs in here.
	Speak func(Request) (reply string, ok bool)
	// Embed, when set, computes the embeddings instead of Vector (one
	// vector per text, in order); Rerank, when set, scores the documents
	// instead of Score (one score per document, in order). A speaking fake
	// (fake) plugs the offline providers in here.
	Embed  func(texts []string) [][]float32
	Rerank func(query string, docs []string) []float64
	// Reasoning, if set, is streamed as reasoning deltas before the reply.
	Reasoning string
	// FaultRate is the probability that an API request fails with one of
	// FaultKinds (DefaultFaults), drawn from a generator seeded by FaultSeed.
	FaultRate  float64
	FaultSeed  uint64
	FaultKinds []Fault
	// FaultAt forces a fault on the API request of that 0-based index
	// (chat, embeddings, rerank and tokenize requests share the count).
	FaultAt map[int]Fault
	// RetryAfter is the Retry-After header sent with 429 ("1").
	RetryAfter string
	// Hang is how long a hanging request hangs (1 minute).
	Hang time.Duration
	// MaxModelLen is reported by /v1/models and /tokenize (40960).
	MaxModelLen int
	// KeepBodies is how many request bodies are kept per path (32).
	KeepBodies int
	// CountPrompt counts the tokens of a /tokenize prompt (CountTokens,
	// one per word, when nil), e.g. to stand in for a server whose
	// tokenizer is the exact offline Qwen3 counter.
	CountPrompt func(string) int

	// The realistic switches below reproduce what a first real server
	// gets wrong (arbor doctor detects each one); their zero values keep
	// the fake as it always was.

	// RerankScale is the scale of rerank scores: "" (RerankLexical) returns
	// the scorer's relevance in [0, 1] as it is, whatever is asked;
	// RerankAsAsked maps it onto a cross-encoder's logit scale
	// (CrossEncoderLogit, about −10…+10) and returns the logit where raw
	// scores are asked for (TEI's raw_scores) and its sigmoid elsewhere
	// (vLLM's relevance_score), as BGE-Reranker-v2-M3 served by either does;
	// RerankProbability always returns the sigmoid (a TEI server that
	// ignores raw_scores) and RerankLogit always the logit (a vLLM server
	// whose pooler has no sigmoid).
	RerankScale string
	// Thinking makes chat replies open with a Qwen3 thinking block
	// ("<think>…</think>", in the content, as vLLM without a reasoning
	// parser returns it) unless the request turns it off with
	// chat_template_kwargs {"enable_thinking": false}.
	Thinking bool
	// EmbedUnnormalised scales every embedding to a norm between 2 and 6
	// (by the text's hash), as a server without L2 normalisation returns.
	EmbedUnnormalised bool
	// TokenizerSkew multiplies the /tokenize count of a prompt by
	// (1 + TokenizerSkew), rounded: a server tokenizer other than the
	// local Qwen3 counter.
	TokenizerSkew float64
}

// The rerank scales (Options.RerankScale).
const (
	RerankLexical     = ""
	RerankAsAsked     = "auto"
	RerankProbability = "probability"
	RerankLogit       = "logit"
)

// ParseRerankScale reads a --rerank-scale value ("lexical" names the zero value).
func ParseRerankScale(s string) (string, error) {
	switch s {
	case "lexical":
		return RerankLexical, nil
	case RerankAsAsked, RerankProbability, RerankLogit:
		return s, nil
	}
	return "", fmt.Errorf("rerank scale %q: want auto, probability, logit or lexical", s)
}

// CrossEncoderLogit maps a relevance share in [0, 1] onto the logit scale of
// a cross-encoder such as BGE-Reranker-v2-M3, whose raw scores run from
// about −10 (unrelated) to +10 (the passage answers the query), on which the
// paper's τ = 8 is stated. It is monotone, so the order of documents is
// kept, and concave (share^0.25): a cross-encoder scores a passage on the
// query's topic well above an unrelated one even when few words are shared,
// while a lexical share is low for any follow-up turn. A passage sharing a
// tenth of the query's weight scores about +1, half about +7, the whole
// query (a lexical share of about 0.86) about +9. (Linear in the share, the
// paper's defaults still start a new root at about half the turns of
// BranchMemEval, where a tenth open a branch.)
func CrossEncoderLogit(share float64) float64 {
	share = math.Max(0, math.Min(1, share))
	return crossEncoderLow + (crossEncoderHigh-crossEncoderLow)*math.Pow(share, crossEncoderGamma)
}

// The ends of CrossEncoderLogit's scale.
const (
	crossEncoderLow   = -10.0
	crossEncoderHigh  = 10.0
	crossEncoderGamma = 0.25
)

// ThinkingBlock is what Options.Thinking puts before every reply.
const ThinkingBlock = "<think>\nThe user asks for a reply. Let me think about what the prompt wants and answer in its format.\n</think>\n\n"

// Stats counts requests.
type Stats struct {
	Requests      int64
	Current       int64
	MaxConcurrent int64
}

// Server is a running fake.
type Server struct {
	// URL is the server's base URL (no trailing slash, no /v1).
	URL string

	opts    Options
	hs      *httptest.Server
	seq     atomic.Int64
	mu      sync.Mutex
	rng     *rand.Rand
	replies []string
	total   Stats
	paths   map[string]*Stats
	bodies  map[string][][]byte
	headers map[string]http.Header
	faults  map[Fault]int64
}

// New starts a fake on a loopback port; Close stops it.
func New(opts Options) *Server {
	s := newServer(opts)
	s.hs = httptest.NewUnstartedServer(s)
	s.hs.Config.ErrorLog = log.New(io.Discard, "", 0) // dropped connections are the point, not news
	s.hs.Start()
	s.URL = s.hs.URL
	return s
}

// Serve runs a fake on addr until ctx ends; it prints its URL to logw.
func Serve(ctx context.Context, addr string, opts Options, logw io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("fake endpoint: %w", err)
	}
	s := newServer(opts)
	s.URL = "http://" + ln.Addr().String()
	hs := &http.Server{Handler: s, ErrorLog: log.New(io.Discard, "", 0), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	fmt.Fprintf(logw, "fake OpenAI-compatible endpoint on %s (model %q)\n", s.URL, s.opts.Model)
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func newServer(opts Options) *Server {
	if opts.Model == "" {
		opts.Model = "fake-model"
	}
	if opts.Dim <= 0 {
		opts.Dim = 16
	}
	if len(opts.FaultKinds) == 0 {
		opts.FaultKinds = DefaultFaults
	}
	if opts.RetryAfter == "" {
		opts.RetryAfter = "1"
	}
	if opts.Hang <= 0 {
		opts.Hang = time.Minute
	}
	if opts.MaxModelLen <= 0 {
		opts.MaxModelLen = 40960
	}
	if opts.KeepBodies <= 0 {
		opts.KeepBodies = 32
	}
	return &Server{
		opts: opts, rng: rand.New(rand.NewPCG(opts.FaultSeed, 0x11a7e57)), replies: append([]string(nil), opts.Replies...),
		paths: map[string]*Stats{}, bodies: map[string][][]byte{}, headers: map[string]http.Header{}, faults: map[Fault]int64{},
	}
}

// Close stops a server made by New, cutting open connections.
func (s *Server) Close() {
	if s.hs != nil {
		s.hs.CloseClientConnections()
		s.hs.Close()
	}
}

// Stats counts API requests (chat, embeddings, rerank, tokenize) together.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// PathStats counts the requests to one path ("/v1/chat/completions").
func (s *Server) PathStats(path string) Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.paths[path]; p != nil {
		return *p
	}
	return Stats{}
}

// Bodies returns the last request bodies sent to path, oldest first.
func (s *Server) Bodies(path string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies[path]...)
}

// LastHeader returns the headers of the last request to path.
func (s *Server) LastHeader(path string) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[path].Clone()
}

// Injected counts the faults injected so far, by kind.
func (s *Server) Injected() map[Fault]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[Fault]int64{}
	for k, v := range s.faults {
		out[k] = v
	}
	return out
}

// ServeHTTP routes a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/health":
		s.count(r.URL.Path, nil, r.Header)
		w.WriteHeader(http.StatusOK)
		return
	case "/v1/models":
		s.count(r.URL.Path, nil, r.Header)
		writeJSON(w, map[string]any{"object": "list", "data": []map[string]any{{
			"id": s.opts.Model, "object": "model", "created": 0, "owned_by": "openaifake", "max_model_len": s.opts.MaxModelLen,
		}}})
		return
	}
	var handle func(w http.ResponseWriter, r *http.Request, body []byte, f Fault, done func())
	switch r.URL.Path {
	case "/v1/chat/completions":
		handle = s.chat
	case "/v1/embeddings":
		handle = s.embeddings
	case "/v1/rerank", "/rerank":
		handle = s.rerank
	case "/tokenize":
		handle = s.tokenize
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	f := s.fault()
	done := s.enter(r.URL.Path, body, r.Header, f)
	defer done()
	switch f {
	case Status500:
		done()
		writeError(w, http.StatusInternalServerError, "injected server error")
		return
	case Status429:
		w.Header().Set("Retry-After", s.opts.RetryAfter)
		done()
		writeError(w, http.StatusTooManyRequests, "injected: too many requests")
		return
	case Status400:
		done()
		writeError(w, http.StatusBadRequest, "injected: bad request")
		return
	case Drop:
		done()
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case Hang:
		if !sleep(r.Context(), s.opts.Hang) {
			return
		}
	}
	handle(w, r, body, f, done)
}

// fault draws the fault for the next API request.
func (s *Server) fault() Fault {
	i := int(s.seq.Add(1) - 1)
	if f, ok := s.opts.FaultAt[i]; ok {
		return f
	}
	if s.opts.FaultRate <= 0 {
		return None
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rng.Float64() >= s.opts.FaultRate {
		return None
	}
	return s.opts.FaultKinds[s.rng.IntN(len(s.opts.FaultKinds))]
}

func (s *Server) count(path string, body []byte, h http.Header) *Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paths[path]
	if p == nil {
		p = &Stats{}
		s.paths[path] = p
	}
	p.Requests++
	s.headers[path] = h.Clone()
	if body != nil {
		keep := append(s.bodies[path], body)
		if len(keep) > s.opts.KeepBodies {
			keep = keep[len(keep)-s.opts.KeepBodies:]
		}
		s.bodies[path] = keep
	}
	return p
}

// enter counts an API request as started; the returned function (safe to
// call twice) counts it as finished. Handlers call it just before their
// last write: a client that has read the whole reply may already send its
// next request, and must not find this one still counted.
func (s *Server) enter(path string, body []byte, h http.Header, f Fault) func() {
	p := s.count(path, body, h)
	s.mu.Lock()
	s.total.Requests++
	for _, st := range []*Stats{p, &s.total} {
		st.Current++
		st.MaxConcurrent = max(st.MaxConcurrent, st.Current)
	}
	if f != None {
		s.faults[f]++
	}
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			p.Current--
			s.total.Current--
			s.mu.Unlock()
		})
	}
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// writeError replies in vLLM's error shape {"error": {message, type, code}}.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": http.StatusText(code), "code": code}})
	w.Write(b)
}

// finish writes the last bytes of a non-streamed reply, applying a
// Truncate or Malformed fault.
func finish(w http.ResponseWriter, v any, f Fault, done func()) {
	b, _ := json.Marshal(v)
	switch f {
	case Truncate:
		b = b[:len(b)/2]
	case Malformed:
		b = []byte(`{"object": "list", "data": [{"index": 0,, }`)
	}
	w.Header().Set("Content-Type", "application/json")
	done()
	w.Write(b)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte, f Fault, done func()) {
	var in struct {
		Model          string    `json:"model"`
		Messages       []Message `json:"messages"`
		MaxTokens      int       `json:"max_tokens"`
		Stream         bool      `json:"stream"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		ChatTemplateKwargs struct {
			EnableThinking *bool `json:"enable_thinking"`
		} `json:"chat_template_kwargs"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		done()
		writeError(w, http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	if len(in.Messages) == 0 {
		done()
		writeError(w, http.StatusBadRequest, "messages: at least one message is required")
		return
	}
	req := Request{Model: in.Model, Messages: in.Messages, MaxTokens: in.MaxTokens, Stream: in.Stream, Body: body}
	if in.ResponseFormat != nil {
		req.ResponseFormat = in.ResponseFormat.Type
	}
	text := strings.TrimSpace(s.reply(req))
	if s.opts.Thinking && (in.ChatTemplateKwargs.EnableThinking == nil || *in.ChatTemplateKwargs.EnableThinking) {
		text = ThinkingBlock + text
	}
	words := Tokens(text)
	finishReason := "stop"
	if in.MaxTokens > 0 && len(words) > in.MaxTokens {
		words, finishReason = words[:in.MaxTokens], "length"
	}
	if n := len(words); n > 0 {
		words[n-1] = strings.TrimRightFunc(words[n-1], unicode.IsSpace)
	}
	thoughts := strings.Fields(s.opts.Reasoning)
	usage := map[string]int{"prompt_tokens": PromptTokens(in.Messages), "completion_tokens": len(thoughts) + len(words)}
	usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
	id := fmt.Sprintf("chatcmpl-%d", s.seq.Load())
	if !in.Stream {
		if !sleep(r.Context(), s.opts.FirstTokenLatency+time.Duration(max(len(words)+len(thoughts)-1, 0))*s.opts.TokenLatency) {
			return
		}
		msg := map[string]any{"role": "assistant", "content": strings.Join(words, "")}
		if len(thoughts) > 0 {
			msg["reasoning"] = strings.Join(thoughts, " ")
			msg["reasoning_content"] = msg["reasoning"]
		}
		finish(w, map[string]any{"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": s.opts.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason}}, "usage": usage}, f, done)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	chunk := func(delta map[string]any, reason any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": s.opts.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": reason}}}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if f == Malformed {
		done()
		fmt.Fprint(w, "data: {\"choices\": [{\"delta\": \n\ndata: [DONE]\n\n")
		return
	}
	var deltas []map[string]any
	for i, t := range thoughts {
		deltas = append(deltas, map[string]any{"reasoning": spaced(t, i, len(thoughts)), "reasoning_content": spaced(t, i, len(thoughts))})
	}
	for _, t := range words {
		deltas = append(deltas, map[string]any{"content": t})
	}
	for i, d := range deltas {
		wait := s.opts.TokenLatency
		if i == 0 {
			wait = s.opts.FirstTokenLatency
		}
		if !sleep(r.Context(), wait) {
			return
		}
		if f == Truncate && i >= len(deltas)/2 {
			done()
			return
		}
		send(chunk(d, nil))
	}
	if len(deltas) == 0 && !sleep(r.Context(), s.opts.FirstTokenLatency) {
		return
	}
	if f == Truncate {
		done()
		return
	}
	send(chunk(map[string]any{}, finishReason))
	if in.StreamOptions != nil && in.StreamOptions.IncludeUsage {
		send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": s.opts.Model,
			"choices": []any{}, "usage": usage})
	}
	done()
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// spaced puts a space after every word but the last, so the deltas join
// back into the reply.
func spaced(w string, i, n int) string {
	if i < n-1 {
		return w + " "
	}
	return w
}

func (s *Server) reply(req Request) string {
	if s.opts.Speak != nil {
		if r, ok := s.opts.Speak(req); ok {
			return r
		}
	}
	if s.opts.Reply != nil {
		return s.opts.Reply(req)
	}
	s.mu.Lock()
	if len(s.replies) > 0 {
		r := s.replies[0]
		s.replies = s.replies[1:]
		s.mu.Unlock()
		return r
	}
	s.mu.Unlock()
	if r, ok := Mem0Reply(req); ok {
		return r
	}
	return EchoReply(req)
}

// EchoReply is the default reply: "echo: <last user message>", or
// {"answer": "<that>"} when a JSON response format was asked for.
func EchoReply(req Request) string {
	last := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	text := "echo: " + last
	if req.ResponseFormat == "json_object" || req.ResponseFormat == "json_schema" {
		b, _ := json.Marshal(map[string]string{"answer": text})
		return string(b)
	}
	return text
}

// Tokens splits a reply into the fake's completion tokens: one per word,
// each keeping the whitespace that follows it (the first also the
// whitespace before it), so the tokens join back into the reply with its
// line breaks, as a real model's stream does.
func Tokens(text string) []string {
	var out []string
	start, i := 0, 0
	for i < len(text) {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i == len(text) {
			break
		}
		for i < len(text) && !isSpace(text[i]) {
			i++
		}
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		out = append(out, text[start:i])
		start = i
	}
	return out
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// CountTokens is the fake's tokenizer: one token per whitespace-separated word.
func CountTokens(text string) int { return len(strings.Fields(text)) }

// PromptTokens is the fake's chat prompt count: words plus 4 per message
// (role and separators) plus 3 for the generation prompt.
func PromptTokens(msgs []Message) int {
	n := 3
	for _, m := range msgs {
		n += 4 + CountTokens(m.Content)
	}
	return n
}

// Vector is the fake's embedding of text: deterministic, not normalised.
func Vector(text string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.Float64()*2 - 1)
	}
	return v
}

// Score is the fake's relevance of doc to query: the share of the query's
// distinct lower-cased words found in doc, in [0, 1].
func Score(query, doc string) float64 {
	q := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(query)) {
		q[w] = true
	}
	if len(q) == 0 {
		return 0
	}
	d := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(doc)) {
		d[w] = true
	}
	hit := 0
	for w := range q {
		if d[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(q))
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request, body []byte, f Fault, done func()) {
	var in struct {
		Input json.RawMessage `json:"input"`
	}
	var texts []string
	if err := json.Unmarshal(body, &in); err != nil {
		done()
		writeError(w, http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	if err := json.Unmarshal(in.Input, &texts); err != nil {
		var one string
		if json.Unmarshal(in.Input, &one) != nil {
			done()
			writeError(w, http.StatusBadRequest, "input: expected a string or a list of strings")
			return
		}
		texts = []string{one}
	}
	if !sleep(r.Context(), s.opts.FirstTokenLatency) {
		return
	}
	// Reversed on purpose: clients must order by index, not by position.
	data := make([]any, 0, len(texts))
	tok := 0
	vecs := make([][]float32, len(texts))
	if s.opts.Embed != nil {
		vecs = s.opts.Embed(texts)
	}
	for i := len(texts) - 1; i >= 0; i-- {
		v := vecs[i]
		if s.opts.Embed == nil {
			v = Vector(texts[i], s.opts.Dim)
		}
		if s.opts.EmbedUnnormalised {
			v = unnormalised(v, texts[i])
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
		tok += CountTokens(texts[i])
	}
	finish(w, map[string]any{"object": "list", "model": s.opts.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": tok, "total_tokens": tok}}, f, done)
}

// unnormalised scales v to a norm between 2 and 6 chosen by text's hash.
func unnormalised(v []float32, text string) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	h := fnv.New32a()
	h.Write([]byte(text))
	k := (2 + float64(h.Sum32()%5)) / math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * k)
	}
	return out
}

// rerankScale turns the scorer's relevance shares into the scores the
// server returns (Options.RerankScale); raw is whether the request asked
// for raw scores (TEI's raw_scores).
func (s *Server) rerankScale(scores []float64, raw bool) {
	mode := s.opts.RerankScale
	if mode == RerankLexical {
		return
	}
	logit := mode == RerankLogit || (mode == RerankAsAsked && raw)
	for i, p := range scores {
		l := CrossEncoderLogit(p)
		if logit {
			scores[i] = l
		} else {
			scores[i] = 1 / (1 + math.Exp(-l))
		}
	}
}

func (s *Server) rerank(w http.ResponseWriter, r *http.Request, body []byte, f Fault, done func()) {
	var in struct {
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		Texts     []string `json:"texts"`
		TopN      int      `json:"top_n"`
		RawScores bool     `json:"raw_scores"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		done()
		writeError(w, http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	tei := r.URL.Path == "/rerank" && in.Texts != nil
	docs := in.Documents
	if tei {
		docs = in.Texts
	}
	if !sleep(r.Context(), s.opts.FirstTokenLatency) {
		return
	}
	idx := make([]int, len(docs))
	scores := make([]float64, len(docs))
	tok := CountTokens(in.Query) * len(docs)
	if s.opts.Rerank != nil {
		copy(scores, s.opts.Rerank(in.Query, docs))
	}
	for i, d := range docs {
		idx[i] = i
		if s.opts.Rerank == nil {
			scores[i] = Score(in.Query, d)
		}
		tok += CountTokens(d)
	}
	s.rerankScale(scores, tei && in.RawScores)
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	if in.TopN > 0 && in.TopN < len(idx) {
		idx = idx[:in.TopN]
	}
	results := make([]any, len(idx))
	for k, i := range idx {
		if tei {
			results[k] = map[string]any{"index": i, "score": scores[i]}
		} else {
			results[k] = map[string]any{"index": i, "document": map[string]string{"text": docs[i]}, "relevance_score": scores[i]}
		}
	}
	if tei {
		finish(w, results, f, done)
		return
	}
	finish(w, map[string]any{"id": "rerank-1", "model": s.opts.Model, "usage": map[string]int{"total_tokens": tok}, "results": results}, f, done)
}

func (s *Server) tokenize(w http.ResponseWriter, r *http.Request, body []byte, f Fault, done func()) {
	var in struct {
		Prompt              *string   `json:"prompt"`
		Messages            []Message `json:"messages"`
		AddGenerationPrompt *bool     `json:"add_generation_prompt"`
	}
	if err := json.Unmarshal(body, &in); err != nil || (in.Prompt == nil && in.Messages == nil) {
		done()
		writeError(w, http.StatusBadRequest, "expected {prompt} or {messages}")
		return
	}
	if !sleep(r.Context(), s.opts.FirstTokenLatency) {
		return
	}
	n := 0
	switch {
	case in.Prompt != nil && s.opts.CountPrompt != nil:
		n = s.opts.CountPrompt(*in.Prompt)
	case in.Prompt != nil:
		n = CountTokens(*in.Prompt)
	default:
		n = PromptTokens(in.Messages)
		if in.AddGenerationPrompt != nil && !*in.AddGenerationPrompt {
			n -= 3
		}
	}
	if s.opts.TokenizerSkew != 0 {
		n = max(0, int(math.Round(float64(n)*(1+s.opts.TokenizerSkew))))
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i + 1
	}
	finish(w, map[string]any{"count": n, "max_model_len": s.opts.MaxModelLen, "tokens": ids}, f, done)
}
