package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/internal/autostart"
	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/lsp"
)

// newLSPCmd is `memd lsp`, which `memctl lsp` runs: the Language Server, a
// client of the daemon (this binary's serving one, started in the
// background when none answers). It lives here, not in memctl, so that
// the LSP server and its JSON-RPC library add nothing to every memctl
// start (memctl recall is mostly its start).
func newLSPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "lsp",
		Short:  "Serve memd to editors as a Language Server on stdin and stdout (memctl lsp runs it)",
		Args:   cobra.NoArgs,
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := daemonOf(cmd)
			if err != nil {
				return err
			}
			s := lsp.NewServer(lsp.Options{
				Connect: func(ctx context.Context) (lsp.Memory, error) { return autostart.Connect(ctx, d) },
				Version: memdVersion(),
				Log:     slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn})),
			})
			return s.Serve(cmd.Context(), stdio{cmd.InOrStdin(), cmd.OutOrStdout()})
		},
	}
	config.RegisterFlags(cmd.Flags(), "data", "socket")
	return cmd
}

// stdio joins the process's input and output into the one stream an LSP
// connection is.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
