package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/internal/autostart"
	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/server"
	"github.com/memd-dev/memd/store"
)

// exitInUse is the exit status when another memd holds the data folder or
// the socket; a client that raced another to start a daemon (memctl, memd
// mcp) tells it from other failures.
const exitInUse = autostart.ExitInUse

func main() {
	ctx, stop := signalContext(context.Background())
	stopProfile := startProfile()
	err := newRoot().ExecuteContext(ctx)
	stopProfile()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "memd:", err)
		if errors.Is(err, store.ErrLocked) || errors.Is(err, server.ErrAlreadyRunning) {
			os.Exit(exitInUse)
		}
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "memd",
		Short: "memd is the local memory daemon for your notes",
		Long: `memd indexes your notes folders and answers recall over a unix socket.
It runs in the foreground and logs to stderr; memctl starts it in the
background when needed. SIGINT or SIGTERM stop it cleanly.`,
		Args:              cobra.NoArgs,
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: true},
		Version:           memdVersion(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd.Flags())
			if err != nil {
				return err
			}
			log := newLogger(cfg)
			log.Debug("configuration", "file", configSummary(cmd.Flags()))
			return serveRebuilding(cmd.Context(), cfg, log)
		},
	}
	root.SetVersionTemplate(versionLine())
	config.RegisterFlags(root.Flags())
	serveFlags.register(root.Flags())
	root.AddCommand(newVersionCmd(), newCheckCmd(), newMCPCmd(), newLSPCmd(), newModelCmd())
	addRuntimeCmd(root)
	addStoreCmd(root)
	return root
}
