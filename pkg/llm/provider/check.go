package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
)

// CheckResult is the outcome of probing one endpoint.
type CheckResult struct {
	Role    string        `json:"role"`
	URL     string        `json:"url"`
	Model   string        `json:"model"`
	Status  string        `json:"status"` // "ok", "FAIL" or "local" (nothing to probe)
	Latency time.Duration `json:"latency"`
	Err     string        `json:"error,omitempty"`
}

// probeTimeout caps each probe, whatever the endpoint's own timeout, so a
// hung server does not hold the check for minutes.
const probeTimeout = 30 * time.Second

// Check probes every configured endpoint concurrently with the calls its role
// needs: the models list (is the configured model served?) and a one-token
// chat for chat and judge; models and a one-text embedding for embed; a
// two-document rerank (plus models for vLLM) for rerank; a tokenize for the
// tokenizer (plus models). Probes go straight to the endpoint: no pool, retry or cache.
func Check(ctx context.Context, cfg *config.Config) []CheckResult {
	hc := llm.NewHTTPClient()
	type job struct {
		i    int
		name string
		role config.Role
		ep   config.Endpoint
	}
	var (
		out  []CheckResult
		jobs []job
	)
	// The result slice is complete before any probe starts, so probes write
	// only their own element.
	for _, r := range roles(cfg) {
		if r.role.Local() {
			out = append(out, CheckResult{Role: r.name, URL: "-", Model: localName(r.name), Status: "local"})
			continue
		}
		for _, ep := range r.role.Endpoints {
			jobs = append(jobs, job{i: len(out), name: r.name, role: r.role, ep: ep})
			out = append(out, CheckResult{Role: r.name, URL: llm.DisplayURL(ep.URL), Model: ep.Model})
		}
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			start := time.Now()
			err := probe(ctx, hc, j.name, j.role, j.ep)
			res := &out[j.i]
			res.Latency = time.Since(start)
			res.Status = "ok"
			if err != nil {
				res.Status = "FAIL"
				res.Err = oneLine(err.Error())
			}
		})
	}
	wg.Wait()
	return out
}

func probe(ctx context.Context, hc *http.Client, role string, r config.Role, ep config.Endpoint) error {
	ctx, cancel := context.WithTimeout(ctx, min(ep.Timeout, probeTimeout))
	defer cancel()
	listed := func() error {
		ids, err := llm.ListModels(ctx, ep, hc)
		if err != nil {
			return fmt.Errorf("models: %w", err)
		}
		if !slices.Contains(ids, ep.Model) {
			return fmt.Errorf("models: %q is not served here (served: %s)", ep.Model, strings.Join(ids, ", "))
		}
		return nil
	}
	switch role {
	case "chat", "judge":
		if err := listed(); err != nil {
			return err
		}
		_, err := llm.NewChatClient(ep, hc).Chat(ctx, llm.ChatRequest{
			Messages: []llm.Message{{Role: "user", Content: "Reply with the single word OK."}}, MaxTokens: 1,
		})
		return prefix("chat", err)
	case "embed":
		if err := listed(); err != nil {
			return err
		}
		_, err := llm.NewEmbedClient(ep, r.Dim, hc).Embed(ctx, []string{"ping"})
		return prefix("embeddings", err)
	case "rerank":
		if r.API != "tei" {
			if err := listed(); err != nil {
				return err
			}
		}
		s, err := llm.NewRerankClient(ep, r.API, hc).Rerank(ctx, "ping", []string{"ping", "pong"})
		if err == nil && len(s) != 2 {
			err = errors.New("wrong number of scores")
		}
		return prefix("rerank", err)
	case "tokenizer":
		if err := listed(); err != nil {
			return err
		}
		_, err := llm.NewTokenizeClient(ep, hc).Tokenize(ctx, "ping")
		return prefix("tokenize", err)
	}
	return fmt.Errorf("unknown role %q", role)
}

func prefix(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 240 {
		s = s[:240] + "…"
	}
	return s
}

// WriteChecks prints results as a table: role, url, model, status,
// latency, error.
func WriteChecks(w io.Writer, rs []CheckResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tURL\tMODEL\tSTATUS\tLATENCY\tERROR")
	for _, r := range rs {
		lat := "-"
		if r.Status != "local" {
			lat = r.Latency.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Role, r.URL, r.Model, r.Status, lat, r.Err)
	}
	return tw.Flush()
}

// RunCheck probes cfg's endpoints, prints the table to w, and fails when any
// endpoint failed.
func RunCheck(ctx context.Context, cfg *config.Config, w io.Writer) error {
	rs := Check(ctx, cfg)
	if err := WriteChecks(w, rs); err != nil {
		return err
	}
	failed := 0
	for _, r := range rs {
		if r.Status == "FAIL" {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d endpoints failed their check", failed, len(rs))
	}
	return nil
}
