package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/memory"
)

// chatRequest is the part of an OpenAI chat-completions request that arbor
// reads. Only the last user message is the new turn: the memory holds the
// history, so a caller sends no earlier turns (any it sends are ignored).
// System messages are kept and placed after the paper's system anchor.
type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Stream      bool          `json:"stream"`
	User        string        `json:"user"`
	Temperature *float64      `json:"temperature"`
	MaxTokens   *int          `json:"max_tokens"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text reads a message's content: a string, or an array of parts of which
// the text parts are joined.
func (m chatMessage) text() (string, error) {
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", fmt.Errorf("content: want a string or an array of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// turnOf reads the new user message and the caller's system text.
func turnOf(req chatRequest) (user string, system []string, err error) {
	found := false
	for i, m := range req.Messages {
		t, err := m.text()
		if err != nil {
			return "", nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			if strings.TrimSpace(t) != "" {
				system = append(system, t)
			}
		case "user":
			user, found = t, true
		}
	}
	if !found || strings.TrimSpace(user) == "" {
		return "", nil, fmt.Errorf("messages: no user message")
	}
	return user, system, nil
}

// chat is POST /v1/chat/completions.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) int {
	// Who may call at all is known before the body is read.
	if ac := s.auth.check(r); ac.status != 0 {
		if ac.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="arbor"`)
		}
		return fail(w, ac.status, "not authorized")
	}
	var req chatRequest
	if code := s.decode(w, r, &req); code != 0 {
		return code
	}
	if len(req.Messages) > s.cfg.Serve.MaxMessages {
		return fail(w, http.StatusRequestEntityTooLarge, "%d messages: at most %d (serve.max_messages)", len(req.Messages), s.cfg.Serve.MaxMessages)
	}
	name := r.Header.Get(ScopeHeader)
	if name == "" {
		name = req.User
	}
	if name == "" {
		return fail(w, http.StatusBadRequest, "no memory scope: set the %s header or the request's \"user\" field", ScopeHeader)
	}
	if code := s.authorize(w, r, name); code != 0 {
		return code
	}
	user, system, err := turnOf(req)
	if err != nil {
		return fail(w, http.StatusBadRequest, "%v", err)
	}
	ctx := r.Context()
	sc, leave, err := s.enter(ctx, name)
	if err != nil {
		return fail(w, http.StatusInternalServerError, "load scope %s: %v", name, err)
	}
	defer leave()
	in := s.interaction(sc, "", time.Time{}, user, "")
	q := memory.Query{ID: in.ID, Text: user, Time: in.Time, Budget: s.cfg.Serve.Budget}
	start := time.Now()
	bundle, err := sc.sys.Recall(ctx, q)
	s.metrics.phase.WithLabelValues("recall").Observe(time.Since(start).Seconds())
	if err != nil {
		return fail(w, http.StatusInternalServerError, "recall: %v", err)
	}
	var sse *sseWriter
	if req.Stream {
		sse = newSSE(w, in.ID, s.modelName(req))
		if s.Heuristic() {
			w.Header().Set(HeuristicHeader, "true")
		}
	}
	start = time.Now()
	reply, usage, err := s.reply(r, req, q, bundle, sc, system, sse)
	s.metrics.phase.WithLabelValues("upstream").Observe(time.Since(start).Seconds())
	if err != nil {
		if sse != nil && sse.started {
			sse.fail(err)
			return http.StatusOK
		}
		return fail(w, http.StatusBadGateway, "chat model: %v", err)
	}
	in.Turns = append(in.Turns, assistantTurn(reply))
	// The turn is on disk before the caller sees the end of its reply: an
	// acknowledged turn survives a crash; only its memory commit runs after.
	if err := s.record(sc, in); err != nil {
		if sse != nil {
			sse.fail(err)
			return http.StatusOK
		}
		return fail(w, http.StatusInternalServerError, "%v", err)
	}
	s.background(sc, in)
	parent := ""
	if bundle.Trace != nil {
		parent = bundle.Trace.Parent
	}
	if sse != nil {
		sse.finish(reply)
		return http.StatusOK
	}
	if s.Heuristic() {
		w.Header().Set(HeuristicHeader, "true")
	}
	return writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-" + in.ID, "object": "chat.completion", "created": in.Time.Unix(), "model": s.modelName(req),
		"choices": []map[string]any{{"index": 0, "message": map[string]string{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
		"usage":   usage,
		"arbor":   map[string]any{"scope": name, "turn": in.ID, "parent": parent, "heuristic": s.Heuristic(), "evidence_tokens": bundle.Tokens()},
	})
}

// reply produces the assistant's reply from the bundle: through the chat
// role with the paper's message layout, or the extractive answerer offline.
func (s *Server) reply(r *http.Request, req chatRequest, q memory.Query, b memory.Bundle, sc *scope, system []string, sse *sseWriter) (string, map[string]int, error) {
	ctx := r.Context()
	if s.models.Chat == nil || s.answerer.Heuristic() {
		res, err := s.answerer.Answer(ctx, q, b, sc.sys)
		if err != nil {
			return "", nil, err
		}
		if sse != nil {
			sse.delta(res.Text)
		}
		return res.Text, map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}, nil
	}
	msgs, err := sc.sys.Render(q, b)
	if err != nil {
		return "", nil, err
	}
	msgs = withSystem(msgs, system)
	creq := llm.ChatRequest{Messages: msgs, Temperature: s.cfg.Answer.Temperature, MaxTokens: s.cfg.Answer.MaxTokens, Purpose: "serve"}
	if req.Temperature != nil {
		creq.Temperature = *req.Temperature
	}
	if req.MaxTokens != nil && *req.MaxTokens > 0 {
		creq.MaxTokens = *req.MaxTokens
	}
	if sse != nil {
		creq.OnDelta = sse.delta
	}
	resp, err := s.models.Chat.Chat(ctx, creq)
	if err != nil {
		return "", nil, err
	}
	if sse != nil && resp.Cached {
		sse.delta(resp.Content) // a cached reply does not stream through OnDelta
	}
	return resp.Content, map[string]int{"prompt_tokens": resp.PromptTokens, "completion_tokens": resp.CompletionTokens,
		"total_tokens": resp.PromptTokens + resp.CompletionTokens}, nil
}

// withSystem places the caller's system text after the paper's system
// anchor (the first message), so that the anchor's rules come first and the
// caller's persona or instructions still reach the model.
func withSystem(msgs []llm.Message, system []string) []llm.Message {
	if len(system) == 0 {
		return msgs
	}
	extra := make([]llm.Message, len(system))
	for i, t := range system {
		extra[i] = llm.Message{Role: "system", Content: t}
	}
	at := 0
	if len(msgs) > 0 && msgs[0].Role == "system" {
		at = 1
	}
	out := make([]llm.Message, 0, len(msgs)+len(extra))
	out = append(out, msgs[:at]...)
	out = append(out, extra...)
	return append(out, msgs[at:]...)
}

// modelName is the model the reply names: the request's, else the chat
// role's first endpoint's, else "arbor-offline".
func (s *Server) modelName(req chatRequest) string {
	if req.Model != "" {
		return req.Model
	}
	if eps := s.cfg.Models.Chat.Endpoints; len(eps) > 0 {
		return eps[0].Model
	}
	return "arbor-offline"
}

// sseWriter relays a reply as OpenAI chat-completion chunks.
type sseWriter struct {
	w       http.ResponseWriter
	flush   func()
	id      string
	model   string
	created int64
	started bool
}

func newSSE(w http.ResponseWriter, id, model string) *sseWriter {
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	return &sseWriter{w: w, flush: flush, id: "chatcmpl-" + id, model: model, created: time.Now().Unix()}
}

func (s *sseWriter) event(delta map[string]string, finish any) {
	if !s.started {
		s.started = true
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
		s.event(map[string]string{"role": "assistant"}, nil)
	}
	b, _ := json.Marshal(map[string]any{"id": s.id, "object": "chat.completion.chunk", "created": s.created, "model": s.model,
		"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	s.flush()
}

// delta relays one piece of the reply.
func (s *sseWriter) delta(content string) {
	if content != "" {
		s.event(map[string]string{"content": content}, nil)
	}
}

// finish ends the stream.
func (s *sseWriter) finish(reply string) {
	if !s.started && reply == "" {
		s.event(map[string]string{}, nil)
	}
	s.event(map[string]string{}, "stop")
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	s.flush()
}

// fail ends a stream that broke after it started, with an error event.
func (s *sseWriter) fail(err error) {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": err.Error(), "type": "upstream_error"}})
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	s.flush()
}

func assistantTurn(reply string) dialog.Turn {
	return dialog.Turn{Role: dialog.RoleAssistant, Content: reply}
}
