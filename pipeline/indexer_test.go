package pipeline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/internal/gencorpus"
	"github.com/memd-dev/memd/store"
)

var bg = context.Background()

// TestIndexDendron indexes a copy of the dendron vault (its first 200 notes
// with -short) and checks that every note is stored once with chunks whose
// line spans hold their text.
func TestIndexDendron(t *testing.T) {
	dir := copyTree(t, dendronVault(t))
	if testing.Short() {
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, f := range files[200:] {
			os.Remove(f)
		}
	}
	before := runtime.NumGoroutine()
	ti := startIndexer(t, testConfig())
	slow := ti.Subscribe(bg) // never read: must not hold the indexer back
	events := ti.Subscribe(bg)
	indexed := make(chan int, 1)
	go func() {
		n := 0
		for ev := range events {
			if ev.Type == memd.EventIndexed {
				n++
			}
		}
		indexed <- n
	}()

	if _, err := ti.AddFolder(bg, dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)

	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	c := ti.counts()
	if c.Notes != len(files) || c.Pending != 0 || c.Skipped != 0 {
		t.Fatalf("counts %+v, want %d notes, none pending or skipped", c, len(files))
	}
	if got := ti.IndexedSinceStart(); got != int64(len(files)) {
		t.Errorf("IndexedSinceStart = %d, want %d", got, len(files))
	}
	checkChunkSpans(t, ti, dir)

	ti.stop()
	if n := <-indexed; n+int(ti.DroppedEvents()) < len(files) {
		t.Errorf("subscriber saw %d indexed events and %d were dropped, want %d in all", n, ti.DroppedEvents(), len(files))
	}
	if len(files) > subscriberBuffer && ti.DroppedEvents() == 0 {
		t.Errorf("the subscriber that never reads dropped no events")
	}
	if _, ok := <-slow; ok {
		// Drain what it buffered; the channel must be closed by Run's end.
		for range slow {
		}
	}
	waitFor(t, "goroutines to stop", func() bool { return runtime.NumGoroutine() <= before+1 })
}

// checkChunkSpans checks every stored chunk against its file: the span is
// in range, its first and last lines are in the chunk's text, and the
// note's chunks do not overlap.
func checkChunkSpans(t *testing.T, ti *testIndexer, dir string) {
	t.Helper()
	err := ti.db.View(func(tx *store.Tx) error {
		return tx.ForEachNote(dir+"/", func(n *store.Note) error {
			lines := fileLines(t, n.Path)
			prevEnd := 0
			for _, id := range n.Chunks {
				c, err := tx.Chunk(id)
				if err != nil {
					return err
				}
				// Pieces of one oversize block may share a line, nothing more.
				if c.Path != n.Path || c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > len(lines) || c.StartLine < prevEnd {
					t.Errorf("%s: chunk %d spans %d-%d of %d lines (previous ended at %d)", n.Path, id, c.StartLine, c.EndLine, len(lines), prevEnd)
					continue
				}
				prevEnd = c.EndLine
				text := strings.Split(strings.TrimSpace(c.Text), "\n")
				if !sameLine(lines[c.StartLine-1], text[0]) || !sameLine(lines[c.EndLine-1], text[len(text)-1]) {
					t.Errorf("%s: chunk %d (lines %d-%d) text does not start and end on its lines", n.Path, id, c.StartLine, c.EndLine)
				}
			}
			if n.Hash == "" || n.Title == "" || n.Chunker != "heuristic" {
				t.Errorf("%s: note record %+v", n.Path, n)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sameLine reports whether a chunk's text line is (a piece of) a file line.
func sameLine(file, chunk string) bool {
	file, chunk = strings.TrimSpace(file), strings.TrimSpace(chunk)
	return strings.Contains(file, chunk) || strings.Contains(chunk, file)
}

func fileLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		lines = append(lines, s.Text())
	}
	return lines
}

// smallFolder writes a few notes and returns the folder.
func smallFolder(t *testing.T) string {
	dir := tempDir(t)
	writeFile(t, filepath.Join(dir, "alpha.md"), "# Alpha\n\nAlpha notes about apricots.\n\n## More\n\nSecond section on avocados.\n")
	writeFile(t, filepath.Join(dir, "beta.md"), "# Beta\n\nBeta notes about bananas.\n")
	writeFile(t, filepath.Join(dir, "sub", "gamma.txt"), "Gamma plain text about grapes.\n")
	return dir
}

func addAndWait(t *testing.T, ti *testIndexer, dir string) {
	t.Helper()
	if _, err := ti.AddFolder(bg, dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
}

func chunkTexts(t *testing.T, ti *testIndexer, path string) string {
	t.Helper()
	var sb strings.Builder
	_ = ti.db.View(func(tx *store.Tx) error {
		n, err := tx.Note(path)
		if err != nil {
			return nil
		}
		for _, id := range n.Chunks {
			if c, err := tx.Chunk(id); err == nil {
				sb.WriteString(c.Text + "\n")
			}
		}
		return nil
	})
	return sb.String()
}

func hasTerm(t *testing.T, ti *testIndexer, term string) bool {
	t.Helper()
	var n int
	_ = ti.db.View(func(tx *store.Tx) error {
		ps, err := tx.Postings(term, nil)
		n = len(ps)
		return err
	})
	return n > 0
}

// TestWatch edits, creates, deletes and renames files under a watched
// folder and checks the store follows.
func TestWatch(t *testing.T) {
	dir := smallFolder(t)
	ti := startIndexer(t, testConfig())
	addAndWait(t, ti, dir)
	alpha, beta := filepath.Join(dir, "alpha.md"), filepath.Join(dir, "beta.md")

	t.Run("edit", func(t *testing.T) {
		writeFile(t, alpha, "# Alpha\n\nAlpha notes about apricots and kumquats.\n")
		waitFor(t, "the edit to be indexed", func() bool { return strings.Contains(chunkTexts(t, ti, alpha), "kumquats") })
		if !hasTerm(t, ti, "kumquat") {
			t.Error("no posting for the new word")
		}
		waitFor(t, "the old section's postings to go", func() bool { return !hasTerm(t, ti, "avocado") })
	})
	t.Run("create", func(t *testing.T) {
		p := filepath.Join(dir, "delta.md")
		writeFile(t, p, "# Delta\n\nDelta is about dates.\n")
		waitFor(t, "the new note", func() bool { return ti.note(p) != nil })
	})
	t.Run("delete", func(t *testing.T) {
		p := filepath.Join(dir, "delta.md")
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the note to go", func() bool { return ti.note(p) == nil })
	})
	t.Run("rename", func(t *testing.T) {
		old := ti.note(beta)
		renamed := filepath.Join(dir, "sub", "beta-renamed.md")
		if err := os.Rename(beta, renamed); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the rename", func() bool { return ti.note(renamed) != nil && ti.note(beta) == nil })
		if got := ti.note(renamed); !slices.Equal(got.Chunks, old.Chunks) {
			t.Errorf("renamed note has chunks %v, want the old ones %v (no re-chunk)", got.Chunks, old.Chunks)
		}
		var c *store.Chunk
		_ = ti.db.View(func(tx *store.Tx) error { c, _ = tx.Chunk(old.Chunks[0]); return nil })
		if c == nil || c.Path != renamed {
			t.Errorf("chunk after rename: %+v", c)
		}
	})
	t.Run("editor save", func(t *testing.T) {
		events := ti.Subscribe(t.Context())
		tmp := filepath.Join(dir, "alpha.md.tmp")
		writeFile(t, tmp, "# Alpha\n\nSaved by an editor: apricots, kumquats and limes.\n")
		if err := os.Rename(tmp, alpha); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the save", func() bool { return strings.Contains(chunkTexts(t, ti, alpha), "limes") })
		ti.waitIdle(t)
		time.Sleep(3 * testConfig().Debounce)
		ti.waitIdle(t)
		n := 0
		for len(events) > 0 {
			if ev := <-events; ev.Type == memd.EventIndexed && ev.Path == alpha {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the save indexed the note %d times, want once", n)
		}
	})
	t.Run("new sub-folder", func(t *testing.T) {
		p := filepath.Join(dir, "new", "deeper", "epsilon.md")
		writeFile(t, p, "# Epsilon\n\nEpsilon is about elderberries.\n")
		waitFor(t, "a note in a new folder", func() bool { return ti.note(p) != nil })
		q := filepath.Join(dir, "new", "deeper", "zeta.md")
		writeFile(t, q, "# Zeta\n\nZeta, written after the folder was watched.\n")
		waitFor(t, "a second note in it", func() bool { return ti.note(q) != nil })
	})
	t.Run("folder moved away", func(t *testing.T) {
		q := filepath.Join(dir, "new", "deeper", "zeta.md")
		if err := os.Rename(filepath.Join(dir, "new"), filepath.Join(tempDir(t), "elsewhere")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the moved folder's notes to go", func() bool { return ti.note(q) == nil })
	})
}

// TestIgnored checks the built-in ignores and the root's ignore files, at
// scan time and while watching.
func TestIgnored(t *testing.T) {
	dir := smallFolder(t)
	writeFile(t, filepath.Join(dir, ".gitignore"), "drafts/\n*.secret.md\n")
	writeFile(t, filepath.Join(dir, ".memdignore"), "private.md\n")
	ignored := []string{
		".git/notes.md", ".obsidian/workspace.md", "node_modules/pkg/README.md", ".hidden.md",
		"sub/.dot/x.md", "drafts/plan.md", "sub/drafts/plan.md", "a.secret.md", "private.md",
		"image.png",
	}
	for _, p := range ignored {
		writeFile(t, filepath.Join(dir, p), "# Ignored\n\nshould never be indexed.\n")
	}
	ti := startIndexer(t, testConfig())
	addAndWait(t, ti, dir)
	if c := ti.counts(); c.Notes != 3 {
		t.Fatalf("%d notes indexed, want the 3 not ignored", c.Notes)
	}
	for _, p := range ignored {
		writeFile(t, filepath.Join(dir, p), "# Ignored\n\nstill not.\n")
	}
	marker := filepath.Join(dir, "marker.md")
	writeFile(t, marker, "# Marker\n")
	waitFor(t, "the marker note", func() bool { return ti.note(marker) != nil })
	ti.waitIdle(t)
	if c := ti.counts(); c.Notes != 4 {
		t.Errorf("%d notes after writing ignored files, want 4", c.Notes)
	}

	// A pattern added later takes effect at once: the matching note leaves.
	writeFile(t, filepath.Join(dir, ".memdignore"), "private.md\nbeta.md\n")
	waitFor(t, "beta.md to be dropped", func() bool { return ti.note(filepath.Join(dir, "beta.md")) == nil })
}

// TestSkips checks that a binary file, invalid UTF-8 and a 50 MB file are
// skipped with reasons, and leave the rest indexed.
func TestSkips(t *testing.T) {
	dir := smallFolder(t)
	writeFile(t, filepath.Join(dir, "binary.md"), "PK\x03\x04\x00\x00binary\x00data")
	writeFile(t, filepath.Join(dir, "latin1.txt"), "caf\xe9 cr\xe8me br\xfbl\xe9e\n")
	big := filepath.Join(dir, "huge.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(50 << 20); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.Close()

	ti := startIndexer(t, testConfig())
	addAndWait(t, ti, dir)
	skips := ti.skips()
	want := map[string]string{
		"binary.md":  "binary",
		"latin1.txt": "UTF-8",
		"huge.txt":   "file is 50 MB, over the 4 MB limit (set max_file_bytes to index it)",
	}
	for name, reason := range want {
		s, ok := skips[filepath.Join(dir, name)]
		if !ok || !strings.Contains(s.Reason, reason) {
			t.Errorf("%s: skip %+v, want a reason with %q", name, s, reason)
		}
	}
	if c := ti.counts(); c.Notes != 3 || c.Skipped != 3 {
		t.Errorf("counts %+v, want 3 notes and 3 skipped", c)
	}

	// Fixed, the file is indexed and its skip goes.
	writeFile(t, filepath.Join(dir, "latin1.txt"), "café crème brûlée\n")
	waitFor(t, "the fixed file", func() bool { return ti.note(filepath.Join(dir, "latin1.txt")) != nil })
	if _, ok := ti.skips()[filepath.Join(dir, "latin1.txt")]; ok {
		t.Error("skip kept after the file was indexed")
	}

	// A reconcile does not re-read unchanged skipped files.
	n, err := ti.reconcile(bg, dir)
	if err != nil || n != 0 {
		t.Errorf("reconcile queued %d (%v), want 0", n, err)
	}
}

// TestSymlinks checks that a symlink loop does not hang the scan or the
// watcher and that links are not followed.
func TestSymlinks(t *testing.T) {
	dir := smallFolder(t)
	outside := tempDir(t)
	writeFile(t, filepath.Join(outside, "outside.md"), "# Outside\n")
	for link, target := range map[string]string{
		"loop":        ".",
		"sub/parent":  "..",
		"out":         outside,
		"linked.md":   filepath.Join(outside, "outside.md"),
		"dangling.md": filepath.Join(outside, "nope.md"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	ti := startIndexer(t, testConfig())
	done := make(chan struct{})
	go func() { addAndWait(t, ti, dir); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("indexing a folder with a symlink loop hung")
	}
	if c := ti.counts(); c.Notes != 3 {
		t.Errorf("%d notes, want 3 (links not followed)", c.Notes)
	}
	// Linked notes are listed as skipped, with the reason, not left unsaid.
	skips := ti.skips()
	for _, name := range []string{"linked.md", "dangling.md"} {
		if s, ok := skips[filepath.Join(dir, name)]; !ok || s.Reason != ReasonSymlink {
			t.Errorf("%s: skip %+v, want the symlink reason", name, s)
		}
	}
	if err := os.Symlink(".", filepath.Join(dir, "sub", "loop2")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "after.md")
	writeFile(t, p, "# After\n")
	waitFor(t, "a note after a new loop", func() bool { return ti.note(p) != nil })
}

// TestFolderVanishes removes a watched folder: it is reported, the other
// folder keeps indexing, and it is watched again once back.
func TestFolderVanishes(t *testing.T) {
	gone, other := smallFolder(t), smallFolder(t)
	cfg := testConfig()
	cfg.Reconcile = 100 * time.Millisecond
	ti := startIndexer(t, cfg)
	addAndWait(t, ti, gone)
	addAndWait(t, ti, other)

	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	state := func(root string) FolderState {
		for _, f := range ti.Folders() {
			if f.Path == root {
				return f
			}
		}
		return FolderState{}
	}
	waitFor(t, "the folder to be reported vanished", func() bool { s := state(gone); return !s.Watching && s.Error == "folder vanished" })
	p := filepath.Join(other, "still.md")
	writeFile(t, p, "# Still\n\nthe other folder still works.\n")
	waitFor(t, "a note in the other folder", func() bool { return ti.note(p) != nil })
	if s := state(other); !s.Watching || s.Error != "" {
		t.Errorf("other folder state %+v", s)
	}

	writeFile(t, filepath.Join(gone, "back.md"), "# Back\n")
	waitFor(t, "the folder to be watched again", func() bool { s := state(gone); return s.Watching && s.Error == "" })
	waitFor(t, "the note of the folder that came back", func() bool { return ti.note(filepath.Join(gone, "back.md")) != nil })
	q := filepath.Join(gone, "later.md")
	writeFile(t, q, "# Later\n")
	waitFor(t, "a note written after it came back", func() bool { return ti.note(q) != nil })
	waitFor(t, "the notes deleted with it to go", func() bool { return ti.note(filepath.Join(gone, "alpha.md")) == nil })
}

// TestDeletedBeforeRead queues a folder, deletes a note before the worker
// reads it, and checks it is a plain removal.
func TestDeletedBeforeRead(t *testing.T) {
	dir := smallFolder(t)
	ti := newIndexer(t, testConfig())
	if _, err := ti.AddFolder(bg, dir); err != nil {
		t.Fatal(err)
	}
	if c := ti.counts(); c.Pending != 3 {
		t.Fatalf("%d jobs queued before Run, want 3", c.Pending)
	}
	if err := os.Remove(filepath.Join(dir, "beta.md")); err != nil {
		t.Fatal(err)
	}
	ti.start(t)
	ti.waitIdle(t)
	if c := ti.counts(); c.Notes != 2 || c.Skipped != 0 || c.Pending != 0 {
		t.Errorf("counts %+v, want 2 notes and nothing skipped or pending", c)
	}
}

// TestResume queues a folder, "crashes" (closes the store without
// indexing), reopens and checks every note is indexed exactly once.
func TestResume(t *testing.T) {
	dir := tempDir(t)
	if err := gencorpus.Write(dir, 150, 2); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "memd.db")
	db := openStore(t, path)
	ix := NewIndexer(db, testConfig())
	if _, err := ix.AddFolder(bg, dir); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openStore(t, path)
	defer db.Close()
	ti := &testIndexer{Indexer: NewIndexer(db, testConfig()), db: db}
	ti.start(t)
	ti.waitIdle(t)
	checkExactlyOnce(t, db, 150)
}

// checkExactlyOnce checks the store holds want notes, each chunk once and
// owned by its note, and that the counters agree with the records.
func checkExactlyOnce(t *testing.T, db *store.DB, want int) {
	t.Helper()
	err := db.View(func(tx *store.Tx) error {
		owner := map[uint64]string{}
		notes := 0
		if err := tx.ForEachNote("", func(n *store.Note) error {
			notes++
			for _, id := range n.Chunks {
				if prev, ok := owner[id]; ok {
					t.Errorf("chunk %d is in %s and %s", id, prev, n.Path)
				}
				owner[id] = n.Path
			}
			return nil
		}); err != nil {
			return err
		}
		chunks := 0
		if err := tx.ForEachChunk(func(c *store.Chunk) error {
			chunks++
			if owner[c.ID] != c.Path {
				t.Errorf("chunk %d of %s is not listed by its note", c.ID, c.Path)
			}
			return nil
		}); err != nil {
			return err
		}
		c := tx.Counts()
		if notes != want || c.Notes != notes || c.Chunks != chunks || c.Pending != 0 {
			t.Errorf("%d notes (counter %d), %d chunks (counter %d), %d pending; want %d notes", notes, c.Notes, chunks, c.Chunks, c.Pending, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAddFolder checks registration: idempotent, nested refused, paths
// resolved.
func TestAddFolder(t *testing.T) {
	dir := smallFolder(t)
	ti := startIndexer(t, testConfig())
	f1, err := ti.AddFolder(bg, dir)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := ti.AddFolder(bg, dir+"/./sub/..")
	if err != nil || f2 != f1 {
		t.Errorf("second AddFolder = %+v, %v; want %+v", f2, err, f1)
	}
	link := filepath.Join(tempDir(t), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if f3, err := ti.AddFolder(bg, link); err != nil || f3.Path != dir {
		t.Errorf("AddFolder through a link = %+v, %v; want %s", f3, err, dir)
	}
	// The message says which way the folders nest, and only the folder
	// around the registered one is told to remove it (issue 14, defect 7).
	_, err = ti.AddFolder(bg, filepath.Join(dir, "sub"))
	if !errors.Is(err, ErrNestedFolder) || !strings.Contains(err.Error(), filepath.Join(dir, "sub")+" is inside "+dir) || strings.Contains(err.Error(), "memctl rm") {
		t.Errorf("folder inside: %v, want ErrNestedFolder saying it is inside %s", err, dir)
	}
	_, err = ti.AddFolder(bg, filepath.Dir(dir))
	if !errors.Is(err, ErrNestedFolder) || !strings.Contains(err.Error(), filepath.Dir(dir)+" contains "+dir) || !strings.Contains(err.Error(), "memctl rm "+dir) {
		t.Errorf("folder containing: %v, want ErrNestedFolder saying it contains %s", err, dir)
	}
	if _, err = ti.AddFolder(bg, "/"); err == nil || !strings.Contains(err.Error(), "/ contains "+dir) {
		t.Errorf("adding /: %v, want it to say / contains %s", err, dir)
	}
	for _, p := range []string{filepath.Join(dir, "alpha.md"), filepath.Join(dir, "missing"), ""} {
		if _, err := ti.AddFolder(bg, p); !errors.Is(err, ErrNotDir) {
			t.Errorf("AddFolder(%q): %v, want ErrNotDir", p, err)
		}
	}
	ti.waitIdle(t)
	if c := ti.counts(); c.Notes != 3 {
		t.Errorf("%d notes, want 3", c.Notes)
	}
	if fs := ti.Folders(); len(fs) != 1 || fs[0].Path != dir || !fs[0].Watching {
		t.Errorf("Folders() = %+v", fs)
	}
}

func TestRemoveFolder(t *testing.T) {
	dir, other := smallFolder(t), smallFolder(t)
	ti := startIndexer(t, testConfig())
	addAndWait(t, ti, dir)
	addAndWait(t, ti, other)
	if err := ti.RemoveFolder(bg, filepath.Join(dir, "sub")); !errors.Is(err, ErrUnknownFolder) {
		t.Errorf("removing an unregistered folder: %v, want ErrUnknownFolder", err)
	}
	if err := ti.RemoveFolder(bg, dir); err != nil {
		t.Fatal(err)
	}
	if c := ti.counts(); c.Notes != 3 {
		t.Errorf("%d notes after removing one of two folders, want 3", c.Notes)
	}
	writeFile(t, filepath.Join(dir, "unwatched.md"), "# Unwatched\n")
	p := filepath.Join(other, "watched.md")
	writeFile(t, p, "# Watched\n")
	waitFor(t, "a note in the remaining folder", func() bool { return ti.note(p) != nil })
	ti.waitIdle(t)
	if ti.note(filepath.Join(dir, "unwatched.md")) != nil {
		t.Error("a removed folder is still watched")
	}
}

func TestForget(t *testing.T) {
	dir := smallFolder(t)
	ti := startIndexer(t, testConfig())
	addAndWait(t, ti, dir)
	alpha := filepath.Join(dir, "alpha.md")
	if err := ti.Forget(bg, alpha); err != nil {
		t.Fatal(err)
	}
	if ti.note(alpha) != nil || ti.skips()[alpha].Reason != ReasonForgotten {
		t.Fatalf("after Forget: note %v, skip %+v", ti.note(alpha), ti.skips()[alpha])
	}
	if n, err := ti.reconcile(bg, dir); err != nil || n != 0 {
		t.Errorf("reconcile queued %d (%v): a forgotten file must stay out", n, err)
	}
	if err := ti.Forget(bg, filepath.Join(dir, "nope.md")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("forget a missing note: %v, want store.ErrNotFound", err)
	}
	if err := ti.Forget(bg, "/elsewhere/x.md"); !errors.Is(err, ErrUnknownFolder) {
		t.Errorf("forget outside the folders: %v, want ErrUnknownFolder", err)
	}

	// A change to the file brings it back.
	time.Sleep(10 * time.Millisecond) // a later mtime than the skip
	writeFile(t, alpha, "# Alpha\n\nChanged after it was forgotten.\n")
	waitFor(t, "the changed note to come back", func() bool { return ti.note(alpha) != nil })
	if _, ok := ti.skips()[alpha]; ok {
		t.Error("forgotten skip kept after the note came back")
	}

	// So does a reindex.
	if err := ti.Forget(bg, alpha); err != nil {
		t.Fatal(err)
	}
	if n, err := ti.Reindex(bg, alpha); err != nil || n != 1 {
		t.Errorf("Reindex(file) = %d, %v; want 1", n, err)
	}
	waitFor(t, "the reindexed note", func() bool { return ti.note(alpha) != nil })
}

func TestReindex(t *testing.T) {
	dir := smallFolder(t)
	ti := startIndexer(t, testConfig())
	addAndWait(t, ti, dir)
	before := map[string][]uint64{}
	for _, p := range []string{"alpha.md", "beta.md", "sub/gamma.txt"} {
		before[p] = ti.note(filepath.Join(dir, p)).Chunks
	}
	n, err := ti.Reindex(bg, "")
	if err != nil || n != 3 {
		t.Fatalf("Reindex(\"\") = %d, %v; want 3", n, err)
	}
	ti.waitIdle(t)
	for p, ids := range before {
		got := ti.note(filepath.Join(dir, p))
		if got == nil || got.Size <= 0 || slices.Equal(got.Chunks, ids) {
			t.Errorf("%s after reindex: %+v; want re-chunked (new chunk ids) with its size back", p, got)
		}
	}
	if n, err := ti.Reindex(bg, filepath.Join(dir, "sub")); err != nil || n != 1 {
		t.Errorf("Reindex(sub) = %d, %v; want 1", n, err)
	}
	alpha := filepath.Join(dir, "alpha.md")
	ti.waitIdle(t)
	ids := ti.note(alpha).Chunks
	if n, err := ti.Reindex(bg, alpha); err != nil || n != 1 {
		t.Errorf("Reindex(alpha.md) = %d, %v; want 1", n, err)
	}
	ti.waitIdle(t)
	if got := ti.note(alpha); got == nil || got.Size <= 0 || slices.Equal(got.Chunks, ids) {
		t.Errorf("alpha.md after its own reindex: %+v; want re-chunked with its size back", got)
	}
	if _, err := ti.Reindex(bg, tempDir(t)); !errors.Is(err, ErrUnknownFolder) {
		t.Errorf("Reindex(elsewhere): %v, want ErrUnknownFolder", err)
	}
	ti.waitIdle(t)
	checkExactlyOnce(t, ti.db, 3)
}

// A file whose times changed but whose content did not has its note's size
// and time updated in place, its chunks kept.
func TestTouchedFileKeepsChunks(t *testing.T) {
	dir := smallFolder(t)
	db := openStore(t, filepath.Join(t.TempDir(), "memd.db"))
	defer db.Close()
	ti := &testIndexer{Indexer: NewIndexer(db, testConfig()), db: db}
	ti.start(t)
	addAndWait(t, ti, dir)
	alpha := filepath.Join(dir, "alpha.md")
	old := ti.note(alpha)
	ti.stop()
	when := old.ModTime.Add(time.Hour).Truncate(time.Second)
	if err := os.Chtimes(alpha, when, when); err != nil {
		t.Fatal(err)
	}
	ti = &testIndexer{Indexer: NewIndexer(db, testConfig()), db: db}
	ti.start(t) // its reconcile finds the new time
	waitFor(t, "the new time", func() bool { return ti.note(alpha).ModTime.Equal(when) })
	ti.waitIdle(t)
	got := ti.note(alpha)
	if got.Size != old.Size || got.Hash != old.Hash || !slices.Equal(got.Chunks, old.Chunks) || !got.IndexedAt.Equal(old.IndexedAt) {
		t.Errorf("touched note %+v\nwant %+v with only its time changed", got, old)
	}
	ti.stop()
	checkExactlyOnce(t, db, 3)
}

// TestIndexVersionChange checks that a store made by another version of
// the analyzer, the parser or the chunker, or before one's version was
// recorded, is re-indexed at start.
func TestIndexVersionChange(t *testing.T) {
	for _, v := range indexVersions {
		for _, stored := range []string{"0", ""} {
			t.Run(fmt.Sprintf("%s=%q", v.key, stored), func(t *testing.T) { testIndexVersionChange(t, v.key, stored) })
		}
	}
}

func testIndexVersionChange(t *testing.T, key, stored string) {
	dir := smallFolder(t)
	path := filepath.Join(t.TempDir(), "memd.db")
	db := openStore(t, path)
	ti := &testIndexer{Indexer: NewIndexer(db, testConfig()), db: db}
	ti.start(t)
	addAndWait(t, ti, dir)
	alpha := filepath.Join(dir, "alpha.md")
	old := ti.note(alpha).Chunks
	ti.stop()
	if err := db.Update(func(tx *store.Tx) error { return tx.SetMeta(key, []byte(stored)) }); err != nil {
		t.Fatal(err)
	}
	ti = &testIndexer{Indexer: NewIndexer(db, testConfig()), db: db}
	ti.start(t)
	ti.waitIdle(t)
	if got := ti.note(alpha).Chunks; slices.Equal(got, old) {
		t.Errorf("chunks %v unchanged after %s went from %q", got, key, stored)
	}
	ti.stop()
	// Recorded now: the next start re-indexes nothing.
	again := ti.note(alpha).Chunks
	ti = &testIndexer{Indexer: NewIndexer(db, testConfig()), db: db}
	ti.start(t)
	ti.waitIdle(t)
	if got := ti.note(alpha).Chunks; !slices.Equal(got, again) {
		t.Errorf("chunks %v changed to %v on a start with nothing changed", again, got)
	}
	ti.stop()
	db.Close()
}
