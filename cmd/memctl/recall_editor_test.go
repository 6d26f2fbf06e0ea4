package main

import (
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/server/servertest"
)

// --vimgrep prints one path:line:col:text line a hit, on the chunk's first
// line with text.
func TestRecallVimgrep(t *testing.T) {
	svc := recallFake()
	svc.Notes["/n/later.md"] = memd.NoteDetail{Path: "/n/later.md", Chunks: []memd.Hit{{
		Folder: "/n", Path: "/n/later.md", StartLine: 10, EndLine: 14, Text: "\n  \n\tWater tomatoes in the evening.  \nmore\n"}}}
	sock := servertest.Socket(t, svc)
	out, _, err := run(t, sock, "recall", "--vimgrep", "tomatoes")
	if err != nil {
		t.Fatal(err)
	}
	want := "/n/garden.md:3:1:## Tomatoes\n/n/later.md:12:1:\tWater tomatoes in the evening.\n"
	if out != want {
		t.Fatalf("got\n%q\nwant\n%q", out, want)
	}
	if _, _, err := run(t, sock, "recall", "--vimgrep", "--json", "tomatoes"); err == nil || !strings.Contains(err.Error(), "pick one") {
		t.Fatalf("--vimgrep with --json: %v", err)
	}
}

// --per-note reaches the daemon's request.
func TestRecallPerNoteFlag(t *testing.T) {
	svc := recallFake()
	sock := servertest.Socket(t, svc)
	if _, _, err := run(t, sock, "recall", "tomatoes"); err != nil || svc.LastRecall.PerNote {
		t.Fatalf("without --per-note: %+v %v", svc.LastRecall, err)
	}
	if _, _, err := run(t, sock, "recall", "--per-note", "tomatoes"); err != nil || !svc.LastRecall.PerNote {
		t.Fatalf("--per-note: %+v %v", svc.LastRecall, err)
	}
}
