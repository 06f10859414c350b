package provider

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
)

// deadURL is a loopback address nothing listens on.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestPreflight(t *testing.T) {
	fake := openaifake.New(openaifake.Options{})
	defer fake.Close()
	dead := deadURL(t)
	cases := []struct {
		name      string
		endpoints []config.Endpoint
		err, warn string
	}{
		{"all reachable", []config.Endpoint{{URL: fake.URL, Model: "fake-model"}}, "", ""},
		{"model not served", []config.Endpoint{{URL: fake.URL, Model: "qwen-typo"}}, "", `"qwen-typo" is not among the served models`},
		{"one of two down", []config.Endpoint{{URL: fake.URL, Model: "fake-model"}, {URL: dead, Model: "fake-model"}}, "", "unreachable"},
		{"all down", []config.Endpoint{{URL: dead, Model: "m"}, {URL: dead, Model: "m"}}, "models.chat: no endpoint reachable", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := config.Load("", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Models.Chat = config.Role{Provider: "openai", Endpoints: c.endpoints}
			cfg.Retry.BaseDelay, cfg.Retry.MaxDelay = time.Millisecond, time.Millisecond
			for i := range cfg.Models.Chat.Endpoints {
				cfg.Models.Chat.Endpoints[i].MaxInflight, cfg.Models.Chat.Endpoints[i].Timeout = 1, 5e9
			}
			var log strings.Builder
			err = Preflight(context.Background(), cfg, &log)
			if c.err == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n")) {
				t.Fatalf("want one-line error containing %q, got %v", c.err, err)
			}
			if c.warn != "" && !strings.Contains(log.String(), c.warn) {
				t.Fatalf("want a warning containing %q, got %q", c.warn, log.String())
			}
			if c.warn == "" && c.err == "" && log.Len() > 0 {
				t.Fatalf("unexpected warning %q", log.String())
			}
		})
	}
}

// TestPreflightRetried: a server that answers its first model listings with
// 429 or 503 (busy, restarting) does not abort the run; the listing is
// retried as any other call. A server that keeps failing past the retry
// policy still does.
func TestPreflightRetried(t *testing.T) {
	fake := openaifake.New(openaifake.Options{})
	defer fake.Close()
	target, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		code     int
		failures int64
		attempts int
		err      string
	}{
		{"one 503", http.StatusServiceUnavailable, 1, 6, ""},
		{"three 429s", http.StatusTooManyRequests, 3, 6, ""},
		{"failures past the attempts", http.StatusServiceUnavailable, 10, 3, "no endpoint reachable"},
		{"404 is not retried", http.StatusNotFound, 1, 6, "no endpoint reachable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var seen atomic.Int64
			proxy := httputil.NewSingleHostReverseProxy(target)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if seen.Add(1) <= c.failures {
					http.Error(w, "injected", c.code)
					return
				}
				proxy.ServeHTTP(w, r)
			}))
			defer front.Close()
			cfg, err := config.Load("", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Retry.MaxAttempts = c.attempts
			cfg.Retry.BaseDelay, cfg.Retry.MaxDelay = time.Millisecond, time.Millisecond
			cfg.Models.Chat = config.Role{Provider: "openai", Endpoints: []config.Endpoint{{URL: front.URL, Model: "fake-model", MaxInflight: 1, Timeout: 5e9}}}
			var log strings.Builder
			err = Preflight(context.Background(), cfg, &log)
			if c.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if got := seen.Load(); got != c.failures+1 {
					t.Fatalf("%d listings, want %d", got, c.failures+1)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("want an error containing %q, got %v", c.err, err)
			}
		})
	}
}
