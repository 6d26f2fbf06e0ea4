package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd/inference/gguf"
	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/internal/config"
)

func TestModelImportAdapter(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	t.Setenv("MEMD_CONFIG", file)
	base := testmodel.Config{Name: "base", Seed: 7, Embd: 64, Layers: 2, Heads: 4, HeadsKV: 2}
	basePath, err := testmodel.WriteLlama(dir, base)
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "memory-chunk-mlx")
	if err := testmodel.NewHFLoRA(base, 4, 8, 1).SaveMLX(saved); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "none.sock")
	out, _, err := run(t, sock, "model", "import-adapter", saved, "--base", basePath, "--name", "memory-chunk")
	if err != nil {
		t.Fatal(err)
	}
	want := saved + ".gguf"
	if !strings.Contains(out, want) || !strings.Contains(out, "mlx-lm adapter, 14 matrices, rank 4") {
		t.Fatalf("printed %q", out)
	}
	info, err := gguf.Check(want)
	if err != nil || info.Architecture != "llama" {
		t.Fatalf("written adapter: %+v %v", info, err)
	}
	if cfg, err := config.Load(file, nil); err != nil || cfg.Adapters["memory-chunk"] != want {
		t.Fatalf("config %+v %v", cfg, err)
	}

	other, err := testmodel.WriteLlama(dir, testmodel.Config{Name: "other", Embd: 128, Heads: 4})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(want)
	if _, _, err := run(t, sock, "model", "import-adapter", saved, "--base", other); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("an adapter for another model: %v", err)
	}
	if _, err := os.Stat(want); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused adapter was written")
	}
}
