package api

import (
	"os"
	"path/filepath"
)

// DefaultSocket is where the daemon listens and clients look when no socket
// is named: $XDG_RUNTIME_DIR/memd/memd.sock, else under $XDG_STATE_HOME
// (~/.local/state) when there is no runtime folder.
func DefaultSocket() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "memd", "memd.sock")
	}
	return filepath.Join(xdgHome("XDG_STATE_HOME", ".local", "state"), "memd", "memd.sock")
}

// DefaultDataDir is the data folder when none is named: $XDG_DATA_HOME/memd
// (~/.local/share/memd). A client needs it to start a daemon that shares it.
func DefaultDataDir() string {
	return filepath.Join(xdgHome("XDG_DATA_HOME", ".local", "share"), "memd")
}

// xdgHome is the XDG base folder in env, or its default under the home
// folder. The spec says relative values are invalid and must be ignored.
func xdgHome(env string, def ...string) string {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(append([]string{home}, def...)...)
}
