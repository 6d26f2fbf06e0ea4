package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newForgetCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "forget PATH",
		Short: "Drop one note from the index until its file changes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := absPath(args[0])
			if err != nil {
				return err
			}
			c, err := a.client(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.Forget(cmd.Context(), path); err != nil {
				return err
			}
			if a.json {
				return a.printJSON(removedJSON{Path: path, Removed: true})
			}
			fmt.Fprintf(a.out, "forgot %s; it stays out of the index until the file changes\n", path)
			return nil
		},
	}
}
