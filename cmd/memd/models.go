package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/inference/llama"
	llamart "github.com/memd-dev/memd/inference/runtime"
	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/memory"
	"github.com/memd-dev/memd/vector"
)

// Model roles as status names them.
const (
	roleGenerator = "generator"
	roleEmbedder  = "embedder"
	roleReranker  = "reranker"
)

// models holds the models memd loaded for its roles. A role that is not
// configured, or whose model failed to load, is nil and its status says
// why; memd serves on its defaults either way.
type models struct {
	cfg       config.Config
	log       *slog.Logger
	lib       *llama.Library
	generator *inference.Generator
	embedder  *inference.Embedder
	reranker  *inference.Reranker
	status    []memd.ModelStatus
}

// loadModels loads each configured role. It never fails: a missing
// runtime or a bad model file becomes that role's Reason.
func loadModels(cfg config.Config, log *slog.Logger) *models {
	m := &models{cfg: cfg, log: log}
	roles := []struct{ role, path string }{
		{roleGenerator, cfg.Generator}, {roleEmbedder, cfg.Embedder}, {roleReranker, cfg.Reranker},
	}
	var libErr error
	for _, r := range roles {
		if r.path != "" && m.lib == nil && libErr == nil {
			m.lib, libErr = openRuntime(cfg)
		}
	}
	for _, r := range roles {
		st := memd.ModelStatus{Role: r.role, Path: r.path}
		switch {
		case r.path == "":
			st.Reason = fmt.Sprintf("no model configured (memctl model set %s PATH)", r.role)
		case libErr != nil:
			st.Reason = libErr.Error()
		default:
			m.load(&st)
		}
		if st.Reason != "" && r.path != "" {
			log.Warn("model not loaded; memd runs without it", "role", r.role, "path", r.path, "reason", st.Reason)
		} else if st.Loaded {
			log.Info("model loaded", "role", r.role, "path", r.path, "backend", st.Backend, "bytes", st.Bytes)
		}
		m.status = append(m.status, st)
	}
	if len(cfg.Adapters) > 0 && m.generator == nil {
		log.Warn("adapters are configured but no generator loaded; they are not used", "adapters", cfg.Adapters)
	}
	return m
}

// openRuntime finds and opens the llama.cpp libraries.
func openRuntime(cfg config.Config) (*llama.Library, error) {
	dir, err := llamart.Find(llamart.Options{LibDir: cfg.LibDir})
	if err != nil {
		return nil, fmt.Errorf("no llama.cpp runtime: %w", err) // err says how to install one
	}
	lib, err := llama.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open llama.cpp in %s: %v", dir, err)
	}
	return lib, nil
}

// load loads one configured role and fills its status.
func (m *models) load(st *memd.ModelStatus) {
	if _, err := os.Stat(st.Path); err != nil {
		st.Reason = fmt.Sprintf("the model file cannot be read (%v)", err)
		return
	}
	var (
		info inference.ModelInfo
		err  error
	)
	switch st.Role {
	case roleGenerator:
		m.generator, err = inference.LoadGenerator(m.lib, inference.GeneratorConfig{Path: st.Path, Adapters: m.cfg.Adapters,
			Slots: m.cfg.Slots, Threads: m.cfg.Threads, GPULayers: m.cfg.GPULayers, Logger: m.log})
		if err == nil {
			info = m.generator.Info()
		}
	case roleEmbedder:
		m.embedder, err = m.loadEmbedder(st.Path)
		if err == nil {
			info = m.embedder.Info()
		}
	case roleReranker:
		m.reranker, err = inference.LoadReranker(m.lib, inference.RerankerConfig{Path: st.Path, Threads: m.cfg.Threads,
			GPULayers: m.cfg.GPULayers, Logger: m.log})
		if err == nil {
			info = m.reranker.Info()
		}
	}
	if err != nil {
		st.Reason = err.Error()
		return
	}
	st.Loaded, st.Fingerprint, st.Backend, st.Device, st.Bytes = true, info.Fingerprint, info.Backend, info.Device, int64(info.SizeBytes)
	st.Build = m.lib.Backend()
}

func (m *models) loadEmbedder(path string) (*inference.Embedder, error) {
	return inference.LoadEmbedder(m.lib, inference.EmbedderConfig{Path: path, Threads: m.cfg.Threads,
		GPULayers: m.cfg.GPULayers, Logger: m.log})
}

// openPreviousEmbedder loads an older embedding model to embed queries
// against its vectors while the configured one re-embeds the notes.
func (m *models) openPreviousEmbedder(path string) (vector.Embedder, error) {
	if m.lib == nil {
		return nil, fmt.Errorf("no llama.cpp runtime")
	}
	e, err := m.loadEmbedder(path)
	if err != nil {
		return nil, err
	}
	m.log.Info("previous embedder loaded for queries while re-embedding", "path", path)
	return e, nil
}

// queryEmbedder is the configured embedder as recall sees it, nil when none
// loaded (an untyped nil, so memory sees no embedder).
func (m *models) queryEmbedder() vector.Embedder {
	if m.embedder == nil {
		return nil
	}
	return m.embedder
}

// recallReranker is the configured reranker as recall sees it, nil when
// none loaded (an untyped nil, so memory sees no reranker).
func (m *models) recallReranker() memory.Reranker {
	if m.reranker == nil {
		return nil
	}
	return rerankAdapter{m.reranker}
}

// rerankAdapter gives memory the float64 scores it reranks by.
type rerankAdapter struct{ r *inference.Reranker }

func (a rerankAdapter) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	s, err := a.r.Score(ctx, query, texts)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out, nil
}

// Close frees the models; callers stop what uses them first.
func (m *models) Close() {
	if m.reranker != nil {
		m.reranker.Close()
	}
	if m.generator != nil {
		m.generator.Close()
	}
	if m.embedder != nil {
		m.embedder.Close()
	}
}
