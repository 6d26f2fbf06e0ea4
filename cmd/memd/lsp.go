package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/lsp"
)

// newLSPCmd is `memd lsp`, which `memctl lsp` runs: the Language Server, a
// client of the daemon. It lives here, not in memctl, so that the LSP
// server and its JSON-RPC library add nothing to every memctl start
// (memctl recall is mostly its start).
func newLSPCmd() *cobra.Command {
	return newStdioClientCmd("lsp", "Serve memd to editors as a Language Server on stdin and stdout (memctl lsp runs it)",
		func(ctx context.Context, c stdioClient) error {
			s := lsp.NewServer(lsp.Options{
				Connect: func(ctx context.Context) (lsp.Memory, error) { return c.connect(ctx) },
				Version: memdVersion(),
				Log:     c.log,
			})
			return s.Serve(ctx, stdio{c.in, c.out})
		})
}

// stdio joins the process's input and output into the one stream an LSP
// connection is.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
