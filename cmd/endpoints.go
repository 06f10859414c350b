package cmd

import (
	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/llm/provider"
)

func init() {
	c := &cobra.Command{Use: "endpoints", Short: "Inspect the configured model endpoints"}
	c.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Probe every configured endpoint (models, a one-token chat, an embedding, a rerank, a tokenize) and print a table",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			return provider.RunCheck(cmd.Context(), cfg, cmd.OutOrStdout())
		},
	})
	rootCmd.AddCommand(c)
}
