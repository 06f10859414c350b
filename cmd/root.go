// Package cmd holds arbor's cobra commands. Each file parses flags, builds a
// config and calls one function in runners/ (or a package below it).
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/buildinfo"
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/runners"
)

var rootCmd = &cobra.Command{
	Use:   "arbor",
	Short: "Reproduce the ArborMem paper: memory systems, benchmarks, scoring and tables",
	Long: `arbor replays long conversations through memory systems (ArborMem and baselines),
answers the benchmark questions, scores them, and renders the paper's tables.

With no configuration it runs fully offline: rule-based memory operations, an
extractive answerer and lexical judges, all labelled "heuristic" in every table.
Point the model roles at vLLM endpoints with --config to run the real thing.

Start with:  arbor eval branchmemeval`,
	SilenceUsage:  true,
	SilenceErrors: true,
	Version:       buildinfo.Version,
}

// flagKeys maps persistent flag names to config keys (flags win over all).
var flagKeys = map[string]string{
	"results": "run.results",
	"verbose": "run.verbose",
	// Run flags (eval, sweep, ablate, latency).
	"beam-scoring": "judge.beam_scoring",
	// Commands that print tables define these locally.
	"ci":              "report.ci",
	"resamples":       "report.resamples",
	"interval":        "report.interval",
	"assume-accuracy": "report.assumed_accuracy",
}

func init() {
	pf := rootCmd.PersistentFlags()
	pf.String("config", "", "YAML config file layered over the embedded offline default (default $ARBOR_CONFIG)")
	pf.String("results", "results", "folder for run outputs (results/<run-id>/...)")
	pf.BoolP("verbose", "v", false, "log every model call and decision")
	pf.Bool("no-progress", false, "never draw progress bars; print plain periodic lines")
	rootCmd.SetVersionTemplate(buildinfo.String() + "\n")
}

// loadConfig resolves the config for cmd from its flags.
func loadConfig(cmd *cobra.Command) (*config.Config, error) {
	file, _ := cmd.Flags().GetString("config")
	c, err := config.Load(file, cmd.Flags(), flagKeys)
	if err != nil {
		return nil, err
	}
	return finishConfig(cmd, c), nil
}

// loadRunConfig finds the recorded run named by arg (a folder, or a bare
// run id under --results) and the config to rebuild or re-score it with:
// the run's own config from its manifest, with its response cache and
// results folder, unless --config (or ARBOR_CONFIG) names another; flags
// and ARBOR_* variables override either.
func loadRunConfig(cmd *cobra.Command, arg string) (string, *config.Config, error) {
	results, _ := cmd.Flags().GetString("results")
	dir, err := runners.ResolveRun(arg, results)
	if err != nil {
		return "", nil, err
	}
	if file, _ := cmd.Flags().GetString("config"); file != "" || os.Getenv("ARBOR_CONFIG") != "" {
		c, err := loadConfig(cmd)
		return dir, c, err
	}
	data, source, notes, err := runners.ManifestConfig(dir)
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: %v; using the default config\n", dir, err)
		c, err := loadConfig(cmd)
		return dir, c, err
	}
	for _, n := range notes {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", n)
	}
	c, err := config.LoadYAML(data, source, cmd.Flags(), flagKeys)
	if err != nil {
		return "", nil, err
	}
	if !cmd.Flags().Changed("results") {
		// The run's results folder, which holds its response cache
		// (cache.dir "" means <results>/.cache/llm).
		c.Run.Results = filepath.Dir(dir)
	}
	return dir, finishConfig(cmd, c), nil
}

// finishConfig applies --no-progress and prints the config's warnings.
func finishConfig(cmd *cobra.Command, c *config.Config) *config.Config {
	if np, _ := cmd.Flags().GetBool("no-progress"); np {
		c.Run.Progress = false
	}
	for _, w := range c.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	return c
}

// Execute runs the root command and returns the process exit code.
func Execute() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer func() { stopProfile() }()
	if err := rootCmd.ExecuteContext(ctx); err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			// Every finished sample is on disk; the same command resumes.
			fmt.Fprintln(os.Stderr, "arbor: interrupted — run the same command to resume")
			return 130
		}
		fmt.Fprintln(os.Stderr, "arbor:", err)
		return 1
	}
	return 0
}
