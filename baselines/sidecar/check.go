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
// systems that failed their check. RunCheckRequired is RunCheck where only
// the required systems' failures fail.
func RunCheck(ctx context.Context, cfg *config.Config, systems []string, w io.Writer) error {
	return RunCheckRequired(ctx, cfg, systems, systems, w)
}

// RunCheckRequired checks systems and prints the table to w. A failed
// system named in required is an error; any other failed system is an
// optional bridge that is not installed, which a note names and which does
// not fail the check: a run needs a bridge only when it names the system.
func RunCheckRequired(ctx context.Context, cfg *config.Config, systems, required []string, w io.Writer) error {
	rs := Check(ctx, cfg, systems)
	need := map[string]bool{}
	for _, s := range required {
		need[s] = true
	}
	var failed, optional []string
	for _, r := range rs {
		if r.Status != "FAIL" {
			continue
		}
		if need[r.System] {
			failed = append(failed, r.System)
		} else {
			optional = append(optional, r.System)
		}
	}
	if err := WriteChecks(w, rs); err != nil {
		return err
	}
	if len(optional) > 0 {
		fmt.Fprintf(w, "note: optional bridges not available: %s (see the ERROR column); runs that do not name them are unaffected; name a system with --systems to require it\n", strings.Join(optional, ", "))
	}
	if len(failed) > 0 {
		return fmt.Errorf("bridges that failed their check: %s (see the ERROR column)", strings.Join(failed, ", "))
	}
	return nil
}
