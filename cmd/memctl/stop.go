package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/api"
)

// stopWait bounds how long stop waits for memd to finish: its own
// shutdown grace (requests in flight) plus the indexer's last commit.
const stopWait = 30 * time.Second

func newStopCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop memd gracefully: requests in flight and the transaction under way finish",
		Long: `stop asks the memd on the socket to stop (SIGTERM) and waits until it has:
it stops taking requests, lets those in flight finish and commits the
indexing transaction under way. Under the user service (memctl service
install) the socket stays, and the next request starts memd again; stop the
service itself with systemctl --user stop memd.socket memd.service.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pid, err := a.stopDaemon(cmd.Context())
			if err != nil {
				return err
			}
			if pid == 0 {
				fmt.Fprintf(a.out, "memd is not running on %s\n", a.socket)
				return nil
			}
			fmt.Fprintf(a.out, "memd (pid %d) stopped\n", pid)
			return nil
		},
	}
}

func newRestartCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "restart",
		Short: "Stop memd gracefully and start it again (to pick up a new binary or config)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			old, err := a.stopDaemon(ctx)
			if err != nil {
				return err
			}
			c, err := a.client(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			st, err := c.Status(ctx)
			if err != nil {
				return err
			}
			if old != 0 && st.PID == old {
				return fmt.Errorf("memd (pid %d) is still the one answering on %s", old, a.socket)
			}
			fmt.Fprintf(a.out, "memd restarted (pid %d)\n", st.PID)
			return nil
		},
	}
}

// stopDaemon stops the memd answering on the socket and waits until its
// process is gone; it returns that pid, 0 when none was running.
func (a *app) stopDaemon(ctx context.Context) (int, error) {
	c, err := api.Dial(ctx, a.socket)
	if errors.Is(err, api.ErrNotRunning) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("ask memd for its pid: %w", err)
	}
	p, err := os.FindProcess(st.PID)
	if err == nil {
		err = p.Signal(syscall.SIGTERM)
	}
	if err != nil {
		return 0, fmt.Errorf("stop memd (pid %d): %w", st.PID, err)
	}
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(stopWait)
	for alive(st.PID) {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-deadline:
			return 0, fmt.Errorf("memd (pid %d) did not stop within %v; see its log in %s/memd.log or the journal", st.PID, stopWait, a.data)
		case <-tick.C:
		}
	}
	return st.PID, nil
}

// alive reports whether a process with this pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
