package cmd

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/fake"
	"github.com/arbor-eval/arbor/pkg/llm/openaifake"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/runners"
)

func init() {
	var opts openaifake.Options
	var sopts fake.Options
	var promptDirs []string
	var addr, kinds, scale string
	var echo bool
	c := &cobra.Command{
		Use:   "fake-endpoint",
		Short: "Serve a fake OpenAI-compatible endpoint (chat, embeddings, rerank, tokenize) that speaks arbor's prompts, for running the model path without a GPU",
		Long: `Serve a fake model server that speaks every prompt of arbor: it recognises
each chat request by the template it was rendered from and answers in the
prompt's schema with what arbor's offline rules compute from the request
(ArborMem's memory operations, extractive answers, lexical judge verdicts,
session summaries, the BranchMemEval verbaliser). Embeddings and reranks are
the offline providers', so a config whose chat, embed and rerank endpoints
point here runs the model-backed path end to end. A prompt it does not
recognise (one overridden with prompts_dir) gets an echo; --prompts DIR
teaches it a prompts_dir's wording too (the paper's, from arbor prompts import).

The reranker speaks a cross-encoder's scale (--rerank-scale auto): logits
of about −10…+10 where raw scores are asked for (TEI's raw_scores), their
sigmoid where a probability is (vLLM's relevance_score). /tokenize counts
with the exact Qwen3 counter. The realistic switches reproduce what a first
real server gets wrong, each of which ` + "`arbor doctor`" + ` detects:
--rerank-scale probability|logit, --thinking, --embed-dim N,
--embed-unnormalised, --tokenizer-skew RATE, and --noise.

--noise varies a share of the replies the way real chat models do
(reasoning blocks, code fences, prose around the JSON, reordered or extra
keys, trailing commas, single quotes, truncation at max_tokens), seeded by
--noise-seed. On exit it prints, per prompt, the replies given, varied and
unparseable. --echo serves the old echoing fake instead. Latency and injected
faults exercise pools, retries and the cache.`,
		Example: `  arbor fake-endpoint --addr 127.0.0.1:8001
  arbor fake-endpoint --noise 0.2 --noise-seed 7
  arbor fake-endpoint --rerank-scale probability --thinking --embed-dim 768
  arbor fake-endpoint --latency 200ms --fail-rate 0.05 --fail-kinds 500,drop`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			for _, k := range strings.Split(kinds, ",") {
				if k = strings.TrimSpace(k); k != "" {
					f, err := openaifake.ParseFault(k)
					if err != nil {
						return err
					}
					opts.FaultKinds = append(opts.FaultKinds, f)
				}
			}
			if opts.RerankScale, err = openaifake.ParseRerankScale(scale); err != nil {
				return err
			}
			if echo {
				return openaifake.Serve(cmd.Context(), addr, opts, cmd.OutOrStdout())
			}
			sopts.Dim = opts.Dim
			for _, dir := range promptDirs {
				ps, err := prompt.Load(dir)
				if err != nil {
					return err
				}
				sopts.Prompts = append(sopts.Prompts, ps)
			}
			sp, err := fake.New(sopts)
			if err != nil {
				return err
			}
			err = openaifake.Serve(cmd.Context(), addr, sp.Install(opts), cmd.OutOrStdout())
			if werr := sp.WriteStats(cmd.OutOrStdout()); err == nil {
				err = werr
			}
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8001", "listen address")
	f.StringSliceVar(&promptDirs, "prompts", nil, "prompts_dir whose wording is recognised too (repeatable), e.g. the output of arbor prompts import")
	f.StringVar(&opts.Model, "model", "fake-model", "served model id")
	f.IntVar(&opts.Dim, "embed-dim", 1024, "embedding dimension (models.embed.dim must match it)")
	f.IntVar(&opts.Dim, "dim", 1024, "embedding dimension (an alias of --embed-dim)")
	f.StringVar(&scale, "rerank-scale", openaifake.RerankAsAsked, "rerank scores: auto (a cross-encoder's logits when raw scores are asked, as TEI's raw_scores, else their sigmoid, as vLLM's relevance_score), probability (always the sigmoid), logit (always the logit), lexical (the offline reranker's score as is)")
	f.BoolVar(&opts.Thinking, "thinking", false, "open every chat reply with a Qwen3 thinking block unless chat_template_kwargs.enable_thinking is false")
	f.BoolVar(&opts.EmbedUnnormalised, "embed-unnormalised", false, "return embeddings that are not unit length")
	f.Float64Var(&opts.TokenizerSkew, "tokenizer-skew", 0, "multiply /tokenize counts by 1+RATE (a server tokenizer other than the local Qwen3 counter)")
	f.BoolVar(&echo, "echo", false, "echo the prompt instead of speaking it (the plain fake)")
	f.Float64Var(&sopts.Noise, "noise", 0, "share of replies varied as real chat models vary them (0 to 1)")
	f.Uint64Var(&sopts.Seed, "noise-seed", 1, "seed of the noise")
	f.DurationVar(&opts.FirstTokenLatency, "latency", 0, "latency before the first token (and before non-chat replies)")
	f.DurationVar(&opts.TokenLatency, "token-latency", 0, "latency between streamed tokens")
	f.Float64Var(&opts.FaultRate, "fail-rate", 0, "probability that a request fails with an injected fault")
	f.StringVar(&kinds, "fail-kinds", "500,hang,truncate,drop", "faults to draw from: 500, 429, 400, hang, truncate, malformed, drop")
	f.Uint64Var(&opts.FaultSeed, "seed", 1, "seed of the fault generator")
	f.StringVar(&opts.Reasoning, "reasoning", "", "text streamed as reasoning before each reply")
	f.StringVar(&opts.RetryAfter, "retry-after", "1", "Retry-After header sent with 429")
	f.DurationVar(&opts.Hang, "hang", 0, "how long a hang lasts (default 1m)")
	c.AddCommand(compareCmd())
	rootCmd.AddCommand(c)
}

func compareCmd() *cobra.Command {
	var opts runners.CompareOptions
	var asJSON bool
	var row string
	c := &cobra.Command{
		Use:   "compare",
		Short: "Replay BranchMemEval through ArborMem offline and on the model path against a speaking fake, and compare",
		Long: `Replay BranchMemEval through ArborMem twice, offline (rule-based memory
operations, local embedder and reranker) and model-backed against an
in-process speaking fake on loopback (every memory operation, embedding and
rerank over HTTP), and print how far they agree: interactions placed under
the same parent, questions with the same evidence bundle, mean evidence
recall of each, and, with --noise, the replies ArborMem repaired or gave up
on against the replies the fake made unparseable.

The model-backed run resolves arbormem.routing, arbormem.ce_score,
arbormem.supplemental_fill and the offline routing's content rules
(shift_markers, content_returns, label_returns, novel_shift) as the offline
run does (heuristic routing, s_ce as the scaled reranker score, fill and
rules on) so that the two are comparable; --model-defaults keeps the config's values (by default the
paper's cascade, the reranker's logit, no fill) to measure what they change.`,
		Example: `  arbor fake-endpoint compare
  arbor fake-endpoint compare --noise 0.2 --noise-seed 7
  arbor fake-endpoint compare --limit 5 --json
  arbor fake-endpoint compare --model-defaults`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			res, err := runners.CompareModelPath(cmd.Context(), cfg, opts)
			if err != nil {
				return err
			}
			if row != "" {
				return runners.WriteComparisonRow(cmd.OutOrStdout(), row, res)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			return runners.WriteComparison(cmd.OutOrStdout(), res)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Data, "data", "", "BranchMemEval file (default: the embedded set)")
	f.IntVar(&opts.Limit, "limit", 0, "keep the first N episodes (0: all)")
	f.Float64Var(&opts.Noise, "noise", 0, "share of the fake's replies varied as real chat models vary them (0 to 1)")
	f.Uint64Var(&opts.Seed, "noise-seed", 1, "seed of the noise")
	f.BoolVar(&opts.ModelDefaults, "model-defaults", false, "run the model-backed ArborMem with the config's routing and ce_score instead of the offline run's")
	f.IntVar(&opts.Workers, "workers", 2, "episodes replayed at once")
	f.BoolVar(&asJSON, "json", false, "print the figures as JSON")
	f.StringVar(&row, "row", "", "print the figures as one row of the README's equivalence table, labelled with this text (scripts/readme-figures.sh)")
	return c
}
