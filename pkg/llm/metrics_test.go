package llm

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMeterAndUsage(t *testing.T) {
	m := NewMetrics(nil)
	fail := errors.New("boom")
	var inner Client = chatFunc(func(ctx context.Context, req ChatRequest) (ChatResponse, error) {
		if req.Messages[0].Content == "fail" {
			noteRetry(ctx)
			return ChatResponse{}, fail
		}
		return ChatResponse{Content: "ok", PromptTokens: 10, CompletionTokens: 3, TTFT: time.Millisecond, Cached: req.Messages[0].Content == "cached"}, nil
	})
	c := MeterChat(inner, m, "chat")
	episode, eu := WithUsage(context.Background())
	sample, su := WithUsage(episode)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Chat(sample, ChatRequest{Messages: []Message{{Content: "hi"}}, Purpose: "answer"}) })
	}
	wg.Wait()
	c.Chat(sample, ChatRequest{Messages: []Message{{Content: "cached"}}, Purpose: "answer"})
	if _, err := c.Chat(episode, ChatRequest{Messages: []Message{{Content: "fail"}}}); !errors.Is(err, fail) {
		t.Fatal(err)
	}
	want := RoleUsage{Count: 11, CacheHits: 1, PromptTokens: 110, CompletionTokens: 33}
	if got := su.Snapshot()["chat"]; got != want {
		t.Errorf("sample usage %+v, want %+v", got, want)
	}
	want.Count, want.Errors = 12, 1
	if got := eu.Snapshot()["chat"]; got != want {
		t.Errorf("episode usage %+v, want %+v", got, want)
	}
	rows := m.Rows()
	if len(rows) != 2 || rows[0].Purpose != "answer" || rows[1].Purpose != "chat" {
		t.Fatalf("rows %+v", rows)
	}
	if r := rows[0]; r.Count != 11 || r.CacheHits != 1 || r.PromptTokens != 110 || r.TTFTP50 != time.Millisecond || r.LatencyP95 < r.LatencyP50 {
		t.Errorf("answer row %+v", r)
	}
	if r := rows[1]; r.Errors != 1 || r.Retries != 1 {
		t.Errorf("failed row %+v", r)
	}
	var b bytes.Buffer
	m.WriteTable(&b)
	if !strings.Contains(b.String(), "cache hits") || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("table:\n%s", b.String())
	}
	if UsageFrom(context.Background()).Snapshot() == nil {
		t.Error("nil usage snapshot must be an empty map")
	}
}

func TestReservoirQuantiles(t *testing.T) {
	var r reservoir
	for i := 100; i >= 1; i-- {
		r.add(time.Duration(i) * time.Millisecond)
	}
	q := r.quantiles(0.5, 0.95, 1)
	if q[0] != 50*time.Millisecond || q[1] != 95*time.Millisecond || q[2] != 100*time.Millisecond {
		t.Fatalf("quantiles %v", q)
	}
	// Past the cap the sample stays bounded and still spans the values.
	var big reservoir
	for i := range 3 * reservoirCap {
		big.add(time.Duration(i))
	}
	if len(big.xs) != reservoirCap {
		t.Fatalf("sample size %d", len(big.xs))
	}
	if p := big.quantiles(0.5)[0]; p < time.Duration(reservoirCap) || p > time.Duration(2*reservoirCap) {
		t.Fatalf("median %d of 0..%d", p, 3*reservoirCap)
	}
}
