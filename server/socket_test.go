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

// TestListenLeavesExistingFolderMode: memd never changes the mode of a
// folder it did not create (a sticky shared folder lost its sticky bit, a
// home folder became 0700), and refuses one that others can write to
// without the sticky bit.
func TestListenLeavesExistingFolderMode(t *testing.T) {
	for _, c := range []struct {
		mode    os.FileMode
		refused bool
		warned  bool
	}{
		{0o700, false, false},
		{0o755, false, true},
		{0o777 | os.ModeSticky, false, true},
		{0o777, true, false},
		{0o775, true, false},
	} {
		dir := filepath.Join(shortDir(t), "run")
		os.Mkdir(dir, 0o700)
		if err := os.Chmod(dir, c.mode); err != nil {
			t.Fatal(err)
		}
		sock := filepath.Join(dir, "memd.sock")
		l, err := Listen(sock)
		if c.refused {
			if err == nil || !strings.Contains(err.Error(), "can be written by other users") {
				t.Errorf("folder %v: %v, want a refusal", c.mode, err)
			}
		} else if err != nil {
			t.Errorf("folder %v: %v", c.mode, err)
		} else {
			l.Close()
		}
		fi, _ := os.Stat(dir)
		if got := fi.Mode() & (os.ModePerm | os.ModeSticky); got != c.mode {
			t.Errorf("folder %v: Listen changed its mode to %v", c.mode, got)
		}
		if w := SocketFolderWarning(sock); !c.refused && (w != "") != c.warned {
			t.Errorf("folder %v: warning %q", c.mode, w)
		}
	}
}
