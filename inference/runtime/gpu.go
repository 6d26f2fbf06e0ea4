package runtime

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GPU is an NVIDIA GPU as its driver reports it.
type GPU struct {
	Name    string // "NVIDIA H200"
	Compute int    // compute capability as major*10+minor: 90 for 9.0
}

// cudaCode is what the prebuilt CUDA package (@node-llama-cpp/linux-x64-cuda
// 3.22.1) carries, read from the fat binaries of its libggml-cuda.so:
// machine code (SASS) for sm_86, sm_89, sm_120 and sm_121, and PTX for
// compute_75, compute_80 and compute_90, made by CUDA 13.1.
var cudaCode = struct {
	Toolkit   [2]int // CUDA version that compiled it
	SASS, PTX []int  // compute capabilities
}{[2]int{13, 1}, []int{86, 89, 120, 121}, []int{75, 80, 90}}

// cudaRuns says whether the prebuilt CUDA package runs on gpu with a driver
// of CUDA version driver (major, minor), and why. Machine code runs on GPUs
// of its major version and a minor one at least as high, with any driver
// of the toolkit's major version; PTX runs on GPUs at least as new, but
// only a driver at least as new as the toolkit compiles it.
func cudaRuns(gpu GPU, driver [2]int) (bool, string) {
	name := fmt.Sprintf("%s (sm_%d)", gpu.Name, gpu.Compute)
	if driver[0] < cudaCode.Toolkit[0] {
		return false, fmt.Sprintf("the driver supports CUDA %d.%d; the prebuilt CUDA build needs CUDA %d", driver[0], driver[1], cudaCode.Toolkit[0])
	}
	for _, sass := range slices.Backward(cudaCode.SASS) {
		if sass/10 == gpu.Compute/10 && sass <= gpu.Compute {
			return true, fmt.Sprintf("%s runs the prebuilt CUDA build's sm_%d code", name, sass)
		}
	}
	for _, ptx := range slices.Backward(cudaCode.PTX) {
		if ptx > gpu.Compute {
			continue
		}
		if cmpVersion(driver, cudaCode.Toolkit) < 0 {
			return false, fmt.Sprintf("the prebuilt CUDA build has no machine code for %s, only compute_%d PTX of CUDA %d.%d, which a CUDA %d.%d driver cannot compile",
				name, ptx, cudaCode.Toolkit[0], cudaCode.Toolkit[1], driver[0], driver[1])
		}
		return true, fmt.Sprintf("%s runs the prebuilt CUDA build's compute_%d PTX, compiled by the driver at first load", name, ptx)
	}
	return false, fmt.Sprintf("the prebuilt CUDA build has no code old enough for %s", name)
}

func cmpVersion(a, b [2]int) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}

// nvidiaGPUs asks nvidia-smi for the GPUs and the CUDA version the driver
// supports; ok is false when it cannot answer.
func nvidiaGPUs() (gpus []GPU, driver [2]int, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := exec.CommandContext(ctx, "nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader").Output()
	if err != nil {
		return nil, driver, false
	}
	header, err := exec.CommandContext(ctx, "nvidia-smi").Output()
	if err != nil {
		return nil, driver, false
	}
	gpus, driver, err = parseNVIDIA(string(list), string(header))
	return gpus, driver, err == nil
}

var cudaVersion = regexp.MustCompile(`CUDA Version:\s*(\d+)\.(\d+)`)

// parseNVIDIA reads nvidia-smi's "name, compute_cap" lines and the CUDA
// version in its table's header.
func parseNVIDIA(list, header string) ([]GPU, [2]int, error) {
	var driver [2]int
	m := cudaVersion.FindStringSubmatch(header)
	if m == nil {
		return nil, driver, fmt.Errorf("nvidia-smi names no CUDA version")
	}
	driver[0], _ = strconv.Atoi(m[1])
	driver[1], _ = strconv.Atoi(m[2])
	var gpus []GPU
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		name, cc, ok := strings.Cut(line, ",")
		major, minor, ok2 := strings.Cut(strings.TrimSpace(cc), ".")
		a, err1 := strconv.Atoi(major)
		b, err2 := strconv.Atoi(minor)
		if !ok || !ok2 || err1 != nil || err2 != nil {
			return nil, driver, fmt.Errorf("nvidia-smi line %q", line)
		}
		gpus = append(gpus, GPU{Name: strings.TrimSpace(name), Compute: a*10 + b})
	}
	return gpus, driver, nil
}

// hasVulkan reports whether the Vulkan loader the Vulkan build links is
// installed.
func hasVulkan() bool {
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu"} {
		if _, err := os.Stat(dir + "/libvulkan.so.1"); err == nil {
			return true
		}
	}
	return false
}
