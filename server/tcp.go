package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/memd-dev/memd"
)

// The loopback TCP listener serves clients that cannot open a unix socket
// (some editors, browsers' extension hosts, containers with a forwarded
// port). The socket's peer check cannot work over TCP, so every request
// must carry the bearer token from a file only the user can read, and
// only loopback addresses are served.

// TokenFile is the name of the bearer token file in the data folder.
const TokenFile = "tcp.token"

// ListenTCP listens on addr ("127.0.0.1:7777", "[::1]:7777",
// "localhost:7777"), refusing any address that is not loopback.
func ListenTCP(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--tcp %q: write it as 127.0.0.1:PORT: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("--tcp %q: memd listens on TCP only on a loopback address (127.0.0.1 or ::1), so that nothing off this machine can reach it", addr)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip.String(), port))
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return l, nil
}

// EnsureToken returns the bearer token in path, creating the file (mode
// 0600, 32 random bytes in hex) when it is missing, unreadable as a token,
// or readable by other users: a token others may have read is replaced.
func EnsureToken(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 == 0 {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read token %s: %w", path, err)
		}
		if tok := strings.TrimSpace(string(b)); len(tok) >= 32 {
			return tok, nil
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("check token %s: %w", path, err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("make token: %w", err)
	}
	tok := hex.EncodeToString(raw)
	tmp := path + ".new"
	_ = os.Remove(tmp)
	if err := os.WriteFile(tmp, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write token %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write token %s: %w", path, err)
	}
	return tok, nil
}

// ServeTCP answers requests on l, a loopback listener from ListenTCP, for
// clients that send "Authorization: Bearer <token>". It returns nil after
// Shutdown. ServeTCP closes l.
func (s *Server) ServeTCP(l net.Listener, token string) error {
	if len(token) < 32 {
		l.Close()
		return errors.New("serve TCP: the bearer token is too short; use EnsureToken")
	}
	hs := &http.Server{
		Handler:           s.checkToken(token, s.Handler()),
		ReadHeaderTimeout: s.opt.ReadHeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.tcpMu.Lock()
	select {
	case <-s.stopping:
		s.tcpMu.Unlock()
		l.Close()
		return nil
	default:
	}
	s.tcp = hs
	s.tcpMu.Unlock()
	err := hs.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// checkToken answers 401 to requests without the bearer token, and 403 to
// requests whose Host is not a loopback name: a page that rebinds its own
// DNS name to 127.0.0.1 still sends its own name as Host.
func (s *Server) checkToken(token string, h http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			writeError(w, errorf(http.StatusForbidden, memd.CodeForbidden,
				"memd answers TCP requests addressed to 127.0.0.1, [::1] or localhost, not %q", r.Host))
			return
		}
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="memd"`)
			writeError(w, errorf(http.StatusUnauthorized, memd.CodeUnauthorized,
				"memd's TCP listener needs the header \"Authorization: Bearer <token>\" with the token in memd's data folder (%s)", TokenFile))
			return
		}
		h.ServeHTTP(w, r)
	})
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
