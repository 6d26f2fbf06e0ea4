package server

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestListenTCPRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.2:0", ":0", "example.com:80", "nonsense"} {
		if l, err := ListenTCP(addr); err == nil {
			l.Close()
			t.Errorf("ListenTCP(%q) listened", addr)
		}
	}
}

func TestEnsureToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), TokenFile)
	tok, err := EnsureToken(path)
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q %v", tok, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if again, _ := EnsureToken(path); again != tok {
		t.Fatal("the token changed on a second start")
	}
	os.Chmod(path, 0o644)
	if replaced, _ := EnsureToken(path); replaced == tok {
		t.Fatal("a token others could read was kept")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("replaced token file mode %v", fi.Mode().Perm())
	}
}

func TestServeTCPChecksTokenHostAndOrigin(t *testing.T) {
	s := NewServer(chatFake(), Options{Logger: slog.New(slog.DiscardHandler)})
	l, err := ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := EnsureToken(filepath.Join(t.TempDir(), TokenFile))
	done := make(chan error, 1)
	go func() { done <- s.ServeTCP(l, tok) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("ServeTCP: %v", err)
		}
	})
	base := "http://" + l.Addr().String()
	get := func(url, auth, host string) int {
		req, _ := http.NewRequest("GET", url, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	cases := []struct {
		name, auth, host string
		want             int
	}{
		{"no token", "", "", http.StatusUnauthorized},
		{"wrong token", "Bearer " + strings.Repeat("0", 64), "", http.StatusUnauthorized},
		{"token without Bearer", tok, "", http.StatusUnauthorized},
		{"rebound host", "Bearer " + tok, "evil.example:80", http.StatusForbidden},
		{"token", "Bearer " + tok, "", http.StatusOK},
		{"localhost", "Bearer " + tok, "localhost:1", http.StatusOK},
	}
	for _, c := range cases {
		if got := get(base+"/v1/status", c.auth, c.host); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hdr := http.Header{"Authorization": {"Bearer " + tok}, "Origin": {"http://evil.example"}}
	if _, resp, err := websocket.Dial(ctx, "ws"+base[4:]+"/v1/ws", &websocket.DialOptions{HTTPHeader: hdr}); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("websocket from a web page: %v; want 403", err)
	}
	hdr.Del("Origin")
	ws, _, err := websocket.Dial(ctx, "ws"+base[4:]+"/v1/ws", &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatalf("websocket with the token: %v", err)
	}
	ws.CloseNow()
}
