package server

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "memdsock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestListenPermissions(t *testing.T) {
	sock := filepath.Join(shortDir(t), "run", "memd.sock")
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for path, want := range map[string]os.FileMode{sock: 0o600, filepath.Dir(sock): 0o700} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}

func TestListenStaleAndLive(t *testing.T) {
	sock := filepath.Join(shortDir(t), "memd.sock")
	// A socket file left by a daemon that died.
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()
	l, err := Listen(sock)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := Listen(sock); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second listener on a live socket: %v, want ErrAlreadyRunning", err)
	}
}

func TestListenRefuses(t *testing.T) {
	dir := shortDir(t)
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("keep me"), 0o600)
	if _, err := Listen(file); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("regular file: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Fatal("Listen touched a regular file")
	}
	long := filepath.Join(dir, strings.Repeat("x", 120), "memd.sock")
	if _, err := Listen(long); err == nil || !strings.Contains(err.Error(), "shorter") {
		t.Fatalf("long path: %v", err)
	}
}
