package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/internal/buildinfo"
	"github.com/memd-dev/memd/lsp"
)

func newLSPCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "lsp",
		Short: "Serve memd to editors as a Language Server on stdin and stdout",
		Long: `lsp speaks the Language Server Protocol on stdin and stdout, for the Markdown,
Org and text notes in memd's folders: workspace symbols search your notes,
hover shows where a [[link]] leads and how many notes carry a #tag,
completion offers note names inside [[ and tags after #, go to definition
follows links, references list backlinks, the code action "memd: related
notes" (command memd.related) finds what you already wrote about a
paragraph, and links that lead nowhere get a hint.

memctl starts memd in the background when none answers; the editor is
never kept waiting for it. Logs go to stderr. docs/lsp.md shows the few
lines each editor needs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serveLSP(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
}

// serveLSP serves one editor on in and out until it exits or closes in.
func (a *app) serveLSP(ctx context.Context, in io.Reader, out io.Writer) error {
	s := lsp.NewServer(lsp.Options{
		Connect: func(ctx context.Context) (lsp.Memory, error) { return a.client(ctx) },
		Version: buildinfo.Version(),
		Log:     slog.New(slog.NewTextHandler(a.errOut, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	return s.Serve(ctx, stdio{in, out})
}

// stdio joins the process's input and output into the one stream an LSP
// connection is.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
