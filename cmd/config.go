package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() {
	c := &cobra.Command{Use: "config", Short: "Inspect the effective configuration"}
	c.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective config as YAML (defaults < file < ARBOR_* env < flags), secrets redacted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			b, err := cfg.YAML()
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "# source: %s\n", cfg.Source)
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	})
	rootCmd.AddCommand(c)
}
