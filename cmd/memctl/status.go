package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/internal/clitext"
)

func newStatusCmd(a *app) *cobra.Command {
	var watch, listSkips bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show folders, notes, chunks, pending work and skipped files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.client(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			if watch {
				p := a.startProgress(ctx, c, "indexing")
				err := p.untilIdle(ctx)
				p.stop()
				if err != nil {
					return err
				}
			}
			st, err := c.Status(ctx)
			if err != nil {
				return err
			}
			var skips []memd.Skip
			if listSkips || (st.Skipped > 0 && !a.json) {
				if skips, err = c.Skips(ctx); err != nil {
					return err
				}
			}
			if a.json {
				if listSkips {
					return a.printJSON(statusWithSkips{st, skips})
				}
				return a.printJSON(st)
			}
			clitext.Status(a.out, st)
			printSkips(a.out, skips, listSkips)
			return nil
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", false, "show a progress bar until indexing is done, then the status")
	cmd.Flags().BoolVar(&listSkips, "skips", false, "list the skipped files and why")
	return cmd
}

// statusWithSkips is status --skips --json: the status with the skips beside.
type statusWithSkips struct {
	memd.Status
	Skips []memd.Skip `json:"skips"`
}

// skipsShown is how many skipped files plain status lists; --skips lists all.
const skipsShown = 10

// printSkips lists the skipped files and why, all of them or the first few.
func printSkips(w io.Writer, skips []memd.Skip, all bool) {
	for i, k := range skips {
		if !all && i == skipsShown {
			fmt.Fprintf(w, "… and %d more skipped files (memctl status --skips lists them all)\n", len(skips)-skipsShown)
			return
		}
		fmt.Fprintf(w, "skipped %s: %s\n", k.Path, k.Reason)
	}
}
