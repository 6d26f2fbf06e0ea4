package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzSave checks that for any file Load accepts, Save's in-place edits
// give a file that loads as the Config saved.
func FuzzSave(f *testing.F) {
	for _, seed := range []string{
		sample,
		"",
		"# only a comment",
		"threads = 1 # c\n[recall]\nrrf_k = 2\n[tcp]\nlisten = '127.0.0.1:1'\n",
		"recall.rrf_k = 5\n\"generator\" = \"/a # not a comment\"\n",
		"[adapters]\n\"memory-chunk\" = '/c'\n'x' = \"/y\"\n",
		"embedder = \"\"\"\n/e.gguf\"\"\"\nthreads = 2",
		"[ recall ]\n  bm25_weight=1e3\n\n\n[adapters]\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(path, nil)
		if err != nil {
			return
		}
		c.Generator, c.Embedder, c.Threads = "/g.gguf", "", 7
		c.Recall.RRFK++
		if c.Adapters == nil {
			c.Adapters = map[string]string{}
		}
		c.Adapters["added"] = "/added.gguf"
		if err := Save(path, c); err != nil {
			t.Fatalf("Save: %v", err)
		}
		back, err := Load(path, nil)
		if err != nil {
			b, _ := os.ReadFile(path)
			t.Fatalf("Load after Save: %v\nbefore:\n%s\nafter:\n%s", err, text, b)
		}
		if !reflect.DeepEqual(back, c) {
			b, _ := os.ReadFile(path)
			t.Fatalf("Load after Save = %+v, want %+v\nbefore:\n%s\nafter:\n%s", back, c, text, b)
		}
	})
}
