package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/api/apitest"
)

// serve starts a Server over svc on a fresh socket and returns a client of
// it and a raw HTTP client for requests the typed client cannot make.
func serve(t *testing.T, svc Service, o Options) (*Server, *api.Client, *http.Client) {
	t.Helper()
	dir, err := os.MkdirTemp("", "memdapi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s", "memd.sock")
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := NewServer(svc, o)
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	c := api.NewClient(sock)
	t.Cleanup(c.Close)
	return s, c, rawClient(t, sock)
}

// rawClient is an HTTP client of the socket, for requests the typed client
// cannot make.
func rawClient(t *testing.T, sock string) *http.Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// call makes a raw request and returns the status and decoded error body.
func call(t *testing.T, hc *http.Client, method, path, body string) (int, *memd.Error, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://memd"+path, strings.NewReader(body))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, nil, resp.Header
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: error Content-Type %q, want application/json", method, path, ct)
	}
	var b memd.ErrorBody
	if err := json.Unmarshal(raw, &b); err != nil || b.Error == nil {
		t.Fatalf("%s %s: error body %q is not memd's JSON error", method, path, raw)
	}
	return resp.StatusCode, b.Error, resp.Header
}

func TestErrors(t *testing.T) {
	_, _, hc := serve(t, apitest.New(), Options{})
	big := `{"query":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name, method, path, body string
		status                   int
		code, says               string
	}{
		{"unknown route", "GET", "/v2/nothing", "", 404, memd.CodeNotFound, "/v1/recall"},
		{"wrong method", "GET", "/v1/recall", "", 405, memd.CodeMethodNotAllowed, "use POST"},
		{"empty body", "POST", "/v1/recall", "", 400, memd.CodeBadRequest, "empty"},
		{"bad json", "POST", "/v1/recall", `{"query":`, 400, memd.CodeBadRequest, "middle of a JSON value"},
		{"syntax", "POST", "/v1/recall", `{"query" "x"}`, 400, memd.CodeBadRequest, "not valid JSON at byte"},
		{"not object", "POST", "/v1/recall", `[1]`, 400, memd.CodeBadRequest, "must be a JSON object"},
		{"wrong type", "POST", "/v1/recall", `{"query":"x","k":"ten"}`, 400, memd.CodeBadRequest, `"k" must be a number`},
		{"unknown field", "POST", "/v1/recall", `{"qurey":"x"}`, 400, memd.CodeBadRequest, `unknown field "qurey"`},
		{"two values", "POST", "/v1/recall", `{"query":"x"} {}`, 400, memd.CodeBadRequest, "more than one"},
		{"trailing junk", "POST", "/v1/recall", `{"query":"x"}}`, 400, memd.CodeBadRequest, "not valid JSON"},
		{"empty query", "POST", "/v1/recall", `{"query":"  "}`, 400, memd.CodeBadRequest, `"query" is empty`},
		{"k too big", "POST", "/v1/recall", `{"query":"x","k":100000}`, 400, memd.CodeBadRequest, `"k"`},
		{"relative filter", "POST", "/v1/recall", `{"query":"x","filters":{"folder":"notes"}}`, 400, memd.CodeBadRequest, "relative"},
		{"too large", "POST", "/v1/recall", big, 413, memd.CodeTooLarge, "over"},
		{"relative folder", "POST", "/v1/folders", `{"path":"notes"}`, 400, memd.CodeBadRequest, "absolute"},
		{"missing path", "POST", "/v1/folders", `{}`, 400, memd.CodeBadRequest, `"path" is missing`},
		{"unknown folder", "DELETE", "/v1/folders", `{"path":"/nowhere"}`, 404, memd.CodeUnknownFolder, "/nowhere"},
		{"note missing", "GET", "/v1/notes?path=/missing.md", "", 404, memd.CodeNotFound, "not indexed"},
		{"note no path", "GET", "/v1/notes", "", 400, memd.CodeBadRequest, "path"},
		{"idle bad timeout", "GET", "/v1/idle?timeout=soon", "", 400, memd.CodeBadRequest, "duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, e, h := call(t, hc, tt.method, tt.path, tt.body)
			if status != tt.status || e == nil || e.Code != tt.code {
				t.Fatalf("got %d %+v, want %d %s", status, e, tt.status, tt.code)
			}
			if !strings.Contains(e.Message, tt.says) {
				t.Errorf("message %q does not say %q", e.Message, tt.says)
			}
			if tt.status == 405 && h.Get("Allow") != "POST" {
				t.Errorf("Allow = %q", h.Get("Allow"))
			}
		})
	}
	// The daemon keeps serving after all of that.
	if status, _, _ := call(t, hc, "GET", "/v1/status", ""); status != 200 {
		t.Fatalf("status after bad requests: %d", status)
	}
}

func TestRoutes(t *testing.T) {
	f := apitest.New()
	f.Notes["/notes/a b&c.md"] = memd.NoteDetail{Path: "/notes/a b&c.md",
		Chunks: []memd.Hit{{Path: "/notes/a b&c.md", StartLine: 3, EndLine: 4, Text: "hello there"}}}
	f.Notes["/notes/b.md"] = memd.NoteDetail{Path: "/notes/b.md"}
	_, c, _ := serve(t, f, Options{})
	ctx := context.Background()
	res, err := c.Recall(ctx, memd.RecallRequest{Query: "hello", K: 3})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].StartLine != 3 || f.LastRecall.K != 3 {
		t.Fatalf("recall: %+v, %v", res, err)
	}
	if _, err := c.AddFolder(ctx, "/notes"); err != nil {
		t.Fatal(err)
	}
	folders, err := c.Folders(ctx)
	if err != nil || len(folders) != 1 || folders[0].Path != "/notes" {
		t.Fatalf("folders: %+v, %v", folders, err)
	}
	if err := c.RemoveFolder(ctx, "/notes"); err != nil {
		t.Fatal(err)
	}
	err = c.RemoveFolder(ctx, "/notes")
	var e *memd.Error
	if !errors.As(err, &e) || e.Status != 404 || !errors.Is(err, memd.ErrUnknownFolder) {
		t.Fatalf("second remove: %v", err)
	}
	if res, err := c.Reindex(ctx, ""); err != nil || res.Queued != 2 || f.LastReindex != "" {
		t.Fatalf("reindex all: %+v %v %q", res, err, f.LastReindex)
	}
	if _, err := c.Reindex(ctx, "/notes/b.md"); err != nil || f.LastReindex != "/notes/b.md" {
		t.Fatalf("reindex one: %v %q", err, f.LastReindex)
	}
	if d, err := c.Note(ctx, "/notes/a b&c.md"); err != nil || d.Path != "/notes/a b&c.md" {
		t.Fatalf("note: %+v %v", d, err)
	}
	if err := c.Forget(ctx, "/notes/b.md"); err != nil || f.LastForget != "/notes/b.md" {
		t.Fatalf("forget: %v %q", err, f.LastForget)
	}
	if _, err := c.Note(ctx, "/notes/b.md"); !errors.Is(err, memd.ErrNotFound) {
		t.Fatalf("note after forget: %v", err)
	}
	if skips, err := c.Skips(ctx); err != nil || skips == nil {
		t.Fatalf("skips: %v %v", skips, err)
	}
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestRequestTimeout(t *testing.T) {
	f := apitest.New()
	f.RecallHook = func(ctx context.Context, _ memd.RecallRequest) (memd.RecallResult, error) {
		<-ctx.Done()
		return memd.RecallResult{}, ctx.Err()
	}
	_, c, _ := serve(t, f, Options{RequestTimeout: 50 * time.Millisecond})
	_, err := c.Recall(context.Background(), memd.RecallRequest{Query: "slow"})
	var e *memd.Error
	if !errors.As(err, &e) || e.Code != memd.CodeTimeout || e.Status != http.StatusGatewayTimeout {
		t.Fatalf("got %v, want a timeout error", err)
	}
	// The kept-alive connection still serves once the deadline has passed.
	time.Sleep(1200 * time.Millisecond)
	if _, err := c.Status(context.Background()); err != nil {
		t.Fatalf("status on the same connection: %v", err)
	}
}

func TestIdleLongPoll(t *testing.T) {
	f := apitest.New()
	release := make(chan struct{})
	f.WaitIdleHook = func(ctx context.Context) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	_, _, hc := serve(t, f, Options{})
	resp, err := hc.Get("http://memd/v1/idle?timeout=20ms")
	if err != nil {
		t.Fatal(err)
	}
	var r memd.IdleResult
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if r.Idle {
		t.Fatal("idle before the work was done")
	}
	close(release)
	resp, err = hc.Get("http://memd/v1/idle")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if !r.Idle {
		t.Fatal("not idle after the work was done")
	}
}

func TestOtherUserRefused(t *testing.T) {
	s, c, _ := serve(t, apitest.New(), Options{})
	s.uid++
	_, err := c.Status(context.Background())
	var e *memd.Error
	if !errors.As(err, &e) || e.Status != http.StatusForbidden || e.Code != memd.CodeForbidden {
		t.Fatalf("got %v, want 403", err)
	}
}
