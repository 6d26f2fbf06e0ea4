package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/syncbuf"
)

// startActivated starts memd the way systemd's socket activation does: the
// listening socket as fd 3, LISTEN_FDS=1, and LISTEN_PID set to memd's own
// pid (a shell that execs memd keeps its pid, which $$ names).
func startActivated(t *testing.T, l *net.UnixListener, data, socketFlag string, extra ...string) (*exec.Cmd, *syncbuf.Buffer) {
	t.Helper()
	f, err := l.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log := new(syncbuf.Buffer)
	args := append([]string{"-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"`,
		filepath.Join(binDir, "memd"), "--data", data, "--socket", socketFlag}, extra...)
	cmd := exec.Command("/bin/sh", args...)
	cmd.Env = append(os.Environ(), "MEMD_DATA=", "MEMD_SOCKET=")
	cmd.ExtraFiles = []*os.File{f}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, log
}

// TestSocketActivation: memd serves on the socket it is passed, so a
// client that connected before memd started is answered, and it leaves
// the socket file (the service manager's) in place when it stops.
func TestSocketActivation(t *testing.T) {
	dir := tempDir(t)
	sock := filepath.Join(dir, "memd.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	defer l.Close()

	// The socket exists before memd starts: this request waits in the
	// backlog instead of failing.
	early := make(chan error, 1)
	c := api.NewClient(sock)
	defer c.Close()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := c.Status(ctx)
		early <- err
	}()
	time.Sleep(100 * time.Millisecond)

	// --socket names a path memd must not create: it serves on what it was passed.
	elsewhere := filepath.Join(dir, "not-used.sock")
	cmd, log := startActivated(t, l, filepath.Join(dir, "data"), elsewhere)
	if err := <-early; err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the request sent before memd started: %v\n%s", err, log)
	}
	if _, err := os.Stat(elsewhere); err == nil {
		t.Errorf("memd made its own socket at %s beside the one it was passed", elsewhere)
	}
	if out, err := memctl(t, filepath.Join(dir, "data"), sock, "status"); err != nil || !strings.Contains(out, "0 notes") {
		t.Errorf("memctl status on the activated socket: %v\n%s", err, out)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("memd stopped with %v\n%s", err, log)
	}
	if !strings.Contains(log.String(), "passed by the service manager") {
		t.Errorf("memd's log does not say it took the passed socket:\n%s", log)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("the service manager's socket is gone after memd stopped: %v", err)
	}
}

// TestActivatedSocketOutlivesRebuild: a store found damaged while memd
// serves on a passed socket is rebuilt, and the rebuilt daemon answers on
// that same socket (it cannot be passed twice) and makes none of its own.
func TestActivatedSocketOutlivesRebuild(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the sample vault")
	}
	dir := tempDir(t)
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data, filepath.Join(dir, "first.sock"))
	if _, err := d.client.AddFolder(context.Background(), copyVault(t)); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, d.client, 2*time.Minute)
	if err := d.stop(); err != nil {
		t.Fatal(err)
	}
	randomPages(t, filepath.Join(data, "memd.db"))

	sock := filepath.Join(dir, "memd.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	defer l.Close()
	elsewhere := filepath.Join(dir, "not-used.sock")
	// No check at start: the damage is found by a read once memd serves.
	cmd, log := startActivated(t, l, data, elsewhere, "--store-check-max-bytes", "0")
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	eventually(t, time.Minute, "memd moves the damaged store aside", func() (bool, string) {
		return strings.Contains(log.String(), "moved it aside"), log.String()
	})
	if text := log.String(); strings.Index(text, "passed by the service manager") > strings.Index(text, "moved it aside") {
		t.Fatalf("the store was found damaged before memd served on the passed socket:\n%s", text)
	}
	c := api.NewClient(sock)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Status(ctx); err != nil {
		t.Fatalf("status on the passed socket after the rebuild: %v\n%s", err, log)
	}
	if _, err := os.Stat(elsewhere); err == nil {
		t.Errorf("the rebuilt memd made its own socket at %s", elsewhere)
	}
}

// TestActivationForAnotherProcess: LISTEN_* meant for another pid (memd
// started by a process that was itself activated) are not memd's; it
// makes its own socket.
func TestActivationForAnotherProcess(t *testing.T) {
	dir := tempDir(t)
	sock := filepath.Join(dir, "memd.sock")
	t.Setenv("LISTEN_PID", "1")
	t.Setenv("LISTEN_FDS", "1")
	d := startDaemon(t, filepath.Join(dir, "data"), sock)
	if _, err := d.client.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d.log.String(), "passed by the service manager") {
		t.Errorf("memd took a socket passed to pid 1:\n%s", d.log)
	}
}

// TestStopAndRestart: memctl stop ends memd cleanly (exit 0, the store
// closed) and waits for it; restart leaves a new memd answering.
func TestStopAndRestart(t *testing.T) {
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	d := startDaemon(t, data, sock)
	out, err := memctl(t, data, sock, "stop")
	if err != nil || !strings.Contains(out, "stopped") {
		t.Fatalf("memctl stop: %v\n%s", err, out)
	}
	select {
	case <-d.exited:
	default:
		t.Fatal("memctl stop returned while memd still ran")
	}
	if d.err != nil || !strings.Contains(d.log.String(), "memd stopped cleanly") {
		t.Fatalf("memd did not stop cleanly: %v\n%s", d.err, d.log)
	}
	if out, err := memctl(t, data, sock, "stop"); err != nil || !strings.Contains(out, "not running") {
		t.Errorf("memctl stop with no memd: %v\n%s", err, out)
	}

	out, err = memctl(t, data, sock, "restart") // nothing ran: it starts one
	if err != nil {
		t.Fatal(err)
	}
	var first int
	if _, err := fmt.Sscanf(out[strings.Index(out, "pid"):], "pid %d", &first); err != nil {
		t.Fatalf("restart said %q", out)
	}
	t.Cleanup(func() { memctl(t, data, sock, "stop") })
	out, err = memctl(t, data, sock, "restart")
	var second int
	if err == nil {
		_, err = fmt.Sscanf(out[strings.Index(out, "pid"):], "pid %d", &second)
	}
	if err != nil || second == first || alive(first) {
		t.Fatalf("restart from pid %d: %v\n%s", first, err, out)
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
