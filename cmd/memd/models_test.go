package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/internal/config"
)

func TestLoadModelsFallsBack(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	m := loadModels(config.Config{}, log)
	if len(m.status) != 3 || m.lib != nil {
		t.Fatalf("nothing configured: %+v", m.status)
	}
	for _, st := range m.status {
		if st.Loaded || !strings.Contains(st.Reason, "no model configured") {
			t.Errorf("%+v", st)
		}
	}

	t.Setenv("MEMD_LLAMA_LIB", "")
	m = loadModels(config.Config{Embedder: "/m/e.gguf", LibDir: t.TempDir()}, log)
	if st := m.status[1]; st.Loaded || !strings.Contains(st.Reason, "no llama.cpp runtime") {
		t.Errorf("no runtime: %+v", st)
	}
}

func TestLoadModelsLlama(t *testing.T) {
	dir := os.Getenv("MEMD_LLAMA_LIB")
	if dir == "" {
		t.Skip("MEMD_LLAMA_LIB is not set")
	}
	models := t.TempDir()
	e, err := testmodel.WriteEmbedder(models, testmodel.Config{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(models, "bad.gguf")
	os.WriteFile(bad, []byte("GGUF but not really"), 0o600)
	m := loadModels(config.Config{Embedder: e.Path, Generator: bad, Reranker: e.Path, LibDir: dir, Threads: 1}, slog.New(slog.DiscardHandler))
	defer m.Close()
	gen, emb, rr := m.status[0], m.status[1], m.status[2]
	if gen.Loaded || gen.Reason == "" || m.generator != nil {
		t.Errorf("bad generator: %+v", gen)
	}
	if !emb.Loaded || emb.Fingerprint == "" || emb.Backend == "" || emb.Bytes <= 0 || m.queryEmbedder() == nil {
		t.Errorf("embedder: %+v", emb)
	}
	if rr.Loaded || rr.Reason != noRerankAPI {
		t.Errorf("reranker: %+v", rr)
	}
	prev, err := m.openPreviousEmbedder(e.Path)
	if err != nil || prev.Info().Fingerprint != emb.Fingerprint {
		t.Fatalf("previous embedder: %v", err)
	}
	closeIt := prev.(interface{ Close() error })
	closeIt.Close()
}
