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
	for _, r := range cfg.Models.Roles() {
		if r.Role.Local() {
			out = append(out, CheckResult{Role: r.Name, URL: "-", Model: localName(r.Name), Status: "local"})
			continue
		}
		for _, ep := range r.Role.Endpoints {
			jobs = append(jobs, job{i: len(out), name: r.Name, role: *r.Role, ep: ep})
			out = append(out, CheckResult{Role: r.Name, URL: llm.DisplayURL(ep.URL), Model: ep.Model})
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
		ids, err := served(ctx, hc, ep)
		if errors.Is(err, errNotServed) {
			return fmt.Errorf("models: %q is not served here (served: %s)", ep.Model, strings.Join(ids, ", "))
		}
		if err != nil {
			return fmt.Errorf("models: %w", err)
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

// errNotServed marks a reachable endpoint that does not list the configured
// model.
var errNotServed = errors.New("model not served")

// served lists ep's models and returns errNotServed (with the list) when
// ep.Model is not among them; a server that lists nothing is taken at its word.
func served(ctx context.Context, hc *http.Client, ep config.Endpoint) ([]string, error) {
	ids, err := llm.ListModels(ctx, ep, hc)
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 && !slices.Contains(ids, ep.Model) {
		return ids, errNotServed
	}
	return ids, nil
}

// preflightTimeout bounds Preflight: a typo in a URL should be reported in
// seconds, not after every request has exhausted its retries.
const preflightTimeout = 15 * time.Second

// Preflight lists the models of every configured endpoint before a run,
// without the chat, embedding or rerank calls of Check (so it costs the
// servers nothing). Each listing is retried under the retry policy as any
// other call: one 429 or 503 from a busy server must not abort a run that
// every later request would have retried through. A role none of whose
// endpoints answers is an error, in one line: the run could only record
// failures. An unreachable endpoint among others, or a model a server does
// not list, is a warning on log.
func Preflight(ctx context.Context, cfg *config.Config, log io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	hc := llm.NewHTTPClient()
	type result struct {
		role, url string
		ep        config.Endpoint
		ids       []string
		err       error
	}
	var results []result
	for _, r := range cfg.Models.Roles() {
		if !r.Role.Local() {
			for _, ep := range r.Role.Endpoints {
				results = append(results, result{role: r.Name, url: llm.DisplayURL(ep.URL), ep: ep})
			}
		}
	}
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			res := &results[i]
			retry := llm.NewRetrier(cfg.Retry, res.role, nil)
			res.err = retry.Do(ctx, func(ctx context.Context) error {
				var err error
				res.ids, err = served(ctx, hc, res.ep)
				return err
			})
		})
	}
	wg.Wait()
	up := map[string]int{}
	for _, r := range results {
		if r.err == nil || errors.Is(r.err, errNotServed) {
			up[r.role]++
		}
	}
	for _, r := range results {
		switch {
		case r.err == nil:
		case errors.Is(r.err, errNotServed):
			fmt.Fprintf(log, "warning: models.%s endpoint %s: %q is not among the served models (%s)\n", r.role, r.url, r.ep.Model, strings.Join(r.ids, ", "))
		case up[r.role] == 0:
			return fmt.Errorf("models.%s: no endpoint reachable (%s: %v); check the url, or run `arbor endpoints check`", r.role, r.url, r.err)
		default:
			fmt.Fprintf(log, "warning: models.%s endpoint %s unreachable (%v); the other endpoints take its share\n", r.role, r.url, r.err)
		}
	}
	return nil
}
