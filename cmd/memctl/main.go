package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/internal/buildinfo"
	"github.com/memd-dev/memd/internal/config"
)

func main() {
	a := &app{out: os.Stdout, errOut: os.Stderr}
	if err := a.execute(context.Background(), newRoot(a)); err != nil {
		fmt.Fprintln(os.Stderr, "memctl:", describe(err))
		os.Exit(1)
	}
}

// app is what every subcommand shares: where the daemon is, how to print.
type app struct {
	// cfg is memd's configuration as memd itself reads it (file, env,
	// flags), so memctl finds the daemon memd's config puts somewhere else.
	cfg          config.Config
	data, socket string // cfg's, made absolute
	json         bool
	out, errOut  io.Writer
	// noStart keeps memctl from starting a daemon (tests of the refusal).
	noStart bool
	// barOut receives progress bars when errOut is not a terminal (tests).
	barOut io.Writer
	// stopSignals ends the command's signal handling, if it has any.
	stopSignals func()
}

// oneShot is the annotation of a command that asks the daemon one thing and
// prints the answer (recall): Ctrl-C ends it the default way, at once, with
// nothing to tidy. The others get a context that SIGINT and SIGTERM end,
// so that a chat, a progress bar or a server on stdio stops cleanly; that
// costs each start a thread for the signal loop, 0.5-1 ms of recall's
// time on a loaded 2-core machine (BENCHMARKS.md).
const oneShot = "memctl/one-shot"

// execute runs the command line root was built for.
func (a *app) execute(ctx context.Context, root *cobra.Command) error {
	err := root.ExecuteContext(ctx)
	if a.stopSignals != nil {
		a.stopSignals()
	}
	return err
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "memctl",
		Short: "memctl talks to memd, the local memory daemon for your notes",
		Long: `memctl talks to memd, the local memory daemon for your notes. It starts
memd in the background when no daemon answers on the socket.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		Version:           buildinfo.String(),
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: true},
	}
	root.SetVersionTemplate("memctl {{.Version}}\n")
	root.SetOut(a.out)
	root.SetErr(a.errOut)
	pf := root.PersistentFlags()
	config.RegisterFlags(pf, "data", "socket", "models")
	pf.BoolVar(&a.json, "json", false, "print results as JSON")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if _, quick := cmd.Annotations[oneShot]; !quick {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			cmd.SetContext(ctx)
			a.stopSignals = stop
		}
		cfg, err := config.Load(config.FilePath(cmd.Flags(), os.Getenv), os.Getenv)
		if err != nil {
			return err
		}
		if err := config.ApplyFlags(cmd.Flags(), &cfg); err != nil {
			return err
		}
		a.cfg = cfg
		if a.data, err = filepath.Abs(cfg.DataFolder()); err != nil {
			return err
		}
		a.socket, err = filepath.Abs(cfg.SocketPath())
		return err
	}
	root.AddCommand(newAddCmd(a), newRmCmd(a), newStatusCmd(a), newRecallCmd(a),
		newForgetCmd(a), newReindexCmd(a), newCompactCmd(a), newDoctorCmd(a), newModelCmd(a), newChatCmd(a), newMCPCmd(a),
		newStopCmd(a), newRestartCmd(a), newServiceCmd(a), newLSPCmd(a), newTagsCmd(a))
	return root
}

// describe is the line a person reads when a command fails.
func describe(err error) string {
	var e *memd.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
