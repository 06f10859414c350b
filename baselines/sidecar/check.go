package sidecar

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/tokens"
)

// CheckResult is the outcome of starting one bridged system's sidecar.
type CheckResult struct {
	System  string
	Command string
	// Status is "ok", "FAIL" or "skipped" (the models are offline, so the
	// system could not run anyway).
	Status  string
	Hello   HelloReply
	Latency time.Duration
	Err     string
}

// Check starts every named bridged system's sidecar once, concurrently,
// and performs its handshake: is the library installed, in which version,
// does it speak arbor's protocol.
func Check(ctx context.Context, cfg *config.Config, systems []string) []CheckResult {
	out := make([]CheckResult, len(systems))
	var wg sync.WaitGroup
	for i, sys := range systems {
		out[i] = CheckResult{System: sys, Command: "-"}
		if b := cfg.Bridges.Get(sys); b != nil {
			out[i].Command = strings.Join(b.Command, " ")
		}
		if cfg.Bridges.Get(sys) != nil && (cfg.Models.Chat.Local() || cfg.Models.Embed.Local()) {
			out[i].Status, out[i].Err = "skipped", "needs models.chat and models.embed endpoints"
			continue
		}
		spec, err := SpecFor(cfg, sys, "")
		if err != nil {
			out[i].Status, out[i].Err = "FAIL", err.Error()
			continue
		}
		wg.Go(func() {
			t0 := time.Now()
			h, err := NewPool(spec, tokens.Default()).Check(ctx)
			out[i].Latency = time.Since(t0)
			out[i].Status, out[i].Hello = "ok", h
			if err != nil {
				out[i].Status, out[i].Err = "FAIL", err.Error()
			}
		})
	}
	wg.Wait()
	return out
}

// WriteChecks prints results as a table: system, command, status, library,
// installed version, version the sidecar was written against, latency, error.
func WriteChecks(w io.Writer, rs []CheckResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BRIDGE\tCOMMAND\tSTATUS\tLIBRARY\tVERSION\tWRITTEN FOR\tLATENCY\tERROR")
	for _, r := range rs {
		lat, lib, ver, want := "-", "-", "-", "-"
		if r.Status != "skipped" {
			lat = r.Latency.Round(time.Millisecond).String()
		}
		if r.Hello.Library != "" {
			lib, ver, want = r.Hello.Library, r.Hello.LibraryVersion, r.Hello.WrittenAgainst
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.System, r.Command, r.Status, lib, ver, want, lat, strings.Join(strings.Fields(r.Err), " "))
	}
	return tw.Flush()
}

// RunCheck checks systems, prints the table to w and fails naming the
// bridges that did not start.
func RunCheck(ctx context.Context, cfg *config.Config, systems []string, w io.Writer) error {
	rs := Check(ctx, cfg, systems)
	var failed []string
	for _, r := range rs {
		if r.Status == "FAIL" {
			failed = append(failed, r.System)
		}
	}
	err := WriteChecks(w, rs)
	if err == nil && len(failed) > 0 {
		err = fmt.Errorf("bridges that failed their check: %s (see the ERROR column)", strings.Join(failed, ", "))
	}
	return err
}
