package cmd

import (
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/serve"
)

func init() {
	var addr, dataDir string
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve ArborMem as a live, persistent memory in front of an OpenAI-compatible chat model",
		Long: `Serve ArborMem as a live memory: an OpenAI-compatible /v1/chat/completions
where the caller sends only the new user message and a memory scope (the
X-Arbor-Memory header or the request's "user" field; one forest per scope).
Each turn is localized in the scope's forest, the paper's message layout is
assembled within serve.budget and forwarded to the chat role's endpoints
(streamed when asked), and the finished interaction is committed in the
background. A memory API recalls, commits, shows and forgets scopes:

  GET    /v1/memory                       the scopes you may use
  GET    /v1/memory/{scope}/recall?q=&budget=   the evidence bundle and its trace
  POST   /v1/memory/{scope}/commit        {"user": ..., "assistant": ...}
  GET    /v1/memory/{scope}/forest        branches, nodes, summaries
  DELETE /v1/memory/{scope}               forget the scope
  GET    /healthz, /metrics               health, Prometheus metrics

Memory is kept in --data-dir/memory.db (committed interactions plus snapshots,
written transactionally): a killed server loses at most the commit in flight.
Without serve.tokens only loopback clients are served. With the offline
default (no chat endpoint) replies are extractive and the memory heuristic;
every reply says so (X-Arbor-Heuristic: true).`,
		Example: `  arbor serve                                   # offline, 127.0.0.1:8080, ./arbor-memory
  arbor serve --config configs/a800.yaml --addr 127.0.0.1:9000 --data-dir /srv/arbor
  curl -s localhost:8080/v1/chat/completions -H 'X-Arbor-Memory: alice' \
    -d '{"messages": [{"role": "user", "content": "Book the Lisbon trip for May 3."}]}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			s, err := serve.New(cmd.Context(), serve.Options{Config: cfg, DataDir: dataDir})
			if err != nil {
				return err
			}
			return s.ListenAndServe(cmd.Context(), addr, func(a net.Addr) {
				mode := "model-backed"
				if s.Heuristic() {
					mode = "offline (heuristic replies and memory operations)"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "arbor serve: http://%s (%s), memory in %s\n", a, mode, dataDir)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "listen address")
	f.StringVar(&dataDir, "data-dir", "arbor-memory", "folder of the memory database")
	rootCmd.AddCommand(c)
}
