package main

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/autostart"
	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/mcpserver"
)

// newMCPCmd is `memd mcp`, which `memctl mcp` runs: an MCP client of the
// daemon (this binary's serving one, started in the background when none
// answers), kept out of memctl so that the MCP SDK's package init does not
// slow every memctl start.
func newMCPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "mcp",
		Short:  "Serve memd to AI agents as an MCP server on stdin and stdout (memctl mcp runs it)",
		Args:   cobra.NoArgs,
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := daemonOf(cmd)
			if err != nil {
				return err
			}
			return mcpserver.Serve(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), mcpserver.Options{
				Connect: func(ctx context.Context) (*api.Client, error) { return autostart.Connect(ctx, d) },
				Version: memdVersion(),
				Log:     slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn})),
			})
		},
	}
	config.RegisterFlags(cmd.Flags(), "data", "socket")
	return cmd
}

// daemonOf is where the daemon of a client subcommand runs, from the
// config file, the environment and cmd's flags, as memctl finds it.
func daemonOf(cmd *cobra.Command) (autostart.Daemon, error) {
	cfg, err := loadConfig(cmd.Flags())
	if err != nil {
		return autostart.Daemon{}, err
	}
	d := autostart.Daemon{Log: cmd.ErrOrStderr()}
	if d.Data, err = filepath.Abs(cfg.Data); err != nil {
		return d, err
	}
	d.Socket, err = filepath.Abs(cfg.Socket)
	return d, err
}
