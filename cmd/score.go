package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/datasets"
	_ "github.com/arbor-eval/arbor/datasets/beam" // loaders register themselves
	_ "github.com/arbor-eval/arbor/datasets/branchmemeval"
	_ "github.com/arbor-eval/arbor/datasets/locomo"
	_ "github.com/arbor-eval/arbor/datasets/longmemeval"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/scoring"
)

func init() {
	c := &cobra.Command{
		Use:   "score [benchmark]",
		Short: "Score predictions from any system with arbor's scorers, or add judges to a recorded run",
		Long: `Score a predictions file (one JSON object per line: the question's id fields and its
"prediction") with the benchmark's own protocol and print accuracy per category:

  LoCoMo       {"sample_id": "conv-26", "qa_index": 3, "prediction": "..."}
  LongMemEval  {"question_id": "e47becba", "prediction": "..."}   ("hypothesis" works too)
  BEAM         {"chat_id": "1", "category": "event_ordering", "index": 0, "prediction": "..."}

Any line may give arbor's question id as "id" instead. With --out DIR, DIR/scores.jsonl
gets one line per question with the same id fields and its scores.

--judges a,b scores the same predictions with several judge configurations and reports
each one's accuracy and their pairwise agreement (percent and Cohen's kappa). Each entry
is "default" (the judge role of --config), "lexical" (the offline lexical judge, reported
as heuristic) or a YAML config file whose models.judge, judge and prompts_dir define the
judge (named after the file).

With --run RUN (a folder, or a bare run id under --results) the judges are added to the
samples of a recorded run, without answering again; benchmark, --data and the config
(judge role, response cache) default to the run's manifest.`,
		Example: `  arbor score locomo --data locomo10.json --predictions preds.jsonl --out scored/
  arbor score longmemeval --data longmemeval_s.json --predictions hyp.jsonl --judges default,configs/a800-4b.yaml
  arbor score --run paper-main-longmemeval --judges lexical`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			var (
				cfg *config.Config
				err error
				run string
			)
			if run, _ = f.GetString("run"); run != "" {
				run, cfg, err = loadRunConfig(cmd, run)
			} else {
				cfg, err = loadConfig(cmd)
			}
			if err != nil {
				return err
			}
			job := scoring.ScoreJob{Load: datasets.Load, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
			if len(args) == 1 {
				job.Bench = args[0]
			}
			job.Data, _ = f.GetString("data")
			job.Predictions, _ = f.GetString("predictions")
			job.RunDir = run
			job.Out, _ = f.GetString("out")
			job.System, _ = f.GetString("system")
			job.Workers, _ = f.GetInt("workers")
			job.Options.LoCoMoJudge, _ = f.GetBool("locomo-judge")
			job.Options.BEAMOfficial, _ = f.GetBool("beam-official")
			job.Options.BEAMOfficial = job.Options.BEAMOfficial || cfg.Judge.OfficialBEAM()
			job.Options.Judge = cfg.Judge
			if cats, _ := f.GetString("categories"); cats != "" {
				job.Categories = strings.Split(cats, ",")
			}
			var specs []string
			if j, _ := f.GetString("judges"); j != "" {
				specs = strings.Split(j, ",")
			}
			if job.Judges, err = scoring.LoadJudges(cmd.Context(), cfg, specs); err != nil {
				return err
			}
			if job.Bench == "" && job.RunDir == "" {
				return cmd.Usage()
			}
			return job.Run(cmd.Context())
		},
	}
	f := c.Flags()
	f.String("data", "", "dataset file the predictions answer")
	f.String("predictions", "", "predictions file: one JSON line per question (id fields and prediction)")
	f.String("run", "", "recorded run directory to add judges to, instead of --predictions")
	f.String("out", "", "write DIR/scores.jsonl, one line per question with its id fields and scores")
	f.String("system", "external", "name of the predicting system in tables")
	f.String("judges", "", `comma-separated judge configurations: "default", "lexical" or config files`)
	f.String("categories", "", "comma-separated question categories to keep (LoCoMo default 1,2,3,4)")
	f.Bool("locomo-judge", false, "LoCoMo: add the LLM judge (CORRECT/WRONG, categories 1-4) beside the official F1")
	f.Bool("beam-official", false, "BEAM: reproduce the released evaluation code's quirks (0.5 truncated to 0, <question> left unfilled)")
	f.Int("workers", 8, "questions scored concurrently (judge calls)")
	rootCmd.AddCommand(c)
}
