package main

import (
	"fmt"

	"github.com/memd-dev/memd/internal/clitext"
	"github.com/spf13/cobra"
)

func newCompactCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "compact",
		Short: "Give the store's free space back to the disk",
		Long: `Copy the store's live data into a new file and swap it in: bbolt reuses
the pages that deletes and reindexing free but never gives them back, so a
full reindex can leave the file three times its data. memd also compacts by
itself when more than half of a file of 64 MiB or more is free. Recall goes
on meanwhile; indexing waits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := c.Compact(cmd.Context())
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			fmt.Fprintf(a.out, "store compacted from %s to %s\n", clitext.Bytes(res.BeforeBytes), clitext.Bytes(res.AfterBytes))
			return nil
		},
	}
}
