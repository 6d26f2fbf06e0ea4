package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// signalContext ends on SIGINT or SIGTERM. A second signal is not caught,
// so a stuck shutdown can still be interrupted.
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		cancel() // stops catching: the next signal kills the process
	}()
	return ctx, cancel
}
