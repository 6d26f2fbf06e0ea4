package runtime

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseNVIDIA(t *testing.T) {
	header := "| NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0     |\n"
	gpus, driver, err := parseNVIDIA("NVIDIA H200, 9.0\nNVIDIA GeForce RTX 4090, 8.9\n", header)
	if err != nil || driver != [2]int{13, 0} || len(gpus) != 2 || gpus[0] != (GPU{"NVIDIA H200", 90}) || gpus[1].Compute != 89 {
		t.Fatalf("%+v %v %v", gpus, driver, err)
	}
	if _, _, err := parseNVIDIA("NVIDIA H200, 9.0", "no version here"); err == nil {
		t.Error("a header without a CUDA version was read")
	}
}

// TestChooseForGPU: the automatic choice installs the CUDA build only where
// the code it carries runs, and says why, and what else to do.
func TestChooseForGPU(t *testing.T) {
	h200 := GPU{"NVIDIA H200", 90}
	for _, tc := range []struct {
		name    string
		host    Host
		backend string
		says    []string
	}{
		{"H200 on a CUDA 13.0 driver: PTX too new, Vulkan", Host{GPUs: []GPU{h200}, DriverCUDA: [2]int{13, 0}, Vulkan: true},
			"vulkan", []string{"sm_90", "compute_90 PTX of CUDA 13.1", "scripts/build-llama.sh cuda"}},
		{"same without Vulkan, with nvcc: CPU, compile", Host{GPUs: []GPU{h200}, DriverCUDA: [2]int{13, 0}, NVCC: true},
			"cpu", []string{"nvcc is installed"}},
		{"H200 on a CUDA 13.2 driver: its PTX", Host{GPUs: []GPU{h200}, DriverCUDA: [2]int{13, 2}},
			"cuda", []string{"compute_90 PTX, compiled by the driver"}},
		{"RTX 4090: machine code", Host{GPUs: []GPU{{"RTX 4090", 89}}, DriverCUDA: [2]int{13, 0}},
			"cuda", []string{"sm_89 code"}},
		{"RTX 3090 Ti runs sm_86", Host{GPUs: []GPU{{"RTX 3090", 86}}, DriverCUDA: [2]int{13, 0}}, "cuda", []string{"sm_86 code"}},
		{"A100 on 13.0: sm_86 is not for 8.0", Host{GPUs: []GPU{{"A100", 80}}, DriverCUDA: [2]int{13, 0}}, "cpu", []string{"compute_80 PTX"}},
		{"GTX 1080: nothing old enough", Host{GPUs: []GPU{{"GTX 1080", 61}}, DriverCUDA: [2]int{13, 2}}, "cpu", []string{"no code old enough"}},
		{"a CUDA 12 driver", Host{GPUs: []GPU{{"RTX 4090", 89}}, DriverCUDA: [2]int{12, 8}}, "cpu", []string{"needs CUDA 13"}},
		{"one GPU of two cannot", Host{GPUs: []GPU{{"RTX 4090", 89}, h200}, DriverCUDA: [2]int{13, 0}}, "cpu", []string{"sm_90"}},
		{"nvidia-smi silent", Host{}, "cuda", []string{"unchecked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.host.GOOS, tc.host.GOARCH, tc.host.NVIDIA = "linux", "amd64", true
			c, err := Choose(tc.host, "auto")
			if err != nil {
				t.Fatal(err)
			}
			if c.Package.Backend != tc.backend {
				t.Errorf("chose %s (%s), want %s", c.Package.Backend, c.Why, tc.backend)
			}
			for _, s := range tc.says {
				if !strings.Contains(c.Why, s) {
					t.Errorf("why %q does not say %q", c.Why, s)
				}
			}
		})
	}
	c, err := Choose(Host{GOOS: "linux", GOARCH: "amd64", NVIDIA: true, GPUs: []GPU{h200}, DriverCUDA: [2]int{13, 0}}, "cuda")
	if err != nil || c.Package.Backend != "cuda" || !strings.HasPrefix(c.Why, "warning: ") {
		t.Fatalf("cuda asked for on an H200 with a 13.0 driver: %+v %v; want it, with a warning", c, err)
	}
}

// TestHostFoundOnce: nvidia-smi runs once per process (two invocations:
// the GPUs, the driver's CUDA version) however often the host is asked.
// A child process asks three times with an nvidia-smi on PATH that
// answers as an H200 would and counts its runs.
func TestHostFoundOnce(t *testing.T) {
	if os.Getenv("MEMD_TEST_HOST_ONCE") != "" {
		for range 3 {
			if h := CurrentHost(); len(h.GPUs) != 1 || h.GPUs[0].Name != "NVIDIA H200" || h.DriverCUDA != [2]int{12, 4} {
				t.Fatalf("host %+v; want the H200 nvidia-smi described", h)
			}
		}
		return
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	script := "#!/bin/sh\necho run >> '" + runs + "'\n" +
		"case \"$1\" in --query-gpu=*) echo 'NVIDIA H200, 9.0' ;; *) echo '| CUDA Version: 12.4 |' ;; esac\n"
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostFoundOnce$")
	cmd.Env = append(os.Environ(), "PATH="+dir, "MEMD_TEST_HOST_ONCE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "run"); n != 2 {
		t.Errorf("nvidia-smi ran %d times for three CurrentHost calls; want 2 (once per process)", n)
	}
}
