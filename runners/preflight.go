package runners

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/llm"
)

// preflightTimeout bounds the whole check: a researcher with a typo in a URL
// should hear about it in seconds, not after every request has exhausted its
// retries.
const preflightTimeout = 15 * time.Second

// preflight lists the models of every configured endpoint before a run. A
// role none of whose endpoints answers is an error (the run could only
// record failures); an unreachable endpoint among others, or a model the
// server does not list, is a warning on log.
func preflight(ctx context.Context, cfg *config.Config, log io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	hc := llm.NewHTTPClient()
	type result struct {
		role, url string
		err       error
		missing   string
	}
	var (
		mu      sync.Mutex
		results []result
		wg      sync.WaitGroup
	)
	for _, r := range cfg.Models.Roles() {
		if r.Role.Local() {
			continue
		}
		for _, ep := range r.Role.Endpoints {
			wg.Go(func() {
				ids, err := llm.ListModels(ctx, ep, hc)
				res := result{role: r.Name, url: llm.DisplayURL(ep.URL), err: err}
				if err == nil && len(ids) > 0 && !slices.Contains(ids, ep.Model) {
					res.missing = fmt.Sprintf("%q is not among the served models (%s)", ep.Model, strings.Join(ids, ", "))
				}
				mu.Lock()
				results = append(results, res)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	slices.SortFunc(results, func(a, b result) int { return strings.Compare(a.role+a.url, b.role+b.url) })
	up := map[string]int{}
	for _, r := range results {
		if r.err == nil {
			up[r.role]++
		}
	}
	for _, r := range results {
		switch {
		case r.err != nil && up[r.role] == 0:
			return fmt.Errorf("models.%s: no endpoint reachable (%s: %v); check the url, or run `arbor endpoints check`", r.role, r.url, r.err)
		case r.err != nil:
			fmt.Fprintf(log, "warning: models.%s endpoint %s unreachable (%v); the other endpoints take its share\n", r.role, r.url, r.err)
		case r.missing != "":
			fmt.Fprintf(log, "warning: models.%s endpoint %s: %s\n", r.role, r.url, r.missing)
		}
	}
	return nil
}
