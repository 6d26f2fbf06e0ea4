package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memd-dev/memd/inference/testmodel"
)

// TestModelPull downloads from a fake hub as memctl model pull has memd
// do it: the file lands in the models folder, the path goes to stdout and
// the memctl model set line that uses it to stderr.
func TestModelPull(t *testing.T) {
	dir := t.TempDir()
	src, err := testmodel.WriteEmbedder(dir, testmodel.Config{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := os.ReadFile(src.Path)
	sum := sha256.Sum256(body)
	commit := strings.Repeat("a", 40)
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The download asks for the commit HEAD named, as the hub's CDN does.
		if r.URL.Path != "/org/embed-GGUF/resolve/main/embed.gguf" && r.URL.Path != "/org/embed-GGUF/resolve/"+commit+"/embed.gguf" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Repo-Commit", commit)
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(body)))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	}))
	defer hub.Close()
	t.Setenv("HF_ENDPOINT", hub.URL)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("MEMD_CONFIG", filepath.Join(dir, "config.toml"))
	models := filepath.Join(dir, "models")
	var out, errOut strings.Builder
	root := newRoot()
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs([]string{"model", "pull", "--models", models, "--", "org/embed-GGUF", "embed.gguf"})
	err = root.ExecuteContext(context.Background())
	if err != nil {
		t.Fatalf("%v %s", err, errOut.String())
	}
	want := filepath.Join(models, "org__embed-GGUF", "embed.gguf")
	if strings.TrimSpace(out.String()) != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
	if got, _ := os.ReadFile(want); string(got) != string(body) {
		t.Fatal("the pulled file differs")
	}
	if !strings.Contains(errOut.String(), fmt.Sprintf("memctl model set embedder %s", want)) {
		t.Errorf("hint %q", errOut.String())
	}
}
