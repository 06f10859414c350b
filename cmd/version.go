package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arbor-eval/arbor/pkg/buildinfo"
)

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print arbor's version and git commit",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), buildinfo.String())
		},
	})
}
