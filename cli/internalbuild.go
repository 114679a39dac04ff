package cli

import (
	"github.com/spf13/cobra"

	"lectern.dev/lectern/buildproc"
)

// internalBuildCmd is the child process in which lectern serve renders a
// repository (buildproc.Child): not for people, so hidden.
func internalBuildCmd(e *env) *cobra.Command {
	var memory int64
	cmd := &cobra.Command{
		Use:    "internal-build",
		Short:  "Render one build request from standard input (run by lectern serve)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return buildproc.Serve(cmd.Context(), memory, e.stdin, e.stdout)
		},
	}
	cmd.Flags().Int64Var(&memory, "memory", buildproc.DefaultMemory, "memory limit in bytes")
	return cmd
}
