package main

import (
	"github.com/spf13/cobra"
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
lines each editor needs. memctl runs the server from the memd binary (memd
lsp), found beside memctl or on PATH.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.execMemd(cmd, append([]string{"lsp"}, a.daemonFlags()...)...)
		},
	}
}
