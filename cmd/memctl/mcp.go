package main

import (
	"github.com/spf13/cobra"
)

func newMCPCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve memd to AI agents as an MCP server on stdin and stdout",
		Long: `mcp speaks the Model Context Protocol on stdin and stdout, so that agents
(Claude Code, Cursor, …) can recall from your notes, ask memd's model, see its
status and register folders. Every call goes to the daemon, which memctl
starts when none answers. Logs go to stderr; the server stops when stdin
closes.

Register it with your agent as the command "memctl mcp". memctl runs the
server from the memd binary (memd mcp), found beside memctl or on PATH.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.execMemd(cmd, append([]string{"mcp"}, a.daemonFlags()...)...)
		},
	}
}
