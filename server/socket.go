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
// 0700 when missing and left as it is when not (see privateDir), the
// socket is 0600. A socket file left by a dead daemon is removed;
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

// privateDir makes the socket's folder ready. A folder memd creates is
// made 0700. A folder that exists is never changed, since memd did not
// create it: it may be a home folder or /tmp, whose mode is not memd's to
// drop. One that other users can write to without the sticky bit is
// refused, as one of them could replace the socket; one they can only read
// or enter is used (see SocketFolderWarning): the socket itself is 0600 and
// the peer's uid is checked.
func privateDir(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create socket folder: %w", err)
		}
		// MkdirAll's mode passes through the umask; this folder is ours.
		return os.Chmod(dir, 0o700)
	}
	if err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket folder %s is not a folder; pass another --socket", dir)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("socket folder %s can be written by other users (%v), so one of them could replace memd's socket; "+
			"memd does not change the mode of a folder it did not create: pass a --socket in a folder only you can write, "+
			"or remove %s and memd creates it 0700", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// SocketFolderWarning says why the socket's existing folder is not private
// (readable by other users, or shared with the sticky bit), or "" when it
// is 0700 or absent. memd logs it at start: the folder is used as it is.
func SocketFolderWarning(socket string) string {
	dir := filepath.Dir(socket)
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("socket folder %s is open to other users (%v); memd leaves its mode as it is (the socket is 0600 and "+
		"memd checks each peer's uid), but a folder of your own (mode 0700) keeps other users from even seeing it", dir, fi.Mode()&(fs.ModePerm|fs.ModeSticky))
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
