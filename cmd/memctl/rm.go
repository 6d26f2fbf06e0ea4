package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newRmCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rm DIR",
		Short: "Unregister a folder and drop its notes from the index (the files stay)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := absPath(args[0])
			if err != nil {
				return err
			}
			c, err := a.client(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.RemoveFolder(cmd.Context(), dir); err != nil {
				return err
			}
			if a.json {
				return a.printJSON(removedJSON{Path: dir, Removed: true})
			}
			fmt.Fprintf(a.out, "removed %s from the index; its files are untouched\n", dir)
			return nil
		},
	}
}
