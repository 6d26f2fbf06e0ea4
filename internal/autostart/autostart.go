package autostart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/memd-dev/memd/api"
)

// startWait is how long Connect waits for a daemon it started to answer.
const startWait = 5 * time.Second

// ExitInUse is memd's exit status when another memd holds its data folder
// or socket: a client that raced another one to start a daemon tells it
// from other failures. cmd/memd exits with it.
const ExitInUse = 3

// Daemon is where a daemon runs, or is to be started.
type Daemon struct {
	Data, Socket string // absolute paths
	// Log receives the line saying a daemon was started (memctl's stderr).
	Log io.Writer
}

// Connect returns a client of the daemon, starting memd in the background
// first when nothing answers on the socket.
func Connect(ctx context.Context, d Daemon) (*api.Client, error) {
	c, err := api.Dial(ctx, d.Socket)
	if err == nil || !errors.Is(err, api.ErrNotRunning) {
		return c, err
	}
	if err := Start(ctx, d); err != nil {
		return nil, err
	}
	return api.NewClient(d.Socket), nil
}

// Answers reports whether something accepts connections on the socket.
func Answers(socket string) bool {
	c, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Start starts memd detached from this terminal and waits for its socket.
func Start(ctx context.Context, d Daemon) error {
	bin, err := FindMemd()
	if errors.Is(err, ErrNoMemd) {
		return fmt.Errorf("no memd is running, and %w, or start memd yourself", err)
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.Data, 0o700); err != nil {
		return fmt.Errorf("start memd: create data folder: %w", err)
	}
	logPath := filepath.Join(d.Data, "memd.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start memd: open its log: %w", err)
	}
	defer logFile.Close()
	start, _ := logFile.Seek(0, 2)

	cmd := exec.Command(bin, "--data", d.Data, "--socket", d.Socket)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start memd (%s): %w", bin, err)
	}
	if d.Log != nil {
		fmt.Fprintf(d.Log, "memctl: started memd (pid %d), log in %s\n", cmd.Process.Pid, logPath)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(startWait)
	for {
		select {
		case err := <-exited:
			// Another memd got the data folder first (two clients started
			// one each): wait for that one's socket instead.
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitInUse {
				return fmt.Errorf("memd exited as it started (%v): %s", err, logSince(logPath, start))
			}
			exited = nil
		case <-deadline:
			return fmt.Errorf("memd started (pid %d) but did not answer on %s within %v; see %s",
				cmd.Process.Pid, d.Socket, startWait, logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			if Answers(d.Socket) {
				return nil
			}
		}
	}
}

// FindMemd looks for the memd binary beside the running executable's own
// (memctl's, or memd's itself), then on PATH.
func FindMemd() (string, error) {
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
		return "", ErrNoMemd
	}
	return p, err
}

// ErrNoMemd is FindMemd's error when there is no memd binary to run.
var ErrNoMemd = errors.New("no memd binary was found beside memctl or on PATH; " +
	"install it (go install github.com/memd-dev/memd/cmd/memd@latest)")

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
