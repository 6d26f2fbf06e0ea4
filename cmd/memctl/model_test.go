package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/server/servertest"
)

func TestModelSetUnset(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	os.WriteFile(file, []byte("# mine\nthreads = 2\n"), 0o600)
	t.Setenv("MEMD_CONFIG", file)
	model, err := testmodel.WriteEmbedder(dir, testmodel.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "none.sock")
	for _, args := range [][]string{
		{"model", "set", "embedder", model.Path},
		{"model", "set", "adapter:memory-chunk", model.Path},
	} {
		if _, errOut, err := run(t, sock, args...); err != nil || !strings.Contains(errOut, "memd reads it when it starts") {
			t.Fatalf("%v: %v %q", args, err, errOut)
		}
	}
	cfg, err := config.Load(file, nil)
	if err != nil || cfg.Embedder != model.Path || cfg.Adapters["memory-chunk"] != model.Path || cfg.Threads != 2 {
		t.Fatalf("config %+v %v", cfg, err)
	}
	if b, _ := os.ReadFile(file); !strings.HasPrefix(string(b), "# mine\n") {
		t.Errorf("comment lost:\n%s", b)
	}
	if _, _, err := run(t, sock, "model", "unset", "embedder"); err != nil {
		t.Fatal(err)
	}
	if cfg, _ = config.Load(file, nil); cfg.Embedder != "" || cfg.Adapters["memory-chunk"] == "" {
		t.Fatalf("after unset %+v", cfg)
	}
	if _, _, err := run(t, sock, "model", "set", "embeder", model.Path); err == nil || !strings.Contains(err.Error(), "unknown role") {
		t.Errorf("a misspelt role: %v", err)
	}
	notModel := filepath.Join(dir, "notes.txt")
	os.WriteFile(notModel, []byte("hello"), 0o600)
	if _, _, err := run(t, sock, "model", "set", "generator", notModel); err == nil {
		t.Error("a file that is not GGUF was accepted")
	}
}

// TestModelSetByName: a model Ollama pulled or the Hugging Face cache
// holds is set by its name, at the file where the tool keeps it.
func TestModelSetByName(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	t.Setenv("MEMD_CONFIG", file)
	gen, err := testmodel.WriteLlama(dir, testmodel.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(gen)
	ol := filepath.Join(dir, "ollama")
	t.Setenv("OLLAMA_MODELS", ol)
	blob := filepath.Join(ol, "blobs", "sha256-0123")
	manifest := filepath.Join(ol, "manifests", "registry.ollama.ai", "library", "tiny", "1b")
	for path, data := range map[string][]byte{blob: raw,
		manifest: []byte(`{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:0123"}]}`)} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, data, 0o644)
	}
	t.Setenv("HF_HUB_CACHE", filepath.Join(dir, "hf"))
	sock := filepath.Join(dir, "none.sock")
	if _, errOut, err := run(t, sock, "model", "set", "generator", "tiny:1b"); err != nil || !strings.Contains(errOut, "ollama") {
		t.Fatalf("set by an Ollama name: %v %q", err, errOut)
	}
	if cfg, err := config.Load(file, nil); err != nil || cfg.Generator != blob {
		t.Fatalf("config %+v %v; want the blob %s", cfg, err, blob)
	}
	if _, _, err := run(t, sock, "model", "set", "generator", "tiny:2b"); err == nil || !strings.Contains(err.Error(), "neither a file nor a model") {
		t.Fatalf("an unknown name: %v", err)
	}
}

func TestModelList(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	os.MkdirAll(filepath.Join(models, "org__repo"), 0o700)
	os.WriteFile(filepath.Join(models, "org__repo", "m.gguf"), make([]byte, 2048), 0o600)
	t.Setenv("MEMD_CONFIG", filepath.Join(dir, "config.toml"))
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("generator = '/m/g.gguf'\n"), 0o600)

	out, _, err := run(t, filepath.Join(dir, "none.sock"), "--json", "model", "list", "--models", models)
	if err != nil {
		t.Fatal(err)
	}
	var l modelListJSON
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if l.Running || len(l.Roles) != 3 || l.Roles[0].Path != "/m/g.gguf" || len(l.Files) != 1 || l.Files[0].Bytes != 2048 {
		t.Fatalf("offline list %+v", l)
	}

	svc := &modelsService{Service: apitest.New(), status: memd.Status{PID: 42, Models: []memd.ModelStatus{
		{Role: "embedder", Path: "/m/e.gguf", Loaded: true, Fingerprint: "0123456789abcdef0123", Backend: "cpu", Bytes: 300 << 20},
		{Role: "generator", Reason: "no model configured"},
	}}}
	out, _, err = run(t, servertest.Socket(t, svc), "model", "list", "--models", models)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"embedder", "/m/e.gguf", "0123456789abcdef ", "cpu", "300.0 MiB", "loaded", "off: no model configured", "m.gguf"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
}

// modelsService is the fake service with a status that lists models.
type modelsService struct {
	*apitest.Service
	status memd.Status
}

func (s *modelsService) Status(context.Context) (memd.Status, error) { return s.status, nil }
