package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/autostart"
	"github.com/spf13/cobra"
)

// client returns a client of the daemon, starting memd in the background
// first when nothing answers on the socket.
func (a *app) client(ctx context.Context) (*api.Client, error) {
	if a.noStart {
		return api.Dial(ctx, a.socket)
	}
	return autostart.Connect(ctx, autostart.Daemon{Data: a.data, Socket: a.socket, Log: a.errOut})
}

// execMemd runs `memd args...` in memctl's place, with its stdin, stdout
// and stderr. The commands that need heavy libraries (the MCP server, the
// LSP server, model downloads) live in memd's binary, so that their package init does not
// slow every memctl start; memctl stays the one command people type.
func (a *app) execMemd(cmd *cobra.Command, args ...string) error {
	bin, err := autostart.FindMemd()
	if err != nil {
		return fmt.Errorf("%s is run by memd: %w", cmd.CommandPath(), err)
	}
	argv := append([]string{bin}, args...)
	return fmt.Errorf("run %s: %w", bin, syscall.Exec(bin, argv, os.Environ()))
}

// daemonFlags passes memctl's view of where the daemon is (its flags, the
// environment and the config file, already read) on to memd.
func (a *app) daemonFlags() []string {
	return []string{"--data", a.data, "--socket", a.socket}
}
