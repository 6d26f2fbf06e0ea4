package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/pflag"

	"github.com/memd-dev/memd/internal/config"
)

// loadConfig is memd's configuration: the config file, then the
// environment, then the flags given on fs, each over the one before, with
// the data folder and socket resolved to their defaults when unset.
func loadConfig(fs *pflag.FlagSet) (config.Config, error) {
	cfg, err := config.Load(config.FilePath(fs, os.Getenv), os.Getenv)
	if err != nil {
		return config.Config{}, err
	}
	if err := config.ApplyFlags(fs, &cfg); err != nil {
		return config.Config{}, err
	}
	cfg.Data, cfg.Socket = cfg.DataFolder(), cfg.SocketPath()
	return cfg, nil
}

func newLogger(cfg config.Config) *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.SlogLevel()}))
}

// configSummary is the one log line that says where memd's settings came from.
func configSummary(fs *pflag.FlagSet) string {
	path := config.FilePath(fs, os.Getenv)
	if _, err := os.Stat(path); err != nil {
		return fmt.Sprintf("%s (absent: flags, environment and defaults only)", path)
	}
	return path
}
