package openaifake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestRoutesAndShapes(t *testing.T) {
	s := New(Options{Model: "m", Dim: 3, Replies: []string{"scripted reply"}, Reasoning: "think"})
	defer s.Close()
	cases := []struct {
		path, body string
		check      func(map[string]any) bool
	}{
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, func(m map[string]any) bool {
			msg := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
			return msg["content"] == "scripted reply" && msg["reasoning"] == "think"
		}},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi there"}],"max_tokens":2}`, func(m map[string]any) bool {
			c := m["choices"].([]any)[0].(map[string]any)
			return c["message"].(map[string]any)["content"] == "echo: hi" && c["finish_reason"] == "length"
		}},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_object"}}`, func(m map[string]any) bool {
			c := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
			return json.Valid([]byte(c)) && strings.Contains(c, `"answer"`)
		}},
		{"/v1/embeddings", `{"input":"one","model":"m"}`, func(m map[string]any) bool {
			return len(m["data"].([]any)[0].(map[string]any)["embedding"].([]any)) == 3
		}},
		{"/v1/rerank", `{"query":"a b","documents":["a","a b","c"]}`, func(m map[string]any) bool {
			r := m["results"].([]any)
			return len(r) == 3 && r[0].(map[string]any)["index"] == 1.0 && r[0].(map[string]any)["relevance_score"] == 1.0
		}},
		{"/tokenize", `{"prompt":"a b c"}`, func(m map[string]any) bool { return m["count"] == 3.0 }},
		{"/tokenize", `{"messages":[{"role":"user","content":"a"}],"add_generation_prompt":false}`, func(m map[string]any) bool { return m["count"] == 5.0 }},
	}
	for _, tc := range cases {
		resp, body := post(t, s.URL+tc.path, tc.body)
		var m map[string]any
		if resp == nil || resp.StatusCode != 200 || json.Unmarshal([]byte(body), &m) != nil || !tc.check(m) {
			t.Errorf("%s %s: %s", tc.path, tc.body, body)
		}
	}
	// TEI's /rerank answers a bare array with "score".
	_, body := post(t, s.URL+"/rerank", `{"query":"a","texts":["b","a"],"raw_scores":false}`)
	var tei []map[string]any
	if json.Unmarshal([]byte(body), &tei) != nil || len(tei) != 2 || tei[0]["index"] != 1.0 || tei[0]["score"] != 1.0 {
		t.Errorf("tei rerank: %s", body)
	}
	for _, p := range []string{"/v1/models", "/health"} {
		resp, err := http.Get(s.URL + p)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if got := s.Stats().Requests; got != int64(len(cases)+1) {
		t.Errorf("API requests %d", got)
	}
	if got := len(s.Bodies("/tokenize")); got != 2 {
		t.Errorf("kept %d tokenize bodies", got)
	}
	if resp, _ := post(t, s.URL+"/v1/chat/completions", `{"messages":[]}`); resp.StatusCode != 400 {
		t.Errorf("empty messages: %d", resp.StatusCode)
	}
}

func TestStreamedChat(t *testing.T) {
	s := New(Options{FirstTokenLatency: 20 * time.Millisecond})
	defer s.Close()
	start := time.Now()
	resp, body := post(t, s.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"a b"}],"stream":true,"stream_options":{"include_usage":true}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("%v %v", resp.Header, time.Since(start))
	}
	var content strings.Builder
	usage := false
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimPrefix(l, "data: ")
		if l == "" || l == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("chunk %q: %v", l, err)
		}
		for _, ch := range c.Choices {
			content.WriteString(ch.Delta.Content)
		}
		usage = usage || (c.Usage != nil && c.Usage.CompletionTokens == 3)
	}
	if content.String() != "echo: a b" || !usage || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("content %q usage %v body %q", content.String(), usage, body)
	}
}

func TestFaultsByIndexAndRate(t *testing.T) {
	s := New(Options{RetryAfter: "7", Hang: 10 * time.Millisecond, FaultAt: map[int]Fault{
		0: Status429, 1: Status500, 2: Status400, 3: Truncate, 4: Malformed, 5: Drop, 6: Hang}})
	defer s.Close()
	embed := `{"input":["x"]}`
	resp, _ := post(t, s.URL+"/v1/embeddings", embed)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" {
		t.Errorf("429: %v", resp)
	}
	for _, want := range []int{500, 400} {
		if resp, _ := post(t, s.URL+"/v1/embeddings", embed); resp.StatusCode != want {
			t.Errorf("want %d, got %d", want, resp.StatusCode)
		}
	}
	for _, name := range []string{"truncate", "malformed"} {
		resp, body := post(t, s.URL+"/v1/embeddings", embed)
		if resp.StatusCode != 200 || json.Valid([]byte(body)) {
			t.Errorf("%s: %d %q", name, resp.StatusCode, body)
		}
	}
	if resp, msg := post(t, s.URL+"/v1/embeddings", embed); resp != nil {
		t.Errorf("drop: got a reply %v", msg)
	}
	if resp, body := post(t, s.URL+"/v1/embeddings", embed); resp == nil || resp.StatusCode != 200 || !json.Valid([]byte(body)) {
		t.Errorf("a short hang then a normal reply: %v", body)
	}
	inj := s.Injected()
	if len(inj) != 7 {
		t.Errorf("injected %v", inj)
	}
	if s.Stats().Current != 0 || s.Stats().MaxConcurrent != 1 {
		t.Errorf("stats %+v", s.Stats())
	}

	r := New(Options{FaultRate: 0.5, FaultSeed: 9, FaultKinds: []Fault{Status500}})
	defer r.Close()
	fails := 0
	for range 200 {
		if resp, _ := post(t, r.URL+"/tokenize", `{"prompt":"x"}`); resp.StatusCode == 500 {
			fails++
		}
	}
	if fails < 70 || fails > 130 || r.Injected()[Status500] != int64(fails) {
		t.Errorf("%d of 200 failed at rate 0.5; injected %v", fails, r.Injected())
	}
}

func TestParseFault(t *testing.T) {
	for f := None; f <= Drop; f++ {
		if g, err := ParseFault(f.String()); err != nil || g != f {
			t.Errorf("%v: %v %v", f, g, err)
		}
	}
	if _, err := ParseFault("explode"); err == nil {
		t.Error("unknown fault accepted")
	}
}

func FuzzRequests(f *testing.F) {
	s := newServer(Options{})
	f.Add("/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"stream":true,"max_tokens":-1}`)
	f.Add("/v1/embeddings", `{"input":3}`)
	f.Add("/rerank", `{"query":"a","texts":null,"top_n":-4}`)
	f.Add("/tokenize", `{"messages":null}`)
	f.Fuzz(func(t *testing.T, path, body string) {
		for _, p := range []string{"/v1/chat/completions", "/v1/embeddings", "/v1/rerank", "/rerank", "/tokenize", path} {
			req := httptest.NewRequest(http.MethodPost, "http://fake"+"/", strings.NewReader(body))
			req.URL.Path = p
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			if w.Code != 200 && w.Code != 400 && w.Code != 404 {
				t.Fatalf("%s: status %d", p, w.Code)
			}
		}
	})
}

// TestRepliesKeepLineBreaks checks that a multi-line reply reaches the
// client as it was written, streamed or not, and that hooks replace the
// embeddings and rerank scores.
func TestRepliesKeepLineBreaks(t *testing.T) {
	const reply = "```json\n[1,\n 2]\n```\n\nDone."
	s := New(Options{Reply: func(Request) string { return reply },
		Embed:  func(texts []string) [][]float32 { return [][]float32{{0.5, 0.25}} },
		Rerank: func(q string, docs []string) []float64 { return []float64{0.125} }})
	defer s.Close()
	_, body := post(t, s.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`)
	if !strings.Contains(body, `"content":"`+strings.ReplaceAll(strings.ReplaceAll(reply, "\n", `\n`), "`", "`")+`"`) {
		t.Errorf("non-streamed reply: %s", body)
	}
	_, body = post(t, s.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"stream":true}`)
	var got strings.Builder
	for _, line := range strings.Split(body, "\n") {
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if rest, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(rest), &c) == nil && len(c.Choices) > 0 {
			got.WriteString(c.Choices[0].Delta.Content)
		}
	}
	if got.String() != reply {
		t.Errorf("streamed reply %q, want %q", got.String(), reply)
	}
	if _, body = post(t, s.URL+"/v1/embeddings", `{"input":["a"]}`); !strings.Contains(body, `[0.5,0.25]`) {
		t.Errorf("embedding hook not used: %s", body)
	}
	if _, body = post(t, s.URL+"/v1/rerank", `{"query":"a","documents":["b"]}`); !strings.Contains(body, `"relevance_score":0.125`) {
		t.Errorf("rerank hook not used: %s", body)
	}
	if got := Tokens(" a  b\nc "); len(got) != 3 || strings.Join(got, "") != " a  b\nc " {
		t.Errorf("Tokens: %q", got)
	}
}

// TestSpeakFallsThrough checks that a request Speak does not answer gets
// the fake's own reply.
func TestSpeakFallsThrough(t *testing.T) {
	s := New(Options{Speak: func(r Request) (string, bool) { return "spoken", r.Messages[0].Content == "known" }, Replies: []string{"scripted"}})
	defer s.Close()
	for _, tc := range []struct{ in, want string }{{"known", "spoken"}, {"other", "scripted"}, {"other", "echo: other"}} {
		_, body := post(t, s.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"`+tc.in+`"}]}`)
		if !strings.Contains(body, `"content":"`+tc.want+`"`) {
			t.Errorf("%s: %s, want %q", tc.in, body, tc.want)
		}
	}
}
