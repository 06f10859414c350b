package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/baselines/sidecar"
	"github.com/arbor-eval/arbor/pkg/llm/provider"
)

func init() {
	c := &cobra.Command{Use: "endpoints", Short: "Inspect the configured model endpoints"}
	check := &cobra.Command{
		Use:   "check",
		Short: "Probe every configured endpoint (models, a one-token chat, an embedding, a rerank, a tokenize) and every bridged system's sidecar (start, handshake, library version), and print two tables",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			bridges, _ := cmd.Flags().GetString("bridges")
			epErr := provider.RunCheck(cmd.Context(), cfg, cmd.OutOrStdout())
			var systems []string
			for _, s := range strings.Split(bridges, ",") {
				if s = strings.TrimSpace(s); s != "" && s != "none" {
					systems = append(systems, s)
				}
			}
			if len(systems) == 0 {
				return epErr
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return errors.Join(epErr, sidecar.RunCheck(cmd.Context(), cfg, systems, cmd.OutOrStdout()))
		},
	}
	check.Flags().String("bridges", strings.Join(sidecar.Systems, ","), `bridged systems whose sidecars to start and handshake ("none" for none)`)
	c.AddCommand(check)
	rootCmd.AddCommand(c)
}
