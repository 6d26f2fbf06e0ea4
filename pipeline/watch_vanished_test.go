package pipeline

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVanishedFolderResumes removes a watched folder (and, the second
// time, its parent too) and brings it back: with the periodic reconcile an
// hour away, it must be watched and indexed again within seconds (issue 14,
// defect 10).
func TestVanishedFolderResumes(t *testing.T) {
	for _, c := range []struct{ name, removed string }{
		{"folder", "."},
		{"folder and parent", ".."},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := tempDir(t)
			root := filepath.Join(base, "drive", "vault")
			writeFile(t, filepath.Join(root, "first.md"), "# First\n")
			ti := startIndexer(t, testConfig()) // Reconcile: an hour
			addAndWait(t, ti, root)
			state := func() FolderState { return ti.Folders()[0] }

			if err := os.RemoveAll(filepath.Join(root, c.removed)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the folder to be reported vanished", func() bool { return state().Error == errVanished })
			back := filepath.Join(root, "back.md")
			writeFile(t, back, "# Back\n\nwritten when the folder came back.\n")
			waitFor(t, "the folder to be watched again", func() bool { s := state(); return s.Watching && s.Error == "" })
			waitFor(t, "the note of the folder that came back", func() bool { return ti.note(back) != nil })
			later := filepath.Join(root, "later.md")
			writeFile(t, later, "# Later\n")
			waitFor(t, "a note written after it came back", func() bool { return ti.note(later) != nil })
		})
	}
}
