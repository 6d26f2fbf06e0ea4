package llama

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ebitengine/purego"
)

// AcceptedVersions are the llama.cpp releases this binding was verified
// against (they share one ABI; see shared/LLAMA.md), newest first.
var AcceptedVersions = []string{"v0.5.0", "v0.4.0"}

// Library is a loaded llama.cpp build. There is at most one per process; it
// is never unloaded. Its methods are safe for concurrent use.
type Library struct {
	dir     string
	file    string
	version string
	backend string
	handle  uintptr
	fn      api
	dev     deviceAPI
}

var (
	loadedMu sync.Mutex
	loaded   *Library
)

// libName matches libllama[.<backend>].v<x.y.z>.(so|dylib).
var libName = regexp.MustCompile(`^libllama(?:\.([a-z0-9]+))?\.(v\d+\.\d+\.\d+)\.(so|dylib)$`)

// LibraryFile is a llama library file found in a folder.
type LibraryFile struct {
	Name    string // file name, e.g. "libllama.cuda.v0.5.0.so"
	Version string // "v0.5.0"
	Backend string // "cpu", "cuda", "vulkan", "metal", ...
}

// FindLibrary returns the library file Open would load from dir, without
// loading it: an accepted version (newest first; a GPU build before the CPU
// one of the same version). It fails with ErrNoLibrary when dir has no
// libllama file, and with ErrVersion naming what it found when none is of
// an accepted version.
func FindLibrary(dir string) (LibraryFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return LibraryFile{}, fmt.Errorf("%w in %s: %w: run `memd runtime install` or set MEMD_LLAMA_LIB to the folder holding libllama", ErrNoLibrary, dir, err)
	}
	ext := "so"
	if runtime.GOOS == "darwin" {
		ext = "dylib"
	}
	var found []LibraryFile
	for _, e := range entries {
		m := libName.FindStringSubmatch(e.Name())
		if m == nil || m[3] != ext {
			continue
		}
		backend := m[1]
		if backend == "" {
			backend = "cpu"
		}
		found = append(found, LibraryFile{Name: e.Name(), Version: m[2], Backend: backend})
	}
	if len(found) == 0 {
		return LibraryFile{}, fmt.Errorf("%w in %s (no libllama[.backend].vX.Y.Z.%s): run `memd runtime install` or set MEMD_LLAMA_LIB to the folder holding it", ErrNoLibrary, dir, ext)
	}
	for _, v := range AcceptedVersions {
		var cpu *LibraryFile
		for i, f := range found {
			if f.Version != v {
				continue
			}
			if f.Backend != "cpu" {
				return f, nil
			}
			cpu = &found[i]
		}
		if cpu != nil {
			return *cpu, nil
		}
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = f.Name + " (" + f.Version + ")"
	}
	return LibraryFile{}, fmt.Errorf("%w: %s holds %s; memd accepts llama.cpp %s: run `memd runtime install` to fetch a matching build",
		ErrVersion, dir, strings.Join(names, ", "), strings.Join(AcceptedVersions, " or "))
}

// Open loads the llama.cpp library in dir (see FindLibrary for which file),
// loads its ggml backends from the same folder and initializes llama.cpp.
// Opening the same folder again returns the same Library; opening another
// folder once one is loaded fails with ErrOtherLibrary.
func Open(dir string) (*Library, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("llama: %w", err)
	}
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if loaded != nil {
		if loaded.dir == abs {
			return loaded, nil
		}
		return nil, fmt.Errorf("%w (from %s); cannot also load %s", ErrOtherLibrary, loaded.dir, abs)
	}
	lf, err := FindLibrary(abs)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(abs, lf.Name)
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("llama: load %s: %w", path, err)
	}
	l := &Library{dir: abs, file: lf.Name, version: lf.Version, backend: lf.Backend, handle: h}
	if err := l.fn.bind(h); err != nil {
		return nil, fmt.Errorf("llama: %s: %w", path, err)
	}
	if err := l.dev.bind(h); err != nil {
		return nil, fmt.Errorf("llama: %s: %w", path, err)
	}
	l.installLogger()
	// ggml_backend_load_all() only searches the executable's folder and the
	// working folder; the backends sit beside the library.
	l.fn.backendLoadAllFrom(abs)
	l.fn.backendInit()
	loaded = l
	return l, nil
}

// Version is the llama.cpp release from the library's file name, e.g. "v0.5.0".
func (l *Library) Version() string { return l.version }

// Backend is the build's backend from the file name: "cpu", "cuda",
// "vulkan" or "metal".
func (l *Library) Backend() string { return l.backend }

// Dir is the absolute folder the library was loaded from.
func (l *Library) Dir() string { return l.dir }

// File is the library's file name.
func (l *Library) File() string { return l.file }

func (l *Library) gpu() bool { return !slices.Contains([]string{"", "cpu"}, l.backend) }
