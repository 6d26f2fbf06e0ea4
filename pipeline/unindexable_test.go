package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNameNotUTF8 checks that a note whose file name is not UTF-8 is listed
// as skipped with what to do, found by the start-up walk and by the
// watcher, and that its skip goes with the file (issue 14, defect 6).
func TestNameNotUTF8(t *testing.T) {
	dir := smallFolder(t)
	bad := filepath.Join(dir, "caf\xe9.md")
	writeFile(t, bad, "# Café\n\nlatin-1 named note.\n")
	ti := startIndexer(t, testConfig())
	addAndWait(t, ti, dir)

	shown := filepath.Join(dir, `caf\xe9.md`)
	if s, ok := ti.skips()[shown]; !ok || !strings.Contains(s.Reason, "not valid UTF-8") || !strings.Contains(s.Reason, "rename") {
		t.Fatalf("skips %v: want %s skipped, saying to rename it", ti.skips(), shown)
	}
	later := filepath.Join(dir, "sub", "na\xefve.txt")
	writeFile(t, later, "written while watched\n")
	waitFor(t, "the watcher to list a new badly named file", func() bool {
		_, ok := ti.skips()[filepath.Join(dir, "sub", `na\xefve.txt`)]
		return ok
	})
	if err := os.Rename(bad, filepath.Join(dir, "café.md")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the renamed note", func() bool { return ti.note(filepath.Join(dir, "café.md")) != nil })
	waitFor(t, "the old name's skip to go", func() bool { _, ok := ti.skips()[shown]; return !ok })
}

// TestUnreadableSubfolder checks that a folder memd cannot read is listed
// as skipped, its notes kept, and that the skip goes once it can be read
// (issue 14, item 12).
func TestUnreadableSubfolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	dir := smallFolder(t)
	sub := filepath.Join(dir, "sub")
	ti := startIndexer(t, testConfig())
	addAndWait(t, ti, dir)
	if err := os.Chmod(sub, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sub, 0o755) })
	if _, err := ti.reconcile(bg, dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
	s, ok := ti.skips()[sub]
	if !ok || !strings.Contains(s.Reason, "cannot read this folder") || !strings.Contains(s.Reason, "permission denied") {
		t.Fatalf("skips %v: want %s listed as unreadable", ti.skips(), sub)
	}
	if ti.note(filepath.Join(sub, "gamma.txt")) == nil {
		t.Error("the unreadable folder's note was dropped")
	}
	if err := os.Chmod(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ti.reconcile(bg, dir); err != nil {
		t.Fatal(err)
	}
	if _, ok := ti.skips()[sub]; ok {
		t.Error("the skip stayed after the folder became readable")
	}
}
