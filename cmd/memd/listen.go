package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/memory"
	"github.com/memd-dev/memd/server"
)

// chatFlags are serving settings without a config key yet: which web
// pages may open a websocket, and up to which size the store gets bbolt's
// full consistency check at start.
type chatFlags struct {
	origins           []string
	fullCheckMaxBytes int64
}

var serveFlags chatFlags

func (f *chatFlags) register(fs *pflag.FlagSet) {
	var origins []string
	if v := os.Getenv("MEMD_WS_ORIGINS"); v != "" {
		origins = strings.Split(v, ",")
	}
	fs.Int64Var(&f.fullCheckMaxBytes, "store-check-max-bytes", 128<<20, "run bbolt's full consistency check on the store at start when it is at most this big (about 4s a GB); 0 never (reads are guarded either way)")
	fs.StringSliceVar(&f.origins, "ws-origin", origins, "web page origin allowed to open /v1/ws, e.g. http://localhost:3000; repeat for more (env MEMD_WS_ORIGINS, comma-separated; default none)")
}

// listenTCP opens the loopback TCP listener when the configuration asks
// for one, with its bearer token file (created 0600 when missing); nil
// when it is off.
func listenTCP(cfg config.Config, log *slog.Logger) (net.Listener, string, error) {
	if cfg.TCP.Listen == "" {
		return nil, "", nil
	}
	path := cfg.TCP.TokenFile
	if path == "" {
		path = filepath.Join(cfg.Data, server.TokenFile)
	}
	token, err := server.EnsureToken(path)
	if err != nil {
		return nil, "", err
	}
	l, err := server.ListenTCP(cfg.TCP.Listen)
	if err != nil {
		return nil, "", err
	}
	log.Info("memd is serving on loopback TCP too", "addr", l.Addr().String(), "token_file", path)
	return l, token, nil
}

// describeTCP is the error prefix for the TCP listener.
func describeTCP(cfg config.Config, err error) error {
	return fmt.Errorf("serve tcp %s: %w", cfg.TCP.Listen, err)
}

// chatGenerator is the generator as chat sees it, nil when none loaded
// (an untyped nil, so memory sees no generator).
func (m *models) chatGenerator() memory.Generator {
	if m.generator == nil {
		return nil
	}
	return m.generator
}
