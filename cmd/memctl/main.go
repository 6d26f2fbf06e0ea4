// A command that asks one thing and exits has no use for the runtime's
// goroutine that follows changes of the cgroup's CPU limit.
//
//go:debug updatemaxprocs=0
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/internal/buildinfo"
	_ "github.com/memd-dev/memd/internal/clistart" // the runtime set up for a short command
	"github.com/memd-dev/memd/internal/config"
)

func main() {
	a := &app{out: os.Stdout, errOut: os.Stderr}
	if err := a.execute(context.Background(), newRoot(a, os.Args[1:])); err != nil {
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

// commands are memctl's commands by name, for newRoot to build the one a
// command line runs.
var commands = map[string]func(*app) *cobra.Command{
	"add": newAddCmd, "rm": newRmCmd, "status": newStatusCmd, "recall": newRecallCmd,
	"forget": newForgetCmd, "reindex": newReindexCmd, "compact": newCompactCmd, "doctor": newDoctorCmd,
	"model": newModelCmd, "chat": newChatCmd, "mcp": newMCPCmd, "stop": newStopCmd, "restart": newRestartCmd,
	"service": newServiceCmd, "lsp": newLSPCmd, "tags": newTagsCmd,
}

// newRoot builds memctl's command tree for the command line args. Of the
// commands it builds only the one args name, when they name one, and
// leaves out cobra's completion command: building every command, its
// flags and cobra's completion commands was 0.2 ms of each `memctl recall`
// (BENCHMARKS.md). Help, completion, and a name that is not a command get
// the whole tree.
func newRoot(a *app, args []string) *cobra.Command {
	root := newBareRoot(a)
	root.SetArgs(args)
	if build, ok := commands[commandName(root, args)]; ok {
		root.CompletionOptions.DisableDefaultCmd = true
		root.AddCommand(build(a))
		return root
	}
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		root.AddCommand(commands[name](a))
	}
	return root
}

// commandName is the first word of args that is not a flag of root or a
// flag's value: the command they run.
func commandName(root *cobra.Command, args []string) string {
	flags := root.PersistentFlags()
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return ""
		case strings.HasPrefix(arg, "--"):
			name, _, inline := strings.Cut(arg[2:], "=")
			if f := flags.Lookup(name); f != nil && f.NoOptDefVal == "" && !inline {
				i++ // the flag's value
			}
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			// Shorthands: root has only -h and -v, which take no value.
		default:
			return arg
		}
	}
	return ""
}

// newBareRoot is memctl's root command with its flags and no commands.
func newBareRoot(a *app) *cobra.Command {
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
