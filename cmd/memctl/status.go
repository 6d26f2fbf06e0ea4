package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
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
			printStatus(a.out, st)
			printSkips(a.out, skips, listSkips)
			return nil
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", false, "show a progress bar until indexing is done, then the status")
	cmd.Flags().BoolVar(&listSkips, "skips", false, "list the skipped files and why")
	return cmd
}

func printStatus(w io.Writer, st memd.Status) {
	fmt.Fprintf(w, "memd %s, pid %d, data %s (store %s)\n", st.Version, st.PID, st.DataDir, formatBytes(st.DBBytes))
	fmt.Fprintf(w, "%d notes, %d chunks, %d pending, %d skipped\n", st.Notes, st.Chunks, st.Pending, st.Skipped)
	if st.Enriching > 0 {
		fmt.Fprintf(w, "%d notes findable by keyword, waiting for the model stages\n", st.Enriching)
	}
	if len(st.Folders) == 0 {
		fmt.Fprintln(w, "no folders yet: memctl add DIR")
	} else {
		fmt.Fprintln(w, "folders:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, f := range st.Folders {
			state := "watching"
			if !f.Watching {
				state = "not watching"
			}
			if f.Error != "" {
				state += ": " + f.Error
			}
			fmt.Fprintf(tw, "  %s\t%d notes\t%s\n", f.Path, f.Notes, state)
		}
		tw.Flush()
	}
	for _, m := range st.Models {
		if m.Loaded {
			fmt.Fprintf(w, "model %s: %s (%s)\n", m.Role, m.Path, backendText(m))
		} else if m.Reason != "" {
			fmt.Fprintf(w, "model %s: off, %s\n", m.Role, m.Reason)
		}
	}
	for _, warn := range st.Warnings {
		fmt.Fprintln(w, "warning:", warn)
	}
}

// statusWithSkips is status --skips --json: the status with the skips beside.
type statusWithSkips struct {
	memd.Status
	Skips []memd.Skip `json:"skips"`
}

func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// backendText is where a model runs, e.g. "cuda, NVIDIA H200".
func backendText(m memd.ModelStatus) string {
	if m.Device == "" {
		return m.Backend
	}
	return m.Backend + ", " + m.Device
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
