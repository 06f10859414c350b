package provider

import (
	"context"
	"net"
	"strings"
	"testing"

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
