package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// testConfig is the embedded offline default with the cache in a temporary
// folder, yaml layered over it as a --config file is.
func testConfig(t testing.TB, yaml string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "arbor.yaml")
	body := fmt.Sprintf("cache: {dir: %s}\n%s", filepath.Join(dir, "cache"), yaml)
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newServer starts a Server on dataDir behind an httptest server; both are
// closed at the end of the test unless the caller closes them first.
func newServer(t testing.TB, cfg *config.Config, dataDir string) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(context.Background(), Options{Config: cfg, DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	var once sync.Once
	t.Cleanup(func() {
		hs.Close()
		once.Do(func() { _ = s.Close() })
	})
	return s, hs
}

// turn sends one user message to scope and returns the reply's text.
func turn(t testing.TB, url, scope, text string) (string, http.Header) {
	t.Helper()
	body := fmt.Sprintf(`{"messages": [{"role": "user", "content": %q}]}`, text)
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set(ScopeHeader, scope)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("turn %q: %d %s", text, resp.StatusCode, b)
	}
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Choices) != 1 {
		t.Fatalf("reply %s: %v", b, err)
	}
	return out.Choices[0].Message.Content, resp.Header
}

type forestReply struct {
	Nodes []struct {
		ID, Parent, Root, Summary string
	} `json:"nodes"`
	Active string `json:"active"`
}

func getForest(t testing.TB, url, scope string) forestReply {
	t.Helper()
	resp, err := http.Get(url + "/v1/memory/" + scope + "/forest")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var f forestReply
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		t.Fatal(err)
	}
	return f
}

// interleaved is a conversation of two threads that returns to the first.
var interleaved = []string{
	"I'm planning a trip to Lisbon in May; the budget is $2,400 and we fly on May 3.",
	"For the Lisbon trip, book a hotel near Alfama with a view of the river.",
	"On another note, my car's brakes squeal; the garage quoted $380 for new pads.",
	"The garage can take the car on Thursday morning for the brake pads.",
	"Back to the Lisbon trip: what's the budget again?",
}

// TestInterleavedThreadsReturn: offline, two threads then a return to the
// first; the return is committed in the first thread's tree, every reply is
// labelled heuristic, and the forwarded evidence carries the first thread.
func TestInterleavedThreadsReturn(t *testing.T) {
	_, hs := newServer(t, testConfig(t, ""), t.TempDir())
	var last string
	for i, text := range interleaved {
		reply, h := turn(t, hs.URL, "alice", text)
		if h.Get(HeuristicHeader) != "true" {
			t.Errorf("turn %d: offline reply not labelled heuristic", i)
		}
		last = reply
	}
	if !strings.Contains(last, "2,400") {
		t.Errorf("the return question's reply lacks the first thread's budget: %q", last)
	}
	f := getForest(t, hs.URL, "alice")
	if len(f.Nodes) != len(interleaved) {
		t.Fatalf("%d nodes, want %d", len(f.Nodes), len(interleaved))
	}
	root := map[string]string{}
	for _, n := range f.Nodes {
		root[n.ID] = n.Root
	}
	if root["t000005"] != root["t000001"] {
		t.Errorf("the return to Lisbon is in tree %s, want the Lisbon tree %s", root["t000005"], root["t000001"])
	}
	if root["t000003"] == root["t000001"] {
		t.Errorf("the car thread was committed into the Lisbon tree")
	}
}

// TestForwardedPromptCarriesBranch: with a chat model, the messages
// forwarded for a return to the first thread carry that thread's turns, the
// caller's system text follows the paper's system anchor, and a streamed
// reply arrives as chunks ending in [DONE].
func TestForwardedPromptCarriesBranch(t *testing.T) {
	up := openaifake.New(openaifake.Options{Reply: func(r openaifake.Request) string { return "Noted, all in memory." }})
	t.Cleanup(up.Close)
	cfg := testConfig(t, fmt.Sprintf(`models:
  chat:
    provider: openai
    endpoints: [{url: %q, model: fake-model}]
arbormem: {extractors: heuristic}
answer: {answerer: chat}
`, up.URL))
	_, hs := newServer(t, cfg, t.TempDir())
	for _, text := range interleaved[:4] {
		turn(t, hs.URL, "alice", text)
	}
	body := fmt.Sprintf(`{"stream": true, "user": "alice", "messages": [{"role": "system", "content": "You are Ada, a terse travel assistant."}, {"role": "user", "content": %q}]}`, interleaved[4])
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var content strings.Builder
	done := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			break
		}
		var ch struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(line), &ch); err != nil {
			t.Fatalf("chunk %q: %v", line, err)
		}
		for _, c := range ch.Choices {
			content.WriteString(c.Delta.Content)
		}
	}
	if !done || content.String() != "Noted, all in memory." {
		t.Fatalf("streamed reply %q (done %v)", content.String(), done)
	}
	bodies := up.Bodies("/v1/chat/completions")
	var sent struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	if err := json.Unmarshal(bodies[len(bodies)-1], &sent); err != nil {
		t.Fatal(err)
	}
	all := ""
	for _, m := range sent.Messages {
		all += m.Content + "\n"
	}
	if !strings.Contains(all, "$2,400") || !strings.Contains(all, "Alfama") {
		t.Errorf("the forwarded prompt lacks the Lisbon thread:\n%s", all)
	}
	if len(sent.Messages) < 2 || sent.Messages[0].Role != "system" || sent.Messages[1].Content != "You are Ada, a terse travel assistant." {
		t.Errorf("the caller's system text does not follow the system anchor: %+v", sent.Messages[:min(2, len(sent.Messages))])
	}
}

// TestRestartKeepsForest: a server closed and opened again on the same
// folder has the same forest, from a snapshot plus the commits after it.
func TestRestartKeepsForest(t *testing.T) {
	cfg := testConfig(t, "serve: {snapshot_every: 2}\n")
	dir := t.TempDir()
	s1, hs1 := newServer(t, cfg, dir)
	for _, text := range interleaved {
		turn(t, hs1.URL, "alice", text)
	}
	before := getForest(t, hs1.URL, "alice")
	hs1.Close()
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	_, hs2 := newServer(t, cfg, dir)
	after := getForest(t, hs2.URL, "alice")
	if fmt.Sprint(before.Nodes) != fmt.Sprint(after.Nodes) || before.Active != after.Active {
		t.Errorf("forest changed across a restart:\nbefore %+v\nafter  %+v", before, after)
	}
	turn(t, hs2.URL, "alice", "And the flight date for Lisbon?")
	if n := len(getForest(t, hs2.URL, "alice").Nodes); n != len(interleaved)+1 {
		t.Errorf("%d nodes after one more turn, want %d", n, len(interleaved)+1)
	}
}

// TestCommitRecallForget: the memory API commits an interaction from
// elsewhere, recalls it with its trace, refuses the same id twice, and
// forgets the scope.
func TestCommitRecallForget(t *testing.T) {
	_, hs := newServer(t, testConfig(t, ""), t.TempDir())
	post := func(body string) (int, string) {
		resp, err := http.Post(hs.URL+"/v1/memory/bob/commit", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, b := post(`{"id": "x1", "user": "My sister Ana moves to Porto on June 12.", "assistant": "Noted."}`); code != 200 || !strings.Contains(b, `"id":"x1"`) {
		t.Fatalf("commit: %d %s", code, b)
	}
	if code, _ := post(`{"id": "x1", "user": "again"}`); code != http.StatusConflict {
		t.Errorf("the same id twice: %d, want 409", code)
	}
	resp, err := http.Get(hs.URL + "/v1/memory/bob/recall?q=When+does+Ana+move+to+Porto%3F&budget=1k")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "June 12") || !strings.Contains(string(b), `"trace"`) {
		t.Errorf("recall: %d %s", resp.StatusCode, b)
	}
	req, _ := http.NewRequest("DELETE", hs.URL+"/v1/memory/bob", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("forget: %d", resp.StatusCode)
	}
	if n := len(getForest(t, hs.URL, "bob").Nodes); n != 0 {
		t.Errorf("a forgotten scope still has %d nodes", n)
	}
}

// TestAccess: tokens bind scopes; a wrong token, another scope's token, a
// scope name that could leave the data folder, an oversized body and too
// many messages are each refused with their status, and nothing is written.
func TestAccess(t *testing.T) {
	t.Setenv("ARBOR_TEST_TOKEN_A", "secret-a")
	cfg := testConfig(t, "serve: {max_body_bytes: 4096, max_messages: 3, tokens: [{token_env: ARBOR_TEST_TOKEN_A, scopes: [alice, \"team-*\"]}]}\n")
	s, hs := newServer(t, cfg, t.TempDir())
	msg := `{"messages": [{"role": "user", "content": "hello"}]}`
	for _, c := range []struct {
		name, token, scope, body string
		want                     int
	}{
		{"no token", "", "alice", msg, http.StatusUnauthorized},
		{"wrong token", "secret-b", "alice", msg, http.StatusUnauthorized},
		{"another scope", "secret-a", "mallory", msg, http.StatusForbidden},
		{"path escape", "secret-a", "../alice", msg, http.StatusBadRequest},
		{"dot segment", "secret-a", "..", msg, http.StatusBadRequest},
		{"oversized body", "secret-a", "alice", `{"messages": [{"role": "user", "content": "` + strings.Repeat("x", 5000) + `"}]}`, http.StatusRequestEntityTooLarge},
		{"too many messages", "secret-a", "alice", `{"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}, {"role": "user", "content": "c"}, {"role": "user", "content": "d"}]}`, http.StatusRequestEntityTooLarge},
		{"malformed body", "secret-a", "alice", `{"messages": [`, http.StatusBadRequest},
		{"no user message", "secret-a", "alice", `{"messages": [{"role": "system", "content": "x"}]}`, http.StatusBadRequest},
	} {
		req, _ := http.NewRequest("POST", hs.URL+"/v1/chat/completions", strings.NewReader(c.body))
		req.Header.Set(ScopeHeader, c.scope)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	if names, _ := s.store.Scopes(); len(names) != 0 {
		t.Errorf("refused requests wrote scopes %v", names)
	}
	// The right token works on its scopes, patterns included.
	for _, scope := range []string{"alice", "team-red"} {
		req, _ := http.NewRequest("POST", hs.URL+"/v1/chat/completions", strings.NewReader(msg))
		req.Header.Set(ScopeHeader, scope)
		req.Header.Set("Authorization", "Bearer secret-a")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s with its token: %d", scope, resp.StatusCode)
		}
	}
}

// TestNoTokensLoopbackOnly: without tokens a client from another address is
// refused, by the API, the metrics and the page alike.
func TestNoTokensLoopbackOnly(t *testing.T) {
	s, _ := newServer(t, testConfig(t, ""), t.TempDir())
	for _, path := range []string{"/v1/memory", "/metrics", "/"} {
		for addr, want := range map[string]int{"10.1.2.3:5000": http.StatusForbidden, "127.0.0.1:5000": http.StatusOK, "[::1]:5000": http.StatusOK} {
			req := httptest.NewRequest("GET", path, nil)
			req.RemoteAddr = addr
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, req)
			if w.Code != want {
				t.Errorf("%s from %s: %d, want %d", path, addr, w.Code, want)
			}
		}
	}
}

// TestConcurrentScopes: many scopes, many concurrent requests per scope
// (run under -race): every turn is committed once, in its own scope, and
// the scopes beyond max_scopes are unloaded and rebuilt as they are used.
func TestConcurrentScopes(t *testing.T) {
	s, hs := newServer(t, testConfig(t, "serve: {max_scopes: 3}\n"), t.TempDir())
	const scopes, turns = 6, 5
	var wg sync.WaitGroup
	for i := range scopes {
		for j := range turns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				turn(t, hs.URL, fmt.Sprintf("user-%d", i), fmt.Sprintf("Note %d for user %d: the code is %d%d.", j, i, i, j))
			}()
		}
	}
	wg.Wait()
	for i := range scopes {
		f := getForest(t, hs.URL, fmt.Sprintf("user-%d", i))
		if len(f.Nodes) != turns {
			t.Errorf("user-%d: %d nodes, want %d", i, len(f.Nodes), turns)
		}
		for _, n := range f.Nodes {
			if !strings.Contains(n.Summary, fmt.Sprintf("user %d", i)) {
				t.Errorf("user-%d holds another scope's turn: %q", i, n.Summary)
			}
		}
	}
	if got := len(s.scopes.loaded()); got > 3 {
		t.Errorf("%d scopes loaded, max_scopes is 3", got)
	}
}

// TestMetrics: /metrics speaks Prometheus text with the request, phase and
// model-call series.
func TestMetrics(t *testing.T) {
	_, hs := newServer(t, testConfig(t, ""), t.TempDir())
	turn(t, hs.URL, "alice", "hello there")
	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`arbor_requests_total{code="200",route="chat"} 1`, `arbor_phase_seconds_count{phase="recall"}`, `arbor_model_calls_total{purpose="embed",role="embed"}`, "arbor_scopes_loaded 1"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }
