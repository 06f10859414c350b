package llm

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// TestEndpointQueryKept: an endpoint URL with a query string ("?token=X",
// as some gateways take keys) gets every route appended to its path, the
// query carried by every request, with or without a configured /v1.
func TestEndpointQueryKept(t *testing.T) {
	fake := openaifake.New(openaifake.Options{Dim: 8})
	defer fake.Close()
	target, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen = map[string]string{} // path → raw query
	)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.URL.RawQuery
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	for _, suffix := range []string{"?token=s3cret", "/v1?token=s3cret", "/v1/?token=s3cret"} {
		t.Run(suffix, func(t *testing.T) {
			ep := endpoint(front.URL + suffix)
			ctx := context.Background()
			hc := NewHTTPClient()
			if _, err := ListModels(ctx, ep, hc); err != nil {
				t.Fatalf("models: %v", err)
			}
			if _, err := NewChatClient(ep, hc).Chat(ctx, ChatRequest{Messages: []Message{{Role: "user", Content: "hi"}}}); err != nil {
				t.Fatalf("chat: %v", err)
			}
			if _, err := NewEmbedClient(ep, 8, hc).Embed(ctx, []string{"a"}); err != nil {
				t.Fatalf("embed: %v", err)
			}
			for _, api := range []string{"vllm", "tei"} {
				if _, err := NewRerankClient(ep, api, hc).Rerank(ctx, "q", []string{"a", "b"}); err != nil {
					t.Fatalf("rerank %s: %v", api, err)
				}
			}
			if _, err := NewTokenizeClient(ep, hc).Tokenize(ctx, "a b"); err != nil {
				t.Fatalf("tokenize: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, p := range []string{"/v1/models", "/v1/chat/completions", "/v1/embeddings", "/v1/rerank", "/rerank", "/tokenize"} {
				if seen[p] != "token=s3cret" {
					t.Errorf("%s: query %q, want token=s3cret", p, seen[p])
				}
			}
		})
	}
}

// TestEndpointQueryRedactedInErrors: a transport error names the endpoint
// without its query values.
func TestEndpointQueryRedactedInErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	const secret = "s3cret-token-value"
	ep := endpoint(dead + "/v1?token=" + secret)
	ctx := context.Background()
	hc := NewHTTPClient()
	errs := map[string]error{}
	_, errs["models"] = ListModels(ctx, ep, hc)
	_, errs["chat"] = NewChatClient(ep, hc).Chat(ctx, ChatRequest{Messages: []Message{{Role: "user", Content: "hi"}}})
	_, errs["embed"] = NewEmbedClient(ep, 8, hc).Embed(ctx, []string{"a"})
	_, errs["rerank"] = NewRerankClient(ep, "vllm", hc).Rerank(ctx, "q", []string{"a"})
	_, errs["tokenize"] = NewTokenizeClient(ep, hc).Tokenize(ctx, "a")
	for what, err := range errs {
		if err == nil {
			t.Errorf("%s: no error from a dead endpoint", what)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: query value leaked: %v", what, err)
		}
	}
}
