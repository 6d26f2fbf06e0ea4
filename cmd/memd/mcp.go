package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/autostart"
	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/mcpserver"
)

// newMCPCmd is `memd mcp`, which `memctl mcp` runs: an MCP server, a client
// of the daemon, kept out of memctl so that the MCP SDK's package init does
// not slow every memctl start.
func newMCPCmd() *cobra.Command {
	return newStdioClientCmd("mcp", "Serve memd to AI agents as an MCP server on stdin and stdout (memctl mcp runs it)",
		func(ctx context.Context, c stdioClient) error {
			return mcpserver.Serve(ctx, c.in, c.out, mcpserver.Options{
				Connect: c.connect,
				Version: memdVersion(),
				Log:     c.log,
			})
		})
}

// stdioClient is what a server on stdin and stdout that memctl hands
// itself over to (mcp, lsp) gets: its streams, a warnings-only log on
// stderr, and a connection to the daemon that starts one in the
// background when none answers.
type stdioClient struct {
	in      io.Reader
	out     io.Writer
	log     *slog.Logger
	connect func(context.Context) (*api.Client, error)
}

// newStdioClientCmd is a hidden memd subcommand serving one editor or agent
// on stdin and stdout with serve, for the daemon that --data and --socket
// (or the config file and environment) name.
func newStdioClientCmd(use, short string, serve func(context.Context, stdioClient) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:    use,
		Short:  short,
		Args:   cobra.NoArgs,
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := daemonOf(cmd)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), stdioClient{
				in:      cmd.InOrStdin(),
				out:     cmd.OutOrStdout(),
				log:     slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn})),
				connect: func(ctx context.Context) (*api.Client, error) { return autostart.Connect(ctx, d) },
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
