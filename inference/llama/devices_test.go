package llama

import (
	"strings"
	"testing"
)

// TestDevices reads ggml's device registry: the CPU builds that CI runs
// list exactly one device, the CPU, with its memory, and Compute says the
// models run there.
func TestDevices(t *testing.T) {
	l := openLib(t)
	devs := l.Devices()
	t.Logf("devices: %+v", devs)
	if len(devs) == 0 {
		t.Fatal("no devices: the CPU backend did not load")
	}
	var cpu *Device
	for i := range devs {
		if devs[i].Type == DeviceCPU {
			cpu = &devs[i]
		}
	}
	if cpu == nil || !strings.EqualFold(cpu.Name, "CPU") || cpu.Description == "" || cpu.TotalBytes == 0 || cpu.FreeBytes > cpu.TotalBytes {
		t.Fatalf("CPU device %+v in %+v", cpu, devs)
	}
	backend, dev := l.Compute()
	hasGPU := false
	for _, d := range devs {
		hasGPU = hasGPU || d.IsGPU()
	}
	if hasGPU && l.Backend() != "cpu" && l.Backend() != "" {
		if backend != l.Backend() || !dev.IsGPU() {
			t.Fatalf("Compute() = %s, %+v with a GPU present", backend, dev)
		}
	} else if backend != "cpu" || dev.Type != DeviceCPU {
		t.Fatalf("Compute() = %s, %+v on a build with no GPU", backend, dev)
	}
}
