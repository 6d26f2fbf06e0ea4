package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/clitext"
)

func newRmCmd(a *app) *cobra.Command {
	return removalCmd(a, "rm DIR", "Unregister a folder and drop its notes from the index (the files stay)",
		(*api.Client).RemoveFolder, "removed %s from the index; its files are untouched\n")
}

// removalCmd is a command that takes one path, makes it absolute, asks the
// daemon to drop it from the index and says so (done is a format for the
// path).
func removalCmd(a *app, use, short string, remove func(*api.Client, context.Context, string) error, done string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := clitext.AbsPath(args[0])
			if err != nil {
				return err
			}
			c, err := a.client(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			if err := remove(c, cmd.Context(), path); err != nil {
				return err
			}
			if a.json {
				return a.printJSON(memd.Removed{Path: path, Removed: true})
			}
			fmt.Fprintf(a.out, done, path)
			return nil
		},
	}
}
