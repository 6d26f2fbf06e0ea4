package gencorpus

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The benchmarks' figures compare runs of different builds and machines,
// so the corpus must be the same bytes for the same seed.
func TestWriteIsTheSameForTheSameSeed(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, w := range []struct {
		dir  string
		seed uint64
	}{{a, 1}, {b, 1}, {c, 2}} {
		if err := Write(w.dir, 1001, w.seed); err != nil {
			t.Fatal(err)
		}
	}
	ta, tb, tc := tree(t, a), tree(t, b), tree(t, c)
	if len(ta) != 1001 || len(ta[filepath.Join("f002", "note01000.md")]) == 0 {
		t.Fatalf("wrote %d notes, want 1001, 500 a folder", len(ta))
	}
	same := 0
	for name, data := range ta {
		if !bytes.Equal(data, tb[name]) {
			t.Fatalf("%s differs between two runs of seed 1", name)
		}
		if bytes.Equal(data, tc[name]) {
			same++
		}
		if !strings.HasPrefix(string(data), "---\ntitle: ") {
			t.Fatalf("%s does not open with front matter: %.40q", name, data)
		}
	}
	if same > 0 {
		t.Errorf("%d notes are the same under seeds 1 and 2", same)
	}
}

func tree(t *testing.T, dir string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
