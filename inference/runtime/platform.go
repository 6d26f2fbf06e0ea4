package runtime

import (
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
)

// Package is one pinned npm package of prebuilt llama.cpp libraries.
type Package struct {
	Name     string // npm name, e.g. "@node-llama-cpp/linux-x64-cuda"
	Platform string // the package's folder under bins/, e.g. "linux-x64-cuda"
	Version  string // pinned npm version
	Backend  string // "cpu", "cuda", "vulkan" or "metal"
	GOOS     string
	GOARCH   string
}

// Spec is "name@version", what `npm pack` takes.
func (p Package) Spec() string { return p.Name + "@" + p.Version }

// Packages are the builds memd can install, pinned to versions whose
// llama.cpp release the binding accepts (3.22.1 is v0.5.0; 3.21.1, the
// newest Metal build, is v0.4.0).
var Packages = []Package{
	{"@node-llama-cpp/linux-x64", "linux-x64", "3.22.1", "cpu", "linux", "amd64"},
	{"@node-llama-cpp/linux-x64-cuda", "linux-x64-cuda", "3.22.1", "cuda", "linux", "amd64"},
	{"@node-llama-cpp/linux-x64-vulkan", "linux-x64-vulkan", "3.22.1", "vulkan", "linux", "amd64"},
	{"@node-llama-cpp/mac-arm64-metal", "mac-arm64-metal", "3.21.1", "metal", "darwin", "arm64"},
}

// Backends are the values SelectPackage accepts besides "" and "auto".
var Backends = []string{"cpu", "cuda", "vulkan", "metal"}

// Host describes the machine for package selection.
type Host struct {
	GOOS, GOARCH string
	NVIDIA       bool // an NVIDIA GPU and driver are present
}

// CurrentHost describes this machine.
func CurrentHost() Host {
	return Host{GOOS: goruntime.GOOS, GOARCH: goruntime.GOARCH, NVIDIA: hasNVIDIA()}
}

func hasNVIDIA() bool {
	if _, err := os.Stat("/proc/driver/nvidia/version"); err == nil {
		return true
	}
	_, err := exec.LookPath("nvidia-smi")
	return err == nil
}

// SelectPackage picks the package for backend on host. backend "" or
// "auto" picks CUDA when an NVIDIA GPU is present, Metal on macOS arm64,
// else the CPU build.
func SelectPackage(host Host, backend string) (Package, error) {
	backend = strings.ToLower(backend)
	if backend == "" || backend == "auto" {
		switch {
		case host.GOOS == "darwin" && host.GOARCH == "arm64":
			backend = "metal"
		case host.GOOS == "linux" && host.NVIDIA:
			backend = "cuda"
		default:
			backend = "cpu"
		}
	}
	known := false
	for _, p := range Packages {
		if p.Backend != backend {
			continue
		}
		known = true
		if p.GOOS == host.GOOS && p.GOARCH == host.GOARCH {
			return p, nil
		}
	}
	if !known {
		return Package{}, fmt.Errorf("%w: unknown backend %q (choose one of %s)", ErrNoPackage, backend, strings.Join(Backends, ", "))
	}
	return Package{}, fmt.Errorf("%w: no %s build for %s/%s; set MEMD_LLAMA_LIB to a folder with llama.cpp %s libraries built for this machine",
		ErrNoPackage, backend, host.GOOS, host.GOARCH, "v0.5.0")
}

// hostPackages lists the packages for host, the automatic choice first.
func hostPackages(host Host) []Package {
	var out []Package
	if first, err := SelectPackage(host, "auto"); err == nil {
		out = append(out, first)
	}
	for _, p := range Packages {
		if p.GOOS == host.GOOS && p.GOARCH == host.GOARCH && (len(out) == 0 || p != out[0]) {
			out = append(out, p)
		}
	}
	return out
}
