package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

func TestAddRm(t *testing.T) {
	svc := apitest.New()
	sock := servertest.Socket(t, svc)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "notes"), 0o700)
	t.Chdir(dir)
	real, _ := filepath.EvalSymlinks(filepath.Join(dir, "notes"))
	out, _, err := run(t, sock, "add", "notes")
	if err != nil || !strings.Contains(out, "added "+real) {
		t.Fatalf("add: %q %v", out, err)
	}
	if _, ok := svc.FolderList[real]; !ok {
		t.Fatalf("folder registered as %v, want %s", svc.FolderList, real)
	}
	out, _, err = run(t, sock, "add", "--wait", "--json", "notes")
	if err != nil || !strings.Contains(out, `"path": "`+real+`"`) {
		t.Fatalf("add --wait --json: %q %v", out, err)
	}
	if out, _, err = run(t, sock, "rm", "notes"); err != nil || !strings.Contains(out, "removed "+real) {
		t.Fatalf("rm: %q %v", out, err)
	}
	_, _, err = run(t, sock, "rm", "notes")
	var e *memd.Error
	if !errors.As(err, &e) || e.Code != memd.CodeUnknownFolder || !strings.Contains(describe(err), real) {
		t.Fatalf("rm again: %v", err)
	}
}

func TestForgetReindex(t *testing.T) {
	svc := recallFake()
	svc.Notes["/n/b.md"] = memd.NoteDetail{Path: "/n/b.md"}
	sock := servertest.Socket(t, svc)
	if out, _, err := run(t, sock, "forget", "/n/b.md"); err != nil || !strings.Contains(out, "forgot /n/b.md") {
		t.Fatalf("forget: %q %v", out, err)
	}
	if _, _, err := run(t, sock, "forget", "/n/b.md"); !errors.Is(err, memd.ErrNotFound) {
		t.Fatalf("forget again: %v", err)
	}
	if out, _, err := run(t, sock, "reindex", "--json"); err != nil || !strings.Contains(out, `"queued": 1`) || svc.LastReindex != "" {
		t.Fatalf("reindex: %q %v %q", out, err, svc.LastReindex)
	}
	if _, _, err := run(t, sock, "reindex", "/n"); err != nil || svc.LastReindex != "/n" {
		t.Fatalf("reindex /n: %v %q", err, svc.LastReindex)
	}
}
