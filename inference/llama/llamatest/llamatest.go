package llamatest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/runtime"
)

// Library opens the llama.cpp library memd itself would load (see
// runtime.Find: MEMD_LLAMA_LIB, else an installed package), skipping the
// test when there is none and failing it when the library does not open.
// llama.Open returns the same Library for the same folder, so every test
// may call this.
func Library(t testing.TB) *llama.Library {
	t.Helper()
	dir, err := runtime.Find(runtime.Options{})
	if err != nil {
		t.Skipf("no llama.cpp library (%v): run `memd runtime install` or set MEMD_LLAMA_LIB", err)
	}
	lib, err := llama.Open(dir)
	if err != nil {
		t.Fatalf("open llama.cpp library in %s: %v", dir, err)
	}
	return lib
}

// EnvSource names the folder holding a clone of the llama.cpp source.
const EnvSource = "MEMD_LLAMA_SRC"

var fetched struct {
	once sync.Once
	dir  string
	err  error
}

// Source returns the folder of the llama.cpp source of memd's pinned
// release: $MEMD_LLAMA_SRC, else <user cache>/memd/test-llama/llama.cpp,
// fetched there with scripts/fetch-llama.sh -src when missing. It skips the
// test only when the source is missing and npm is not installed.
func Source(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv(EnvSource); dir != "" {
		return dir
	}
	fetched.once.Do(func() { fetched.dir, fetched.err = fetchSource() })
	if fetched.err == errNoNPM {
		t.Skip("the llama.cpp source is not fetched and npm is not installed: install npm or set " + EnvSource)
	}
	if fetched.err != nil {
		t.Fatalf("fetch the llama.cpp source: %v", fetched.err)
	}
	return fetched.dir
}

var errNoNPM = exec.ErrNotFound

func fetchSource() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	root := filepath.Join(cache, "memd", "test-llama")
	dir := filepath.Join(root, "llama.cpp")
	if _, err := os.Stat(filepath.Join(dir, ".done")); err == nil {
		return dir, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errNoNPM
	}
	script, err := repoFile("scripts/fetch-llama.sh")
	if err != nil {
		return "", err
	}
	if out, err := exec.Command(script, "-src", root).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s -src %s: %w\n%s", script, root, err, out)
	}
	return dir, nil
}

// stories260KSum is the sha256 of ../shared/models/stories260K.gguf, a real
// trained model (Karpathy's TinyStories, 260K parameters, llama2.c).
const stories260KSum = "270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d"

// StoriesContinuation is the start of stories260K's greedy continuation of
// StoriesPrompt as llama2.c's own C implementation (which shares no code
// with llama.cpp) computed it, from llama2.c's doc/stories260K.md.
const (
	StoriesPrompt       = "Once upon a time"
	StoriesContinuation = ", there was a little girl named Lily. She loved to play outside in the park." +
		" One day, she saw a big, red ball. She wanted to play with it, but it was too high.\nLily's mom said,"
)

// Stories260K returns the path of stories260K.gguf in the shared folder
// beside the repository (../shared/models), skipping the test when it is
// not there and failing it when the file is not the documented one.
func Stories260K(t testing.TB) string {
	t.Helper()
	path, err := repoFile("../shared/models/stories260K.gguf")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("stories260K.gguf is not in ../shared/models beside the repository: %v", err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != stories260KSum {
		t.Fatalf("%s is not the documented stories260K.gguf (sha256 %x)", path, sum)
	}
	return path
}

// repoFile finds a file of the repository from a test's working folder
// (its package's folder), by walking up to go.mod.
func repoFile(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, name), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
