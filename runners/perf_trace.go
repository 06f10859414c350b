package runners

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"slices"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/dialog"
	"github.com/arbor-eval/arbor/pkg/llm"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// traceFastShare is the latency of an embedding or rerank call as a share
// of a chat call's: the setting (chat at L, the small encoders at
// 0.1 L), under which sequential ingest should need two chat rounds.
const traceFastShare = 0.1

// roleLatency is a proxy to the fake at url that holds each request for
// the latency of its role first: chat's for chat completions, embed's for
// embeddings, rerank's for everything else (reranks, tokenization). A role
// without its own latency (roles) takes L for chat and L·traceFastShare for
// the small encoders.
func roleLatency(url string, L time.Duration, roles map[string]time.Duration) http.Handler {
	target, err := neturl.Parse(url)
	if err != nil {
		panic(err) // the fake's own URL
	}
	of := func(role string, def time.Duration) time.Duration {
		if d, ok := roles[role]; ok {
			return d
		}
		return def
	}
	fast := time.Duration(float64(L) * traceFastShare)
	chat, embed, rerank := of("chat", L), of("embed", fast), of("rerank", fast)
	proxy := httputil.NewSingleHostReverseProxy(target)
	// A round of a commit has seven requests in flight; http.DefaultTransport
	// keeps two idle connections per host, so the proxy would dial five new
	// ones to the fake at every round, inside the calls being timed.
	proxy.Transport = &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := rerank
		switch r.URL.Path {
		case "/v1/chat/completions":
			d = chat
		case "/v1/embeddings":
			d = embed
		}
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	})
}

// PerfTrace commits p.Turns turns of the LongMemEval-shaped episode through
// ArborMem under the reference configuration with prefetch off (sequential
// ingest), against the fake server of Perf with chat calls taking L and
// embedding and rerank calls 0.1 L (traceFastShare) unless p.Roles gives
// them their own, and prints each turn's
// model calls on a timeline in units of L: when each call started and
// ended after the commit began, and a bar of it. The calls that start only
// after an earlier one has ended are what puts a commit above the rounds
// it needs; the trace is how to find them (arbor perf --trace).
func PerfTrace(ctx context.Context, p PerfPlan, w io.Writer) error {
	if p.Latency <= 0 {
		return fmt.Errorf("perf: latency must be positive, got %s", p.Latency)
	}
	if p.Turns <= 0 {
		p.Turns = 24
	}
	srv := openaifake.New(openaifake.Options{Reply: memoryReply, Dim: perfDim, CountPrompt: tokens.Default().Count})
	defer srv.Close()
	front := httptest.NewServer(roleLatency(srv.URL, p.Latency, p.Roles))
	defer front.Close()
	cfg, err := p.Reference()
	if err != nil {
		return err
	}
	urls := map[string]string{}
	for _, nr := range cfg.Models.Roles() {
		urls[nr.Name] = front.URL // the proxy delays each route by its role
	}
	pointAtFake(cfg, urls, false)
	cfg.ArborMem.Prefetch = false
	d, err := newMemoryDeps(ctx, cfg, "longmemeval")
	if err != nil {
		return err
	}
	f, err := d.factory("arbormem", "")
	if err != nil {
		return err
	}
	ctx, trace := llm.WithCallTrace(ctx)
	ep := SyntheticLongMemEval(p.Turns, 40, 160)
	sys, err := f(ctx, ep.ID)
	if err != nil {
		return err
	}
	L := float64(p.Latency)
	var walls []float64
	for i, st := range ep.Steps {
		if st.Interaction == nil {
			continue
		}
		t0 := time.Now()
		if err := sys.Commit(ctx, *st.Interaction); err != nil {
			return fmt.Errorf("perf trace: turn %d: %w", i+1, err)
		}
		wall := float64(time.Since(t0)) / L
		walls = append(walls, wall)
		writeTurnTrace(w, i+1, st.Interaction, wall, t0, trace.Take(), L)
	}
	slices.Sort(walls)
	fmt.Fprintf(w, "\n%d turns, prefetch off: median %.2f L per committed turn (min %.2f, max %.2f)\n",
		len(walls), walls[len(walls)/2], walls[0], walls[len(walls)-1])
	return nil
}

// traceWidth is the bar width of one L.
const traceWidth = 12

// writeTurnTrace prints one commit's calls: start and end in L after the
// commit began, role/purpose, and a bar on a scale of traceWidth
// characters per L.
func writeTurnTrace(w io.Writer, turn int, in *dialog.Interaction, wall float64, t0 time.Time, calls []llm.Call, L float64) {
	fmt.Fprintf(w, "turn %d (%s): %.2f L, %d calls\n", turn, in.ID, wall, len(calls))
	for _, c := range calls {
		s, e := float64(c.Start.Sub(t0))/L, float64(c.End.Sub(t0))/L
		a, b := int(math.Round(s*traceWidth)), int(math.Round(e*traceWidth))
		bar := strings.Repeat(" ", max(0, a)) + strings.Repeat("█", max(1, b-a))
		mark := ""
		if c.Err {
			mark = " (error)"
		}
		fmt.Fprintf(w, "  %5.2f → %5.2f  %-28s %s%s\n", s, e, c.Role+"/"+c.Purpose, bar, mark)
	}
}
