package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSaveEditsInPlace(t *testing.T) {
	const before = `# my memd, hand-written
generator = "/models/gemma.gguf"  # the 1b one
embedder = '/models/embed.gguf'
threads = 2

# adapters by name
[adapters]
memory-chunk = "/models/chunk.gguf"

[recall]
# fusion
rrf_k = 30
`
	const after = `# my memd, hand-written
generator = '/models/gemma-4.gguf'  # the 1b one
threads = 2
reranker = '/models/rerank.gguf'

# adapters by name
[adapters]
memory-chunk = '/models/chunk-v2.gguf'
summary = "/models/it's.gguf"

[recall]
# fusion
rrf_k = 30
vector_weight = 0.5

[tcp]
listen = '127.0.0.1:7077'
`
	cases := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"nothing changed", func(*Config) {}, before},
		{"set, unset, add", func(c *Config) {
			c.Generator = "/models/gemma-4.gguf"
			c.Embedder = ""
			c.Reranker = "/models/rerank.gguf"
			c.Adapters["memory-chunk"] = "/models/chunk-v2.gguf"
			c.Adapters["summary"] = "/models/it's.gguf"
			c.Recall.VectorWeight = 0.5
			c.TCP.Listen = "127.0.0.1:7077"
		}, after},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, before)
			c, err := Load(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(&c)
			if err := Save(path, c); err != nil {
				t.Fatal(err)
			}
			got := string(readBytes(t, path))
			if got != tc.want {
				t.Errorf("file after Save:\n%s\nwant:\n%s", got, tc.want)
			}
			back, err := Load(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, c) {
				t.Errorf("Load after Save = %+v, want %+v", back, c)
			}
		})
	}
}

func TestSaveRoundTrips(t *testing.T) {
	full := Config{
		Data: "/d", Socket: "/s/memd.sock", LibDir: "/lib", Models: "/m",
		Generator: "/m/g.gguf", Embedder: "/m/e.gguf", Reranker: "/m/r.gguf",
		Adapters:     map[string]string{"memory-chunk": "/m/c.gguf", "chunk_v2": "/m/\"q\" \\ 'x'\t ü.gguf"},
		MaxFileBytes: 1 << 22, Threads: 3, GPULayers: -1, Slots: 8, LogLevel: "debug",
		Recall: Recall{RRFK: 60, BM25Weight: 1, VectorWeight: 2.5, Expand: true},
		TCP:    TCP{Listen: "[::1]:7077", TokenFile: "/tok"},
	}
	cases := []struct {
		name  string
		file  string // "" for no file yet
		lossy bool   // Save writes a clean file: comments go
	}{
		{name: "new file"},
		{name: "dotted keys at the top level", file: "# keep me\nrecall.rrf_k = 5\ntcp.listen = '127.0.0.1:1'\n"},
		{name: "keys and tables", file: "# keep me\nthreads = 1\n\n[recall] # fusion\nrrf_k = 5\n"},
		{name: "inline table falls back", file: "# lost\nrecall = { rrf_k = 5 }\n", lossy: true},
		{name: "multi-line string falls back", file: "# lost\ngenerator = '''\n/x.gguf'''\n", lossy: true},
		{name: "no newline at the end", file: "threads = 1"},
		{name: "only a table", file: "[tcp]\nlisten = '127.0.0.1:9'\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "config.toml")
			if tc.file != "" {
				os.MkdirAll(filepath.Dir(path), 0o700)
				if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := Save(path, full); err != nil {
				t.Fatal(err)
			}
			back, err := Load(path, nil)
			if err != nil {
				t.Fatalf("Load after Save: %v\n%s", err, readBytes(t, path))
			}
			if !reflect.DeepEqual(back, full) {
				t.Errorf("Load after Save = %+v\nwant %+v\nfile:\n%s", back, full, readBytes(t, path))
			}
			text := string(readBytes(t, path))
			if kept := strings.Contains(text, "# keep me") || strings.Contains(text, "# lost"); strings.Contains(tc.file, "#") && kept == tc.lossy {
				t.Errorf("the old file's comment kept: %v, want %v:\n%s", kept, !tc.lossy, text)
			}
			if st, _ := os.Stat(path); tc.file != "" && st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the old file's 0600", st.Mode().Perm())
			}
			// Unsetting everything leaves a file that loads as the zero Config.
			if err := Save(path, Config{}); err != nil {
				t.Fatal(err)
			}
			if back, err := Load(path, nil); err != nil || !reflect.DeepEqual(back, Config{}) {
				t.Errorf("after unsetting all: %+v, %v\n%s", back, err, readBytes(t, path))
			}
		})
	}
}

func TestSaveRefusesBrokenFile(t *testing.T) {
	const broken = "threads = \"two\"\n"
	path := writeConfig(t, broken)
	err := Save(path, Config{Generator: "/g.gguf"})
	if err == nil || !strings.Contains(err.Error(), "left the file as it was") {
		t.Fatalf("Save over a broken file: %v", err)
	}
	if got := string(readBytes(t, path)); got != broken {
		t.Errorf("broken file changed to %q", got)
	}
}

func TestSaveFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "memd.toml")
	os.MkdirAll(filepath.Dir(target), 0o700)
	if err := os.WriteFile(target, []byte("threads = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := Save(link, Config{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if got := string(readBytes(t, target)); got != "threads = 2\n" {
		t.Errorf("target %q", got)
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
