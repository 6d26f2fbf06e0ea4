package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newAddCmd(a *app) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "add DIR",
		Short: "Register a folder of notes; memd indexes and watches it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := absPath(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			c, err := a.client(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			var prog *progress
			if wait {
				// Subscribe before adding, so no event of this folder is missed.
				prog = a.startProgress(ctx, c, "indexing "+dir)
				defer prog.stop()
			}
			f, err := c.AddFolder(ctx, dir)
			if err != nil {
				return err
			}
			if wait {
				if err := prog.untilIdle(ctx); err != nil {
					return err
				}
				if list, err := c.Folders(ctx); err == nil {
					for _, g := range list {
						if g.Path == f.Path {
							f = g
						}
					}
				}
			}
			if a.json {
				return a.printJSON(f)
			}
			if wait {
				fmt.Fprintf(a.out, "added %s: %d notes indexed\n", f.Path, f.Notes)
			} else {
				fmt.Fprintf(a.out, "added %s; memd indexes it in the background (memctl status shows progress)\n", f.Path)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the folder is indexed, with a progress bar")
	return cmd
}
