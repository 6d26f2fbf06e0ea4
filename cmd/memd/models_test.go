package main

import (
	"context"
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
	if rr.Loaded || !strings.Contains(rr.Reason, "is not a reranker model: its pooling type is mean") || m.recallReranker() != nil {
		t.Errorf("reranker: %+v", rr)
	}
	prev, err := m.openPreviousEmbedder(e.Path)
	if err != nil || prev.Info().Fingerprint != emb.Fingerprint {
		t.Fatalf("previous embedder: %v", err)
	}
	closeIt := prev.(interface{ Close() error })
	closeIt.Close()
}

func TestLoadModelsReranker(t *testing.T) {
	dir := os.Getenv("MEMD_LLAMA_LIB")
	if dir == "" {
		t.Skip("MEMD_LLAMA_LIB is not set")
	}
	r, err := testmodel.WriteReranker(t.TempDir(), testmodel.Config{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	m := loadModels(config.Config{Reranker: r.Path, LibDir: dir, Threads: 1}, slog.New(slog.DiscardHandler))
	defer m.Close()
	rr := m.status[2]
	if !rr.Loaded || rr.Reason != "" || rr.Fingerprint == "" || rr.Backend == "" || rr.Bytes <= 0 {
		t.Fatalf("reranker: %+v", rr)
	}
	scores, err := m.recallReranker().Rerank(context.Background(), "water the garden", []string{"garden water", "ships at sea"})
	if err != nil || len(scores) != 2 || scores[0] == scores[1] {
		t.Fatalf("rerank: %v %v", scores, err)
	}
}
