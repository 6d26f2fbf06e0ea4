package llama

import "fmt"

// DeviceType is ggml's kind of compute device.
type DeviceType int32

// The device kinds of enum ggml_backend_dev_type, in its order.
const (
	DeviceCPU DeviceType = iota
	DeviceGPU
	DeviceIntegratedGPU
	DeviceAccelerator
	DeviceMeta
)

func (t DeviceType) String() string {
	switch t {
	case DeviceCPU:
		return "cpu"
	case DeviceGPU:
		return "gpu"
	case DeviceIntegratedGPU:
		return "igpu"
	case DeviceAccelerator:
		return "accel"
	case DeviceMeta:
		return "meta"
	}
	return fmt.Sprintf("type-%d", int32(t))
}

// Device is one compute device that a loaded ggml backend found, such as
// "Vulkan0" (NVIDIA H200) or "CPU".
type Device struct {
	Name        string
	Description string
	Type        DeviceType
	FreeBytes   uint64
	TotalBytes  uint64
}

// IsGPU reports whether models can offload layers to the device.
func (d Device) IsGPU() bool { return d.Type == DeviceGPU || d.Type == DeviceIntegratedGPU }

// deviceAPI is ggml's device registry, exported by libggml-base beside the
// library.
type deviceAPI struct {
	count       func() uintptr
	get         func(i uintptr) uintptr
	name        func(d uintptr) string
	description func(d uintptr) string
	memory      func(d uintptr, free, total *uintptr)
	kind        func(d uintptr) int32
}

func (a *deviceAPI) bind(handle uintptr) error {
	return bindSymbols(handle, []symbol{
		{"ggml_backend_dev_count", &a.count},
		{"ggml_backend_dev_get", &a.get},
		{"ggml_backend_dev_name", &a.name},
		{"ggml_backend_dev_description", &a.description},
		{"ggml_backend_dev_memory", &a.memory},
		{"ggml_backend_dev_type", &a.kind},
	})
}

// Devices lists the compute devices of the backends that loaded with the
// library. A GPU build that lists no GPU device runs on the CPU: its GPU
// backend found no usable driver.
func (l *Library) Devices() []Device {
	n := l.dev.count()
	out := make([]Device, 0, n)
	for i := range n {
		d := l.dev.get(i)
		var free, total uintptr
		l.dev.memory(d, &free, &total)
		out = append(out, Device{
			Name:        l.dev.name(d),
			Description: l.dev.description(d),
			Type:        DeviceType(l.dev.kind(d)),
			FreeBytes:   uint64(free),
			TotalBytes:  uint64(total),
		})
	}
	return out
}

// Compute says where models run: the build's backend and its first GPU, or
// "cpu" and the first device when the build found no GPU (a CPU build, or a
// GPU build without a usable driver).
func (l *Library) Compute() (backend string, device Device) {
	devs := l.Devices()
	if l.gpu() {
		for _, d := range devs {
			if d.IsGPU() {
				return l.backend, d
			}
		}
	}
	if len(devs) == 0 {
		return "cpu", Device{Name: "CPU", Type: DeviceCPU}
	}
	return "cpu", devs[0]
}
