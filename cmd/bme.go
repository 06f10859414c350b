package cmd

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/datasets/branchmemeval"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
	"github.com/arbor-eval/arbor/pkg/prompt"
	"github.com/arbor-eval/arbor/pkg/tokens"
	"github.com/arbor-eval/arbor/runners"
)

func init() {
	c := &cobra.Command{
		Use:   "bme",
		Short: "Generate, validate and describe BranchMemEval sets (paper §5, appendix B)",
	}
	gen := &cobra.Command{
		Use:   "generate",
		Short: "Plan and realize a BranchMemEval set (the paper's composition by default)",
		Long: `Plan and realize a BranchMemEval set: 33 sessions, 100 in-dialogue questions and
1,442 non-question interactions, as in the paper's appendix B.1. The same seed
always gives the same bytes; --seed 42 is the set embedded in arbor.

--verbalize-with chat rewrites every non-question turn with the configured chat
model (prompt bme_verbalize), keeps a rewrite only when it still carries the
planned values, and validates the result again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			seed, _ := cmd.Flags().GetInt64("seed")
			out, _ := cmd.Flags().GetString("output")
			with, _ := cmd.Flags().GetString("verbalize-with")
			if s, _ := cmd.Flags().GetString("seeds"); s != "" {
				seeds, err := runners.ParseSeeds(s)
				if err != nil {
					return err
				}
				if with != "template" {
					return fmt.Errorf("--seeds: only the template verbalizer (got --verbalize-with %s)", with)
				}
				t, err := runners.GenerateSeeds(cmd.Context(), seeds, out, tokens.Default(), "Qwen3 tokens")
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(cmd.OutOrStdout(), t.Markdown())
				return err
			}
			f, err := branchmemeval.Generate(cmd.Context(), branchmemeval.Options{Seed: seed})
			if err != nil {
				return err
			}
			switch with {
			case "template":
			case "chat":
				cfg, err := loadConfig(cmd)
				if err != nil {
					return err
				}
				set, err := provider.New(cmd.Context(), cfg)
				if err != nil {
					return err
				}
				defer set.Close()
				client, err := set.ChatClient()
				if err != nil {
					return err
				}
				ps, err := prompt.Load(cfg.PromptsDir)
				if err != nil {
					return err
				}
				model := "chat"
				if eps := cfg.Models.Chat.Endpoints; len(eps) > 0 {
					model = eps[0].Model
				}
				rw := &branchmemeval.ChatRewriter{Client: client, Prompts: ps, Model: model, Workers: set.ChatCapacity}
				var st branchmemeval.RewriteStats
				if f, st, err = rw.Rewrite(cmd.Context(), f); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "chat verbalizer: %d turns rewritten, %d kept from the template\n", st.Rewritten, st.Kept)
			default:
				return fmt.Errorf("--verbalize-with: expected template or chat, got %q", with)
			}
			b, err := f.Marshal()
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(b)
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d sessions, %d bytes)\n", out, len(f.Sessions), len(b))
			return nil
		},
	}
	gen.Flags().Int64("seed", branchmemeval.DefaultSeed, "planner seed")
	gen.Flags().StringP("output", "o", "", "output file (default: standard output)")
	gen.Flags().String("verbalize-with", "template", "verbalizer for non-question turns: template or chat")
	gen.Flags().String("seeds", "", "generate one set per seed (e.g. 42,43,44,45,46), into the folder --output when given, and print the spread of the sets' figures beside seed 42's")

	val := &cobra.Command{
		Use:   "validate [FILE]",
		Short: "Check a set against appendix B.2's controls (the embedded set when FILE is omitted)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, name, err := readBME(args)
			if err != nil {
				return err
			}
			issues := branchmemeval.Validate(f)
			for _, is := range issues {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", name, is)
			}
			if len(issues) > 0 {
				return fmt.Errorf("%s: %d validation failures", name, len(issues))
			}
			st := branchmemeval.ComputeStats(f, nil, "")
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (%d sessions, %d questions, %d non-question interactions)\n", name, st.Sessions, st.Questions, st.Interactions)
			return nil
		},
	}

	stats := &cobra.Command{
		Use:   "stats [FILE]",
		Short: "Print a set's composition tables (the embedded set when FILE is omitted)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, _, err := readBME(args)
			if err != nil {
				return err
			}
			st := branchmemeval.ComputeStats(f, tokens.Default(), "Qwen3 tokens")
			if j, _ := cmd.Flags().GetBool("json"); j {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			per, _ := cmd.Flags().GetBool("sessions")
			return st.Render(cmd.OutOrStdout(), per)
		},
	}
	stats.Flags().Bool("sessions", false, "add one row per session")
	stats.Flags().Bool("json", false, "print the statistics as JSON")

	c.AddCommand(gen, val, stats)
	rootCmd.AddCommand(c)
}

// readBME parses FILE, or the embedded set when no file is given.
func readBME(args []string) (*branchmemeval.File, string, error) {
	name, data := "embedded branchmemeval.json", branchmemeval.Shipped()
	if len(args) == 1 {
		b, err := branchmemeval.ReadFile(args[0])
		if err != nil {
			return nil, "", err
		}
		name, data = args[0], b
	}
	f, err := branchmemeval.Parse(data, name)
	return f, name, err
}
