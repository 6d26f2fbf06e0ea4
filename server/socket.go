package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrAlreadyRunning means a live daemon already answers on the socket.
var ErrAlreadyRunning = errors.New("memd is already running")

// maxSocketPath is the longest unix socket path every supported OS accepts
// (sun_path is 104 bytes on macOS, 108 on Linux, with the final NUL).
const maxSocketPath = 103

// Listen opens the unix socket at path for a Server: its folder is created
// 0700, the socket is 0600. A socket file left by a dead daemon is removed;
// one that a live daemon answers on gives ErrAlreadyRunning. Closing the
// listener removes the socket file.
func Listen(path string) (*net.UnixListener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, over the %d a unix socket allows; pass a shorter --socket or MEMD_SOCKET",
			path, len(path), maxSocketPath)
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("make socket %s private: %w", path, err)
	}
	return l, nil
}

// privateDir creates dir 0700, or tightens it to 0700 when it exists with
// wider rights. Other users must not reach the socket at all.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create socket folder: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("socket folder %s is open to other users (%v) and cannot be made private: %w; pass another --socket",
				dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// removeStale clears the way for a new socket at path: nothing there is
// fine, a socket nobody answers on is removed, anything else is refused.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check socket %s: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket; move it away or pass another --socket", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("%w: a daemon answers on %s; stop it first, or give this one another --socket and --data", ErrAlreadyRunning, path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("check socket %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	return nil
}
