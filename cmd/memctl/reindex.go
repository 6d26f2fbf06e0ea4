package main

import (
	"fmt"

	"github.com/memd-dev/memd/internal/clitext"
	"github.com/spf13/cobra"
)

func newReindexCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex [PATH]",
		Short: "Index a note or folder again, or every folder when no PATH is given",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var path string
			if len(args) == 1 {
				var err error
				if path, err = clitext.AbsPath(args[0]); err != nil {
					return err
				}
			}
			c, err := a.client(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := c.Reindex(cmd.Context(), path)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			if res.Started {
				fmt.Fprintln(a.out, "reindexing in the background; `memctl status` shows the progress")
				return nil
			}
			fmt.Fprintf(a.out, "queued %d notes to index again\n", res.Queued)
			return nil
		},
	}
}
