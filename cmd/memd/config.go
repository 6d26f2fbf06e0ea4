package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/memd-dev/memd/api"
)

// config is what the daemon is told by flags, else environment, else the
// XDG defaults.
type config struct {
	data         string
	socket       string
	maxFileBytes byteSize
	logLevel     string
}

func (c *config) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.data, "data", envOr("MEMD_DATA", api.DefaultDataDir()), "data folder: the store and memd.log (env MEMD_DATA)")
	fs.StringVar(&c.socket, "socket", envOr("MEMD_SOCKET", api.DefaultSocket()), "unix socket to listen on (env MEMD_SOCKET)")
	fs.Var(&c.maxFileBytes, "max-file-bytes", "skip files larger than this, e.g. 4MiB or 500000 (env MEMD_MAX_FILE_BYTES; default 4MiB)")
	fs.StringVar(&c.logLevel, "log-level", envOr("MEMD_LOG_LEVEL", "info"), "debug, info, warn or error (env MEMD_LOG_LEVEL)")
}

// resolve takes what the flags in fs left unset from the environment,
// checks the values and makes paths absolute.
func (c *config) resolve(fs *pflag.FlagSet) error {
	if v := os.Getenv("MEMD_MAX_FILE_BYTES"); v != "" && !fs.Changed("max-file-bytes") {
		if err := c.maxFileBytes.Set(v); err != nil {
			return fmt.Errorf("MEMD_MAX_FILE_BYTES: %w", err)
		}
	}
	var err error
	if c.data, err = filepath.Abs(c.data); err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	if c.socket, err = filepath.Abs(c.socket); err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	if _, err := parseLevel(c.logLevel); err != nil {
		return err
	}
	return nil
}

func (c *config) logger() *slog.Logger {
	level, _ := parseLevel(c.logLevel)
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("--log-level %q: use debug, info, warn or error", s)
	}
	return l, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// byteSize is a flag of a size in bytes with an optional unit: 4MiB, 4MB,
// 4M, 500k, 1000000.
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return "0"
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is not a size: write it as 4MiB, 500kB or a number of bytes", s)
	}
	*b = byteSize(n * float64(mult))
	return nil
}
