package testmodel

import (
	"fmt"
	"path/filepath"

	"github.com/memd-dev/memd/inference/gguf"
)

// weightFunc gives the value of element i (row-major over the ggml shape:
// i = row*shape[0] + col) of the named tensor.
type weightFunc func(name string, shape []uint64) func(i int64) float32

type tensorSpec struct {
	name  string
	shape []uint64
}

// setGeneral sets the general.* keys of a model of architecture arch.
func setGeneral(w *gguf.Writer, arch string, cfg Config) {
	w.Set("general.architecture", arch)
	w.Set("general.type", "model")
	w.Set("general.name", cfg.Name)
	w.Set("general.file_type", fileType(cfg))
}

// writeModel adds tensors with values from weights, matrices in the type
// cfg asks for (F32 unless F16 or Q8; F16 for a Q8 matrix whose rows are
// not whole blocks of 32), and writes dir/<cfg.Name>.gguf.
func writeModel(w *gguf.Writer, dir string, cfg Config, tensors []tensorSpec, weights weightFunc) (string, error) {
	for _, t := range tensors {
		typ := gguf.TensorF32
		switch {
		case cfg.Q8 && len(t.shape) == 2 && t.shape[0]%32 == 0:
			typ = gguf.TensorQ8_0
		case (cfg.F16 || cfg.Q8) && len(t.shape) == 2: // Q8_0 rows hold whole blocks of 32
			typ = gguf.TensorF16
		}
		n := int64(1)
		for _, d := range t.shape {
			n *= int64(d)
		}
		at := weights(t.name, t.shape)
		if d, ok := cfg.Delta[t.name]; ok {
			if int64(len(d)) != n {
				return "", fmt.Errorf("testmodel: delta for %s has %d values, the tensor %d", t.name, len(d), n)
			}
			base := at
			at = func(i int64) float32 { return base(i) + d[i] }
		}
		w.AddTensor(t.name, typ, t.shape, gguf.Floats(typ, n, at))
	}
	path := filepath.Join(dir, cfg.Name+".gguf")
	if err := w.WriteFile(path); err != nil {
		return "", fmt.Errorf("testmodel: write %s: %w", path, err)
	}
	return path, nil
}

// fileType is general.file_type: llama_ftype's ALL_F32, MOSTLY_F16 or
// MOSTLY_Q8_0.
func fileType(cfg Config) uint32 {
	switch {
	case cfg.Q8:
		return 7
	case cfg.F16:
		return 1
	}
	return 0
}
