package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/internal/buildinfo"
)

// memdVersion is the version memd logs and reports in its status.
func memdVersion() string { return buildinfo.Version() }

// versionLine is what memd version and memd --version print.
func versionLine() string {
	return fmt.Sprintf("memd %s %s/%s %s\n", buildinfo.String(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print memd's version and the commit it was built from",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprint(cmd.OutOrStdout(), versionLine())
		},
	}
}
