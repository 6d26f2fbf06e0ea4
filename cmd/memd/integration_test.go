package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// recallJSON runs `memctl recall --json` and decodes the answer.
func recallJSON(t *testing.T, data, sock string, args ...string) []memd.Hit {
	t.Helper()
	out, err := memctl(t, data, sock, append([]string{"recall", "--json"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Hits []memd.Hit }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("recall --json: %v in %s", err, out)
	}
	return r.Hits
}

// hitAt returns the first hit of path, if any.
func hitAt(hits []memd.Hit, path string) (memd.Hit, bool) {
	for _, h := range hits {
		if h.Path == path {
			return h, true
		}
	}
	return memd.Hit{}, false
}

// checkHitLines fails unless the hit's line span in its file contains word
// and the hit's text starts inside that span.
func checkHitLines(t *testing.T, h memd.Hit, word string) {
	t.Helper()
	b, err := os.ReadFile(h.Path)
	if err != nil {
		t.Fatalf("hit %s: %v", h.Path, err)
	}
	lines := strings.Split(string(b), "\n")
	if h.StartLine < 1 || h.EndLine < h.StartLine || h.EndLine > len(lines) {
		t.Fatalf("hit %s:%d-%d is outside the file's %d lines", h.Path, h.StartLine, h.EndLine, len(lines))
	}
	span := strings.Join(lines[h.StartLine-1:h.EndLine], "\n")
	if !strings.Contains(strings.ToLower(span), strings.ToLower(word)) {
		t.Fatalf("lines %d-%d of %s do not contain %q:\n%s", h.StartLine, h.EndLine, h.Path, word, span)
	}
	for line := range strings.SplitSeq(h.Text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if !strings.Contains(span, line) {
				t.Fatalf("hit text line %q is not in lines %d-%d of %s", line, h.StartLine, h.EndLine, h.Path)
			}
			break
		}
	}
}

// TestEndToEnd indexes a copy of the sample vault through memctl, recalls
// from it, follows an edit, a rename and a delete, and stops with SIGTERM.
func TestEndToEnd(t *testing.T) {
	vault := copyVault(t)
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	d := startDaemon(t, data, sock)

	if _, err := memctl(t, data, sock, "add", "--wait", vault); err != nil {
		t.Fatal(err)
	}
	out, err := memctl(t, data, sock, "status", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st memd.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	files := noteFiles(t, vault)
	if st.Notes+st.Skipped != len(files) || st.Notes == 0 || st.Pending != 0 || len(st.Folders) != 1 || st.Folders[0].Path != vault {
		t.Fatalf("status after add --wait: %d notes + %d skipped of %d files, %d pending, folders %+v",
			st.Notes, st.Skipped, len(files), st.Pending, st.Folders)
	}

	mission := filepath.Join(vault, "careers.mission.md")
	hits := recallJSON(t, data, sock, "Vannevar Bush memex")
	h, ok := hitAt(hits, mission)
	if !ok {
		t.Fatalf("recall of a passage of %s did not return it: %+v", mission, hits)
	}
	checkHitLines(t, h, "Vannevar")
	if h.Folder != vault {
		t.Errorf("hit folder %q, want %q", h.Folder, vault)
	}

	// Edit: new text becomes recallable.
	f, err := os.OpenFile(mission, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n## Field notes\n\nThe quokka telemetry from Zanzibar arrives every morning.\n")
	f.Close()
	eventually(t, 20*time.Second, "the edit is recalled", func() (bool, string) {
		h, ok := hitAt(recallJSON(t, data, sock, "quokka telemetry zanzibar"), mission)
		if ok {
			checkHitLines(t, h, "quokka")
		}
		return ok, "no hit in " + mission
	})

	// Rename: found at the new path, not at the old.
	renamed := filepath.Join(vault, "careers.renamed-mission.md")
	if err := os.Rename(mission, renamed); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the rename is followed", func() (bool, string) {
		hits := recallJSON(t, data, sock, "quokka telemetry zanzibar")
		_, atOld := hitAt(hits, mission)
		h, atNew := hitAt(hits, renamed)
		if atNew {
			checkHitLines(t, h, "quokka")
		}
		return atNew && !atOld, "hits: " + paths(hits)
	})

	// Delete: gone from recall and from notes.
	if err := os.Remove(renamed); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the delete is followed", func() (bool, string) {
		hits := recallJSON(t, data, sock, "quokka telemetry zanzibar")
		_, found := hitAt(hits, renamed)
		_, err := d.client.Note(context.Background(), renamed)
		return !found && errors.Is(err, memd.ErrNotFound), "hits: " + paths(hits)
	})

	// Forget one note; reindex and rm answer.
	other := filepath.Join(vault, "careers.md")
	if _, err := memctl(t, data, sock, "forget", other); err != nil {
		t.Fatal(err)
	}
	if _, err := d.client.Note(context.Background(), other); !errors.Is(err, memd.ErrNotFound) {
		t.Fatalf("note after forget: %v", err)
	}
	if _, err := memctl(t, data, sock, "reindex", "--json"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, d.client, time.Minute)
	if _, err := memctl(t, data, sock, "rm", vault); err != nil {
		t.Fatal(err)
	}
	st, err = d.client.Status(context.Background())
	if err != nil || st.Notes != 0 || len(st.Folders) != 0 {
		t.Fatalf("status after rm: %+v %v", st, err)
	}

	// SIGTERM: exit 0, socket removed, store released.
	if err := d.stop(); err != nil {
		t.Fatalf("memd exit after SIGTERM: %v\n%s", err, d.log)
	}
	if !gone(sock) {
		t.Error("socket left behind after SIGTERM")
	}
	db, err := store.Open(filepath.Join(data, "memd.db"), store.Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("store after SIGTERM: %v", err)
	}
	db.Close()
}

func paths(hits []memd.Hit) string {
	var p []string
	for _, h := range hits {
		p = append(p, filepath.Base(h.Path))
	}
	return strings.Join(p, " ")
}

// TestAutoStart: memctl starts memd when none answers, and it stops on
// SIGTERM.
func TestAutoStart(t *testing.T) {
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	out, err := memctl(t, data, sock, "status", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st memd.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.PID == 0 {
		t.Fatalf("status: %v %s", err, out)
	}
	t.Cleanup(func() { syscall.Kill(st.PID, syscall.SIGKILL) })
	if st.DataDir != data {
		t.Errorf("started memd uses data %q, want %q", st.DataDir, data)
	}
	// A second memctl finds it running and does not start another.
	out, err = memctl(t, data, sock, "status", "--json")
	var st2 memd.Status
	if err != nil || json.Unmarshal([]byte(out), &st2) != nil || st2.PID != st.PID {
		t.Fatalf("second status: %v %s", err, out)
	}
	if err := syscall.Kill(st.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(data, "memd.log")
	eventually(t, 20*time.Second, "memd stops on SIGTERM", func() (bool, string) {
		b, _ := os.ReadFile(logPath)
		return gone(sock) && strings.Contains(string(b), "memd stopped cleanly"), string(b)
	})
}

// TestSecondDaemon: a second memd on the same data folder, or on a socket
// a live memd answers on, fails fast with exit status 3 and says why.
func TestSecondDaemon(t *testing.T) {
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	startDaemon(t, data, sock)
	for _, tt := range []struct {
		name, data, sock, says string
	}{
		{"same data", data, filepath.Join(dir, "other.sock"), "in use by another process"},
		{"same socket", filepath.Join(dir, "data2"), sock, "already running"},
	} {
		d := launch(t, tt.data, tt.sock)
		select {
		case <-d.exited:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: second memd still running after 10s", tt.name)
		}
		var ee *exec.ExitError
		if !errors.As(d.err, &ee) || ee.ExitCode() != exitInUse || !strings.Contains(d.log.String(), tt.says) {
			t.Errorf("%s: exit %v, log %q; want status %d saying %q", tt.name, d.err, d.log, exitInUse, tt.says)
		}
	}
}

// TestBadRequests: malformed requests get JSON errors and the daemon keeps
// serving; so does a client that drops an event stream mid-indexing.
func TestBadRequests(t *testing.T) {
	vault := copyVault(t)
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	d := startDaemon(t, data, sock)
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	for _, tt := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/v1/recall", `{"query":`, 400, "bad_request"},
		{"POST", "/v1/recall", `{"query":"x","k":"many"}`, 400, "bad_request"},
		{"POST", "/v1/recall", `{"query":"` + strings.Repeat("a", 2<<20) + `"}`, 413, "too_large"},
		{"PUT", "/v1/status", ``, 405, "method_not_allowed"},
		{"GET", "/v1/nope", ``, 404, "not_found"},
		{"DELETE", "/v1/folders", `{"path":"/not/registered"}`, 404, "unknown_folder"},
		{"POST", "/v1/folders", `{"path":"/does/not/exist"}`, 400, "bad_request"},
		{"GET", "/v1/notes?path=relative.md", ``, 400, "bad_request"},
	} {
		req, _ := http.NewRequest(tt.method, "http://memd"+tt.path, strings.NewReader(tt.body))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code, Message string }
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != tt.status || body.Error.Code != tt.code || body.Error.Message == "" {
			t.Errorf("%s %s: %d %+v (%v), want %d %s", tt.method, tt.path, resp.StatusCode, body, err, tt.status, tt.code)
		}
	}

	// Drop event streams while the vault is being indexed.
	if _, err := d.client.AddFolder(context.Background(), vault); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, "GET /v1/events HTTP/1.1\r\nHost: memd\r\n\r\n")
		br := bufio.NewReader(conn)
		for i := 0; i < 12; i++ {
			if _, err := br.ReadString('\n'); err != nil {
				break
			}
		}
		conn.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s, err := d.client.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	s.Close()
	waitIdle(t, d.client, time.Minute)
	st, err := d.client.Status(context.Background())
	if err != nil || st.Notes == 0 {
		t.Fatalf("status after dropped streams: %+v %v", st, err)
	}
	if err := d.stop(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

// TestVersion: both binaries print the module version and the commit
// they were built from, the same for memd --version, memd version and
// memctl --version.
func TestVersion(t *testing.T) {
	run := func(bin string, args ...string) string {
		out, err := exec.Command(filepath.Join(binDir, bin), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v: %s", bin, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	flag, sub, ctl := run("memd", "--version"), run("memd", "version"), run("memctl", "--version")
	if flag != sub || !strings.HasPrefix(flag, "memd ") || strings.HasPrefix(flag, "memd dev") {
		t.Errorf("memd --version %q, memd version %q", flag, sub)
	}
	head := builtCommit
	if head == "" {
		t.Skip("not a git checkout: no commit to look for")
	}
	for _, out := range []string{flag, ctl} {
		if !strings.Contains(out, "(commit "+head[:12]) {
			t.Errorf("%q does not name the commit %s", out, head[:12])
		}
	}
	if want := strings.Fields(flag)[1]; !strings.HasPrefix(ctl, "memctl "+want) {
		t.Errorf("memctl --version %q, memd's version %s", ctl, want)
	}
}
