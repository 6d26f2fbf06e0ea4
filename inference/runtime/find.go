package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memd-dev/memd/inference/llama"
)

// EnvLibDir names the environment variable that points at a library folder.
const EnvLibDir = "MEMD_LLAMA_LIB"

// Options says where to look for and install libraries. The zero value
// uses $MEMD_LLAMA_LIB, the user's cache folder and this machine.
type Options struct {
	LibDir   string // --lib-dir: used as is, before everything else
	CacheDir string // root of installed packages; "" = <user cache>/memd/llama
	Backend  string // "", "auto", "cpu", "cuda", "vulkan" or "metal"
	Host     *Host  // nil = CurrentHost()
}

func (o Options) host() Host {
	if o.Host != nil {
		return *o.Host
	}
	return CurrentHost()
}

// CacheRoot is where packages are installed: <CacheDir> or
// $XDG_CACHE_HOME/memd/llama (~/.cache/memd/llama; ~/Library/Caches on macOS).
func (o Options) CacheRoot() (string, error) {
	if o.CacheDir != "" {
		return o.CacheDir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache folder: %w", err)
	}
	return filepath.Join(base, "memd", "llama"), nil
}

// PackageDir is the folder a package is installed into:
// <cache root>/<npm name without scope>@<version>.
func (o Options) PackageDir(p Package) (string, error) {
	root, err := o.CacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, p.Platform+"@"+p.Version), nil
}

// Find returns the folder holding the llama.cpp libraries to load: LibDir,
// else $MEMD_LLAMA_LIB, else an installed package in the cache (the one
// Backend selects, or with Backend "" the automatic choice first, then any
// other installed for this machine). A named folder must hold an accepted
// library; errors say what was wrong and what to do.
func Find(o Options) (string, error) {
	for _, named := range []struct{ dir, what string }{{o.LibDir, "--lib-dir"}, {os.Getenv(EnvLibDir), EnvLibDir}} {
		if named.dir == "" {
			continue
		}
		if _, err := llama.FindLibrary(named.dir); err != nil {
			return "", fmt.Errorf("%s %s: %w", named.what, named.dir, err)
		}
		return filepath.Abs(named.dir)
	}
	host := o.host()
	candidates := hostPackages(host)
	if o.Backend != "" && o.Backend != "auto" {
		p, err := SelectPackage(host, o.Backend)
		if err != nil {
			return "", err
		}
		candidates = []Package{p}
	}
	var tried []string
	for _, p := range candidates {
		dir, err := o.PackageDir(p)
		if err != nil {
			return "", err
		}
		tried = append(tried, dir)
		_, err = llama.FindLibrary(dir)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, llama.ErrNoLibrary) {
			return "", fmt.Errorf("installed package %s: %w", dir, err)
		}
	}
	return "", fmt.Errorf("%w (looked in %v): run `memd runtime install`, or set %s (or --lib-dir) to a folder holding libllama.v0.5.0", ErrNotFound, tried, EnvLibDir)
}
