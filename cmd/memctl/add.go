package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/clitext"
)

func newAddCmd(a *app) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "add DIR",
		Short: "Register a folder of notes; memd indexes and watches it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := clitext.AbsPath(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			c, err := a.client(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			registered, err := isRegistered(ctx, c, dir)
			if err != nil {
				return err
			}
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
			switch {
			case registered:
				fmt.Fprintf(a.out, "%s was already registered: %s\n", f.Path, folderLine(f))
			case wait:
				fmt.Fprintf(a.out, "added %s: %d notes indexed\n", f.Path, f.Notes)
			default:
				fmt.Fprintf(a.out, "added %s; memd indexes it in the background (memctl status shows progress)\n", f.Path)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the folder is indexed, with a progress bar")
	return cmd
}

// isRegistered reports whether dir is a registered folder already.
func isRegistered(ctx context.Context, c *api.Client, dir string) (bool, error) {
	list, err := c.Folders(ctx)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(list, func(f memd.FolderStatus) bool { return f.Path == dir }), nil
}

// folderLine is "12 notes, watching" or "0 notes, not watching: why".
func folderLine(f memd.FolderStatus) string {
	state := "watching"
	if !f.Watching {
		state = "not watching"
	}
	if f.Error != "" {
		state += ": " + f.Error
	}
	return fmt.Sprintf("%d notes, %s", f.Notes, state)
}
