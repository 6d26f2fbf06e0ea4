package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	"github.com/memd-dev/memd/internal/config"
)

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	os.WriteFile(file, []byte("embedder = 'e.gguf'\ngenerator = '/m/g.gguf'\n\n[recall]\nrrf_k = 30\n"), 0o600)
	t.Setenv("MEMD_CONFIG", file)
	t.Setenv("MEMD_DATA", "/env/data")
	t.Setenv("MEMD_SOCKET", "")
	t.Setenv("MEMD_GENERATOR", "/env/g.gguf")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	fs := pflag.NewFlagSet("memd", pflag.ContinueOnError)
	config.RegisterFlags(fs)
	if err := fs.Parse([]string{"--log-level", "debug", "--adapter", "memory-chunk=/m/chunk.gguf", "--recall-bm25-weight", "2"}); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(fs)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case c.Data != "/env/data", c.Socket != filepath.Join("/run/user/7", "memd", "memd.sock"):
		t.Errorf("folders %q %q", c.Data, c.Socket)
	case c.Embedder != filepath.Join(dir, "e.gguf"), c.Generator != "/env/g.gguf":
		t.Errorf("models %q %q", c.Embedder, c.Generator)
	case c.Adapters["memory-chunk"] != "/m/chunk.gguf", c.LogLevel != "debug":
		t.Errorf("flags %+v", c)
	case c.Recall.RRFK != 30 || c.Recall.BM25Weight != 2:
		t.Errorf("recall %+v", c.Recall)
	}

	fs = pflag.NewFlagSet("memd", pflag.ContinueOnError)
	config.RegisterFlags(fs)
	if err := fs.Parse([]string{"--log-level", "loud"}); err == nil {
		t.Fatal("log level loud accepted")
	}
}
