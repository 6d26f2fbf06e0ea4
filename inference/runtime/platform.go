package runtime

import (
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
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
	NVIDIA       bool   // an NVIDIA GPU and driver are present
	GPUs         []GPU  // the NVIDIA GPUs; nil when nvidia-smi did not say
	DriverCUDA   [2]int // the CUDA version the NVIDIA driver supports
	Vulkan       bool   // the Vulkan loader is installed
	NVCC         bool   // the CUDA compiler is on PATH
}

// CurrentHost describes this machine. It is found once per process:
// asking nvidia-smi takes two runs of it (the GPUs, then the driver's CUDA
// version), and every Find asked again.
func CurrentHost() Host {
	h := currentHost()
	h.GPUs = slices.Clone(h.GPUs)
	return h
}

var currentHost = sync.OnceValue(detectHost)

func detectHost() Host {
	h := Host{GOOS: goruntime.GOOS, GOARCH: goruntime.GOARCH, NVIDIA: hasNVIDIA(), Vulkan: hasVulkan()}
	if h.NVIDIA {
		h.GPUs, h.DriverCUDA, _ = nvidiaGPUs()
		_, err := exec.LookPath("nvcc")
		h.NVCC = err == nil
	}
	return h
}

func hasNVIDIA() bool {
	if _, err := os.Stat("/proc/driver/nvidia/version"); err == nil {
		return true
	}
	_, err := exec.LookPath("nvidia-smi")
	return err == nil
}

// Choice is a package for a host and why it was picked.
type Choice struct {
	Package Package
	Why     string
}

// Choose picks the package for backend on host ("" or "auto": the best
// that runs here) and says why. On an NVIDIA machine the automatic choice
// is the CUDA build when every GPU runs the code it carries with this
// driver (see cudaRuns); otherwise the Vulkan build (or the CPU one without
// a Vulkan loader), with how to get CUDA after all. A backend named
// explicitly is chosen as asked; Why then warns when it will not run.
func Choose(host Host, backend string) (Choice, error) {
	backend = strings.ToLower(backend)
	auto := backend == "" || backend == "auto"
	why := ""
	switch {
	case !auto:
		if backend == "cuda" && host.GPUs != nil {
			if ok, reason := cudaRunsAll(host); !ok {
				why = "warning: " + reason + "; it will fall back to the CPU"
			}
		}
	case host.GOOS == "darwin" && host.GOARCH == "arm64":
		backend, why = "metal", "Apple silicon: the Metal build"
	case host.GOOS == "linux" && host.NVIDIA:
		backend, why = chooseNVIDIA(host)
	default:
		backend, why = "cpu", "no NVIDIA GPU found: the CPU build"
	}
	p, err := packageFor(host, backend)
	return Choice{Package: p, Why: why}, err
}

func cudaRunsAll(host Host) (bool, string) {
	var reasons []string
	for _, g := range host.GPUs {
		ok, reason := cudaRuns(g, host.DriverCUDA)
		if !ok {
			return false, reason
		}
		reasons = append(reasons, reason)
	}
	return true, strings.Join(reasons, "; ")
}

func chooseNVIDIA(host Host) (backend, why string) {
	if host.GPUs == nil {
		return "cuda", "an NVIDIA driver is present but nvidia-smi did not describe the GPUs: the CUDA build, unchecked"
	}
	ok, reason := cudaRunsAll(host)
	if ok {
		return "cuda", reason
	}
	backend = "cpu"
	if host.Vulkan {
		backend = "vulkan"
	}
	advice := "for CUDA, install the CUDA toolkit and run scripts/build-llama.sh cuda, or update the driver to CUDA " +
		fmt.Sprintf("%d.%d", cudaCode.Toolkit[0], cudaCode.Toolkit[1]) + " or later"
	if host.NVCC {
		advice = "nvcc is installed: scripts/build-llama.sh cuda compiles the same release for this GPU, and memd then finds it"
	}
	return backend, fmt.Sprintf("%s; installing the %s build instead (%s)", reason, backend, advice)
}

// SelectPackage is Choose without the reason.
func SelectPackage(host Host, backend string) (Package, error) {
	c, err := Choose(host, backend)
	return c.Package, err
}

func packageFor(host Host, backend string) (Package, error) {
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
