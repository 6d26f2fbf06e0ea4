package gguf

import "fmt"

// ValueType is the type tag of a metadata value, as stored in the file.
type ValueType uint32

// Metadata value types of the GGUF format.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// scalarSize is the encoded size of a fixed-size value type, 0 for string
// and array.
func (t ValueType) scalarSize() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

func (t ValueType) valid() bool { return t <= TypeFloat64 }

// TensorType is a ggml tensor element type.
type TensorType uint32

// Tensor types this package writes; the reader knows many more (see
// tensorLayouts).
const (
	TensorF32  TensorType = 0
	TensorF16  TensorType = 1
	TensorQ8_0 TensorType = 8
	TensorBF16 TensorType = 30
)

type tensorLayout struct {
	name      string
	blockSize int64 // elements per block
	blockLen  int64 // bytes per block
}

// tensorLayouts lists ggml's element types with their block geometry, needed
// to compute how many bytes a tensor's data takes in the file.
var tensorLayouts = map[TensorType]tensorLayout{
	0: {"F32", 1, 4}, 1: {"F16", 1, 2}, 2: {"Q4_0", 32, 18}, 3: {"Q4_1", 32, 20},
	6: {"Q5_0", 32, 22}, 7: {"Q5_1", 32, 24}, 8: {"Q8_0", q8Block, 2 + q8Block}, 9: {"Q8_1", 32, 36},
	10: {"Q2_K", 256, 84}, 11: {"Q3_K", 256, 110}, 12: {"Q4_K", 256, 144},
	13: {"Q5_K", 256, 176}, 14: {"Q6_K", 256, 210}, 15: {"Q8_K", 256, 292},
	16: {"IQ2_XXS", 256, 66}, 17: {"IQ2_XS", 256, 74}, 18: {"IQ3_XXS", 256, 98},
	19: {"IQ1_S", 256, 50}, 20: {"IQ4_NL", 32, 18}, 21: {"IQ3_S", 256, 110},
	22: {"IQ2_S", 256, 82}, 23: {"IQ4_XS", 256, 136}, 24: {"I8", 1, 1},
	25: {"I16", 1, 2}, 26: {"I32", 1, 4}, 27: {"I64", 1, 8}, 28: {"F64", 1, 8},
	29: {"IQ1_M", 256, 56}, 30: {"BF16", 1, 2}, 34: {"TQ1_0", 256, 54},
	35: {"TQ2_0", 256, 66}, 39: {"MXFP4", 32, 17},
}

func (t TensorType) String() string {
	if l, ok := tensorLayouts[t]; ok {
		return l.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// DataSize returns the bytes a tensor of this type and shape occupies, or an
// error when the type is unknown or the first dimension is not a whole number
// of blocks.
func (t TensorType) DataSize(shape []uint64) (int64, error) {
	l, ok := tensorLayouts[t]
	if !ok {
		return 0, fmt.Errorf("%w %d", ErrTensorType, uint32(t))
	}
	if len(shape) == 0 {
		return l.blockLen, nil
	}
	if shape[0]%uint64(l.blockSize) != 0 {
		return 0, fmt.Errorf("%w: first dimension %d is not a multiple of %s's block of %d", ErrCorrupt, shape[0], l.name, l.blockSize)
	}
	const limit = 1 << 62
	n := uint64(1)
	for _, d := range shape {
		if d != 0 && n > limit/d {
			return 0, fmt.Errorf("%w: tensor shape %v overflows", ErrCorrupt, shape)
		}
		n *= d
	}
	blocks := n / uint64(l.blockSize)
	if blocks > limit/uint64(l.blockLen) {
		return 0, fmt.Errorf("%w: tensor shape %v overflows", ErrCorrupt, shape)
	}
	return int64(blocks) * l.blockLen, nil
}
