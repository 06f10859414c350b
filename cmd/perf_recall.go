package cmd

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/runners"
)

// init adds `arbor perf recall` under arbor perf (perf.go's init, which
// registers perf, runs first: files initialise in name order).
func init() {
	perf := perfCommand()
	var (
		p       runners.RecallPlan
		storage string
	)
	c := &cobra.Command{
		Use:   "recall",
		Short: "Measure approximate vector search (binary, ivf, int8/int4 rows) against exact search on the embeddings a real run cached",
		Long: `Reads every embedding a run's response cache holds (embed/xx/<sha256>
under cache.dir, default <results>/.cache/llm), holds a seeded sample of them
out as queries, and searches the rest with pkg/index's own indexes: exact
float32 search (the reference), exact search over int8 and int4 rows, the
binary sign-bit stage at each --rerank (vector_rerank) and IVF at --probe
(ivf_probe), at each of --sizes rows and at the whole sample. Binary and IVF
are measured per channel over the rows a run keeps it in: under auto the node
and record channels' k over int8 rows and the fact channel's over int4
(vector_storage, fact_vector_storage, resolved as the model path does);
--storage, or --k, measures every k over one storage instead. It prints each
setting's recall@k against exact float32 search for the dense channels' k,
the median time of one search, and whether issue 32's bar (recall@k ≥ 0.995
at every k) is met: the figure that decides whether arbormem.vector_search:
binary may stand in for exact in configs/a800.yaml.

Queries are stored vectors (leave-one-out: each is held out of the index it
searches). Entries that do not decode are counted and skipped; a cache with
several models' vectors is measured at its most common dimension (--dim picks
another). No model is called and nothing is written.`,
		Example: `  arbor perf recall --config configs/a800.yaml
  arbor perf recall --cache results/.cache/llm --queries 400 --seed 2
  arbor perf recall --cache DIR --rerank 5,10,20 --sizes 4000,12000 --max-rows 60000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			f := cmd.Flags()
			if !f.Changed("cache") {
				p.Cache = cfg.CacheDir()
			}
			if !f.Changed("k") {
				p.Ks = runners.ChannelKs(cfg.ArborMem)
			}
			if !f.Changed("probe") {
				p.Probe = cfg.ArborMem.IVFProbe
			}
			if !f.Changed("storage") {
				// Each channel over the rows a run keeps it in, as the
				// model path resolves vector_storage and fact_vector_storage
				// (auto: nodes and records int8, facts int4); with --k the
				// channels cannot be told apart, so every k is measured
				// over the nodes' and records' storage.
				channels, facts := arbormem.VectorStorages(cfg.ArborMem, false)
				storage = runners.StorageName(channels)
				if !f.Changed("k") {
					p.KsOf = runners.ChannelStorageKs(cfg.ArborMem, channels, facts)
				}
			}
			if !f.Changed("rerank") && cfg.ArborMem.VectorRerank > 0 && !slices.Contains(p.Reranks, cfg.ArborMem.VectorRerank) {
				p.Reranks = append(p.Reranks, cfg.ArborMem.VectorRerank)
				slices.Sort(p.Reranks)
			}
			if p.Storage, err = runners.StorageFor(storage); err != nil {
				return err
			}
			p.Log = cmd.ErrOrStderr()
			rep, err := runners.PerfRecall(cmd.Context(), p)
			if err != nil {
				return err
			}
			runners.WriteRecallReport(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&p.Cache, "cache", "", "response cache folder, or its embed folder (default: the config's cache.dir, <results>/.cache/llm when empty)")
	f.IntVar(&p.Queries, "queries", 200, "stored vectors held out as queries (at most a fifth of the sample)")
	f.Uint64Var(&p.Seed, "seed", 1, "seed of the sample and of the queries drawn from it")
	f.IntSliceVar(&p.Ks, "k", nil, "depths measured (default: the dense channels' k under the config: semantic_candidates, the fact search's, record_candidates)")
	f.IntSliceVar(&p.Reranks, "rerank", []int{5, 10, 20}, "binary short lists measured, as multiples of k (default 5,10,20 and the config's vector_rerank)")
	f.IntVar(&p.Probe, "probe", 0, "IVF groups scored per search (default: the config's ivf_probe; --probe 0 leaves IVF out)")
	f.StringVar(&storage, "storage", "", "rows of the binary and IVF indexes at every k: float32, int8, int4 (default: each channel's own, as the config's vector_storage and fact_vector_storage resolve on the model path)")
	f.IntSliceVar(&p.Sizes, "sizes", []int{4000, 12000}, "index sizes measured below the whole sample (each the first that many rows)")
	f.IntVar(&p.MaxRows, "max-rows", 50000, "largest index measured: a bigger cache is sampled uniformly down to this many rows plus the queries (0: every vector)")
	f.IntVar(&p.Dim, "dim", 0, "dimension measured when the cache holds several models' vectors (default: the most common)")
	perf.AddCommand(c)
}
