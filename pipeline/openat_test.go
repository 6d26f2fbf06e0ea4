package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd/store"
	"golang.org/x/sys/unix"
)

// TestSubfolderSwappedForLink queues a note, then replaces its subfolder
// with a symlink to a folder outside whose file has the same name: the
// outside file must not be indexed (issue 14, defect 2).
func TestSubfolderSwappedForLink(t *testing.T) {
	dir, outside := tempDir(t), tempDir(t)
	inner := filepath.Join(dir, "sub", "note.md")
	writeFile(t, inner, "# Inner\n\nthe folder's own note.\n")
	writeFile(t, filepath.Join(outside, "note.md"), "# Secret\n\nzanzibarian text from outside the folder.\n")

	ti := newIndexer(t, testConfig())
	if _, err := ti.AddFolder(bg, dir); err != nil { // queues sub/note.md
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	ti.start(t)
	ti.waitIdle(t)

	if n := ti.note(inner); n != nil {
		t.Errorf("the file behind the link was indexed as %s", inner)
	}
	_ = ti.db.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error {
			if strings.Contains(c.Text, "zanzibarian") {
				t.Errorf("a chunk holds the outside file's text: %q", c.Text)
			}
			return nil
		})
	})
}

func TestOpenInFolder(t *testing.T) {
	dir, outside := tempDir(t), tempDir(t)
	writeFile(t, filepath.Join(dir, "a", "b", "note.md"), "inside")
	writeFile(t, filepath.Join(outside, "x.md"), "outside")
	if err := os.Symlink(outside, filepath.Join(dir, "a", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a", "b"), filepath.Join(dir, "a", "inner")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a", "b", "note.md"), filepath.Join(dir, "a", "link.md")); err != nil {
		t.Fatal(err)
	}
	// Each case alone, then all through one dirOpener, which keeps the
	// directory of the case before: what it keeps must not change an answer.
	var kept dirOpener
	defer kept.close()
	open := map[string]func(root, path string) (int, error){
		"alone": func(root, path string) (int, error) {
			var o dirOpener
			defer o.close()
			return o.open(root, path)
		},
		"kept": kept.open,
	}
	cases := []struct {
		path string
		want error // nil: opens
	}{
		{"a/b/note.md", nil},
		{"a/out/x.md", errLinkInPath},
		{"a/inner/note.md", errLinkInPath}, // a link that stays inside is not followed either
		{"a/link.md", errLinkInPath},
		{"a/b/missing.md", fs.ErrNotExist},
		{"missing/note.md", fs.ErrNotExist},
		{"a/b/note.md/x", errLinkInPath}, // a file where a directory was
		{"a/b/note.md", nil},
	}
	for _, how := range []string{"alone", "kept"} {
		for _, c := range cases {
			fd, err := open[how](dir, filepath.Join(dir, c.path))
			if err == nil {
				unix.Close(fd)
			}
			if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("%s: open(%s) = %v, want %v", how, c.path, err, c.want)
			}
		}
	}
	if _, err := open["alone"](dir, filepath.Join(outside, "x.md")); !errors.Is(err, errLinkInPath) {
		t.Errorf("a path outside the folder: %v", err)
	}
	if _, err := open["alone"](filepath.Join(dir, "a", "out"), filepath.Join(dir, "a", "out", "x.md")); !errors.Is(err, errFolderUnreachable) {
		t.Errorf("a folder root that is a link: %v", err)
	}
}

// TestReadNoteSizes: a note reads whole whether its file is the size its
// stat gave, grew after it, or shrank after it, and a file past the limit
// fails with errTooBig, stat or no stat.
func TestReadNoteSizes(t *testing.T) {
	dir := tempDir(t)
	content := strings.Repeat("0123456789", 100)
	path := filepath.Join(dir, "n.md")
	writeFile(t, path, content)
	cases := []struct {
		name     string
		statSize int64
		max      int64
		wantErr  error
	}{
		{"as stated", 1000, 4096, nil},
		{"grew since the stat", 500, 4096, nil},
		{"grew by a byte", 999, 4096, nil},
		{"shrank since the stat", 1500, 4096, nil},
		{"empty stat", 0, 4096, nil},
		{"at the limit", 1000, 1000, nil},
		{"over the limit", 1000, 999, errTooBig},
		{"over the limit, grown since the stat", 500, 999, errTooBig},
	}
	for _, c := range cases {
		fd, err := unix.Open(path, unix.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := noteFD{fd: fd, path: path, stat: fileStat{size: c.statSize}}
		got, err := f.read(c.max)
		f.close()
		switch {
		case c.wantErr != nil:
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%s: err %v, want %v", c.name, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case string(got) != content:
			t.Errorf("%s: read %d bytes, want %d", c.name, len(got), len(content))
		}
	}
}
