package config

import (
	"os"
	"path/filepath"
)

// DataDir is the default data folder, $XDG_DATA_HOME/memd
// (~/.local/share/memd): the store and the models folder live there.
func DataDir() string { return filepath.Join(xdgHome("XDG_DATA_HOME", ".local", "share"), "memd") }

// ConfigDir is the folder of the config file, $XDG_CONFIG_HOME/memd
// (~/.config/memd).
func ConfigDir() string { return filepath.Join(xdgHome("XDG_CONFIG_HOME", ".config"), "memd") }

// CacheDir is memd's cache folder, $XDG_CACHE_HOME/memd (~/.cache/memd):
// what can be fetched again, such as llama.cpp's libraries.
func CacheDir() string { return filepath.Join(xdgHome("XDG_CACHE_HOME", ".cache"), "memd") }

// StateDir is memd's state folder, $XDG_STATE_HOME/memd
// (~/.local/state/memd): logs, and the socket when there is no runtime
// folder.
func StateDir() string { return filepath.Join(xdgHome("XDG_STATE_HOME", ".local", "state"), "memd") }

// RuntimeSocketPath is the default socket, $XDG_RUNTIME_DIR/memd/memd.sock,
// else StateDir()/memd.sock where there is no runtime folder (macOS).
func RuntimeSocketPath() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "memd", "memd.sock")
	}
	return filepath.Join(StateDir(), "memd.sock")
}

// DefaultPath is the config file when neither --config nor MEMD_CONFIG
// names one: ConfigDir()/config.toml.
func DefaultPath() string { return filepath.Join(ConfigDir(), "config.toml") }

// xdgHome is the XDG base folder in env, or its default under the home
// folder. The XDG spec says relative values are invalid and must be ignored.
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
