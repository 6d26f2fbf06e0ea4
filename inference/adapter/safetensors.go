package adapter

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/memd-dev/memd/inference/gguf"
)

// tensor is one matrix of a safetensors file, as float32 in row-major
// order of Shape.
type tensor struct {
	Shape []int
	Data  []float32
}

// readSafetensors reads every tensor of a safetensors file: an 8-byte
// little-endian header length, a JSON header of names to dtype, shape and
// byte offsets, then the data.
func readSafetensors(path string) (map[string]tensor, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw) < 8 {
		return nil, fmt.Errorf("%s: too short for a safetensors file", path)
	}
	n := binary.LittleEndian.Uint64(raw)
	if n > uint64(len(raw)-8) {
		return nil, fmt.Errorf("%s: header of %d bytes in a file of %d: not a safetensors file", path, n, len(raw))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	data := raw[8+n:]
	out := map[string]tensor{}
	for name, h := range header {
		if name == "__metadata__" {
			continue
		}
		var info struct {
			Dtype   string   `json:"dtype"`
			Shape   []int    `json:"shape"`
			Offsets [2]int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(h, &info); err != nil {
			return nil, fmt.Errorf("%s: tensor %s: %w", path, name, err)
		}
		t, err := decodeTensor(info.Dtype, info.Shape, data, info.Offsets)
		if err != nil {
			return nil, fmt.Errorf("%s: tensor %s: %w", path, name, err)
		}
		out[name] = t
	}
	return out, nil
}

func decodeTensor(dtype string, shape []int, data []byte, off [2]int64) (tensor, error) {
	count := 1
	for _, d := range shape {
		count *= d
	}
	size := map[string]int{"F32": 4, "F16": 2, "BF16": 2}[dtype]
	if size == 0 {
		return tensor{}, fmt.Errorf("dtype %s is not supported (F32, F16 and BF16 are)", dtype)
	}
	if off[0] < 0 || off[1] > int64(len(data)) || off[1]-off[0] != int64(count*size) {
		return tensor{}, fmt.Errorf("data offsets %v do not hold %d %s values", off, count, dtype)
	}
	b := data[off[0]:off[1]]
	vals := make([]float32, count)
	for i := range vals {
		switch dtype {
		case "F32":
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		case "F16":
			vals[i] = gguf.Float16To32(binary.LittleEndian.Uint16(b[2*i:]))
		case "BF16":
			vals[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
		}
	}
	return tensor{Shape: shape, Data: vals}, nil
}
