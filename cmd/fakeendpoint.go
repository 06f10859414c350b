package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/llm/llmtest"
)

func init() {
	var opts llmtest.Options
	var addr, kinds string
	c := &cobra.Command{
		Use:   "fake-endpoint",
		Short: "Serve a fake OpenAI-compatible endpoint (chat, embeddings, rerank, tokenize) for trying arbor without a GPU",
		Long: `Serve llmtest's fake model server: echoing chat replies (streamed or not),
hashed embeddings, word-overlap reranks (vLLM /v1/rerank and TEI /rerank) and
word-count /tokenize, with optional latency and injected faults. Point a
config's endpoints at it to exercise pools, retries and the cache.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, k := range strings.Split(kinds, ",") {
				if k = strings.TrimSpace(k); k != "" {
					f, err := llmtest.ParseFault(k)
					if err != nil {
						return err
					}
					opts.FaultKinds = append(opts.FaultKinds, f)
				}
			}
			return llmtest.Serve(cmd.Context(), addr, opts, cmd.OutOrStdout())
		},
	}
	f := c.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8001", "listen address")
	f.StringVar(&opts.Model, "model", "fake-model", "served model id")
	f.IntVar(&opts.Dim, "dim", 1024, "embedding dimension")
	f.DurationVar(&opts.FirstTokenLatency, "latency", 0, "latency before the first token (and before non-chat replies)")
	f.DurationVar(&opts.TokenLatency, "token-latency", 0, "latency between streamed tokens")
	f.Float64Var(&opts.FaultRate, "fail-rate", 0, "probability that a request fails with an injected fault")
	f.StringVar(&kinds, "fail-kinds", "500,hang,truncate,drop", "faults to draw from: 500, 429, 400, hang, truncate, malformed, drop")
	f.Uint64Var(&opts.FaultSeed, "seed", 1, "seed of the fault generator")
	f.StringVar(&opts.Reasoning, "reasoning", "", "text streamed as reasoning before each reply")
	f.StringVar(&opts.RetryAfter, "retry-after", "1", "Retry-After header sent with 429")
	f.DurationVar(&opts.Hang, "hang", 0, "how long a hang lasts (default 1m)")
	rootCmd.AddCommand(c)
}
