package cmd

import (
	"errors"
	"fmt"
	"slices"
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
			systems := splitNames(bridges)
			// Bridges named on the command line are required; the default
			// list is probed, and a missing one is only noted.
			var required []string
			if cmd.Flags().Changed("bridges") {
				required = systems
			}
			for _, s := range splitList(cmd.Flags(), "systems") {
				if sidecar.Is(s) {
					required = append(required, s)
					if !slices.Contains(systems, s) {
						systems = append(systems, s)
					}
				}
			}
			if len(systems) == 0 {
				return epErr
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return errors.Join(epErr, sidecar.RunCheckRequired(cmd.Context(), cfg, systems, required, cmd.OutOrStdout()))
		},
	}
	check.Flags().String("bridges", strings.Join(sidecar.Systems, ","), `bridged systems whose sidecars to start and handshake ("none" for none); named here, a failure exits 1, by default only a note`)
	check.Flags().String("systems", "", "systems a run will use; a bridged one among them must pass its check")
	c.AddCommand(check)
	rootCmd.AddCommand(c)
}

// splitNames splits a comma-separated list, dropping blanks and "none".
func splitNames(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" && x != "none" {
			out = append(out, x)
		}
	}
	return out
}
