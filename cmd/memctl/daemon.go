package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/memd-dev/memd/api"
)

// startWait is how long memctl waits for a daemon it started to answer.
const startWait = 5 * time.Second

// exitInUse is memd's exit status when another memd holds its data folder
// or socket; it must match cmd/memd.
const exitInUse = 3

// client returns a client of the daemon, starting memd in the background
// first when nothing answers on the socket.
func (a *app) client(ctx context.Context) (*api.Client, error) {
	c, err := api.Dial(ctx, a.socket)
	if err == nil || !errors.Is(err, api.ErrNotRunning) {
		return c, err
	}
	if a.noStart {
		return nil, err
	}
	if err := a.startDaemon(ctx); err != nil {
		return nil, err
	}
	return api.NewClient(a.socket), nil
}

// answers reports whether something accepts connections on the socket.
func answers(socket string) bool {
	c, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// startDaemon starts memd detached from this terminal (its own session,
// output to <data>/memd.log) and waits for its socket.
func (a *app) startDaemon(ctx context.Context) error {
	bin, err := findMemd()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(a.data, 0o700); err != nil {
		return fmt.Errorf("start memd: create data folder: %w", err)
	}
	logPath := filepath.Join(a.data, "memd.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start memd: open its log: %w", err)
	}
	defer logFile.Close()
	start, _ := logFile.Seek(0, 2)

	cmd := exec.Command(bin, "--data", a.data, "--socket", a.socket)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start memd (%s): %w", bin, err)
	}
	fmt.Fprintf(a.errOut, "memctl: started memd (pid %d), log in %s\n", cmd.Process.Pid, logPath)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(startWait)
	for {
		select {
		case err := <-exited:
			// Another memd got the data folder first (two memctl started
			// one each): wait for that one's socket instead.
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInUse {
				return fmt.Errorf("memd exited as it started (%v): %s", err, logSince(logPath, start))
			}
			exited = nil
		case <-deadline:
			return fmt.Errorf("memd started (pid %d) but did not answer on %s within %v; see %s",
				cmd.Process.Pid, a.socket, startWait, logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			if answers(a.socket) {
				return nil
			}
		}
	}
}

// findMemd looks for the memd binary beside memctl's own, then on PATH.
func findMemd() (string, error) {
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), "memd")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("memd")
	if errors.Is(err, exec.ErrNotFound) {
		return "", errors.New("no memd is running and no memd binary was found beside memctl or on PATH; " +
			"install it (go install github.com/memd-dev/memd/cmd/memd@latest) or start memd yourself")
	}
	return p, err
}

// logSince returns what memd wrote to its log after offset, trimmed to a
// few lines: usually the one error that stopped it.
func logSince(path string, offset int64) string {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) < offset {
		return "see " + path
	}
	b = bytes.TrimSpace(b[offset:])
	lines := strings.Split(string(b), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	if len(lines) == 0 || lines[0] == "" {
		return "it wrote nothing; see " + path
	}
	return strings.Join(lines, "\n")
}
