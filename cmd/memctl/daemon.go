package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/autostart"
	"github.com/memd-dev/memd/internal/buildinfo"
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
	if other := otherMemd(bin); other != "" {
		fmt.Fprintf(a.errOut, "memctl: %s is %s, and this memctl is %s; an older memd lacks %q "+
			"(it answers \"unknown command\"): install memd and memctl from the same release\n",
			bin, other, buildinfo.String(), args[0])
	}
	argv := append([]string{bin}, args...)
	return fmt.Errorf("run %s: %w", bin, syscall.Exec(bin, argv, os.Environ()))
}

// otherMemd is the version the memd binary at bin reports when it was not
// built from the same version as this memctl, and "" when it was (or
// says nothing). Once memctl has handed itself over to memd, it can no
// longer explain memd's refusal of a command it does not know, so it says
// beforehand what is likely to go wrong. Asking costs one start of memd,
// before a server that runs for the whole session of an editor or agent.
func otherMemd(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	line := strings.TrimSpace(string(out))
	if err != nil || line == "" || strings.HasPrefix(line, "memd "+buildinfo.String()+" ") {
		return ""
	}
	return strings.TrimPrefix(line, "memd ")
}

// daemonFlags passes memctl's view of where the daemon is (its flags, the
// environment and the config file, already read) on to memd.
func (a *app) daemonFlags() []string {
	return []string{"--data", a.data, "--socket", a.socket}
}
