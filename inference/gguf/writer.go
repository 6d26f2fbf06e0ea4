package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Writer builds a GGUF v3 file: metadata first, then tensors whose data is
// streamed from callbacks at write time, so a multi-GB model never sits in
// memory. A Writer is not safe for concurrent use.
type Writer struct {
	kv      []KV
	index   map[string]int
	tensors []pendingTensor
	names   map[string]bool
	err     error
}

type pendingTensor struct {
	TensorInfo
	data func(io.Writer) error
}

// TensorData writes exactly the bytes of one tensor.
type TensorData func(io.Writer) error

// NewWriter returns an empty Writer with alignment DefaultAlignment.
func NewWriter() *Writer {
	return &Writer{index: map[string]int{}, names: map[string]bool{}}
}

// Set stores a metadata value, replacing any earlier value for key. value
// must be one of the types File documents (a scalar, string, or a slice of
// them); other types make WriteTo fail.
func (w *Writer) Set(key string, value any) {
	if _, _, err := encodedType(value); err != nil && w.err == nil {
		w.err = fmt.Errorf("gguf: metadata %q: %w", key, err)
	}
	if i, ok := w.index[key]; ok {
		w.kv[i].Value = value
		return
	}
	w.index[key] = len(w.kv)
	w.kv = append(w.kv, KV{Key: key, Value: value})
}

// AddTensor adds a tensor; data is called once by WriteTo and must write
// exactly the tensor's size in bytes (see TensorType.DataSize).
func (w *Writer) AddTensor(name string, typ TensorType, shape []uint64, data TensorData) {
	size, err := typ.DataSize(shape)
	if err == nil && w.names[name] {
		err = fmt.Errorf("tensor %q added twice", name)
	}
	if err != nil {
		if w.err == nil {
			w.err = fmt.Errorf("gguf: tensor %q: %w", name, err)
		}
		return
	}
	w.names[name] = true
	w.tensors = append(w.tensors, pendingTensor{TensorInfo{Name: name, Shape: shape, Type: typ, Size: size}, data})
}

// WriteFile writes the file to path through a temporary file in the same
// folder, so path is either complete or absent.
func (w *Writer) WriteFile(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gguf-*")
	if err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := w.WriteTo(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	return os.Rename(tmp.Name(), path)
}

// WriteTo writes the whole file to out.
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	if w.err != nil {
		return 0, w.err
	}
	align := int64(DefaultAlignment)
	if v, ok := w.index["general.alignment"]; ok {
		a, ok := w.kv[v].Value.(uint32)
		if !ok || a == 0 || a&(a-1) != 0 {
			return 0, fmt.Errorf("gguf: general.alignment must be a uint32 power of two")
		}
		align = int64(a)
	}
	cw := &countWriter{w: bufio.NewWriterSize(out, 1<<20)}
	e := encoder{w: cw}
	e.bytes([]byte(Magic))
	e.u32(3)
	e.u64(uint64(len(w.tensors)))
	e.u64(uint64(len(w.kv)))
	for _, kv := range w.kv {
		e.str(kv.Key)
		e.value(kv.Value)
	}
	var off int64
	for i := range w.tensors {
		t := &w.tensors[i]
		t.Offset = off
		off = alignUp(off+t.Size, align)
		e.str(t.Name)
		e.u32(uint32(len(t.Shape)))
		for _, d := range t.Shape {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(uint64(t.Offset))
	}
	e.pad(align)
	if e.err != nil {
		return cw.n, fmt.Errorf("gguf: write header: %w", e.err)
	}
	start := cw.n
	for _, t := range w.tensors {
		before := cw.n
		if err := t.data(cw); err != nil {
			return cw.n, fmt.Errorf("gguf: tensor %q: %w", t.Name, err)
		}
		if got := cw.n - before; got != t.Size {
			return cw.n, fmt.Errorf("gguf: tensor %q: data wrote %d bytes, want %d", t.Name, got, t.Size)
		}
		if cw.n-start != t.Offset+t.Size {
			return cw.n, fmt.Errorf("gguf: tensor %q landed at the wrong offset", t.Name)
		}
		e.pad(align)
	}
	if e.err == nil {
		e.err = cw.w.Flush()
	}
	if e.err != nil {
		return cw.n, fmt.Errorf("gguf: write: %w", e.err)
	}
	return cw.n, nil
}

type countWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type encoder struct {
	w   *countWriter
	err error
	b   [8]byte
}

func (e *encoder) bytes(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.b[:4], v); e.bytes(e.b[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.b[:], v); e.bytes(e.b[:]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.bytes([]byte(s)) }

func (e *encoder) pad(align int64) {
	if n := alignUp(e.w.n, align) - e.w.n; n > 0 {
		e.bytes(make([]byte, n))
	}
}

// encodedType returns a value's type tag and, for arrays, the element tag.
func encodedType(v any) (ValueType, ValueType, error) {
	switch v.(type) {
	case uint8:
		return TypeUint8, 0, nil
	case int8:
		return TypeInt8, 0, nil
	case uint16:
		return TypeUint16, 0, nil
	case int16:
		return TypeInt16, 0, nil
	case uint32:
		return TypeUint32, 0, nil
	case int32:
		return TypeInt32, 0, nil
	case float32:
		return TypeFloat32, 0, nil
	case bool:
		return TypeBool, 0, nil
	case string:
		return TypeString, 0, nil
	case uint64:
		return TypeUint64, 0, nil
	case int64:
		return TypeInt64, 0, nil
	case float64:
		return TypeFloat64, 0, nil
	case []uint8:
		return TypeArray, TypeUint8, nil
	case []int8:
		return TypeArray, TypeInt8, nil
	case []uint16:
		return TypeArray, TypeUint16, nil
	case []int16:
		return TypeArray, TypeInt16, nil
	case []uint32:
		return TypeArray, TypeUint32, nil
	case []int32:
		return TypeArray, TypeInt32, nil
	case []float32:
		return TypeArray, TypeFloat32, nil
	case []bool:
		return TypeArray, TypeBool, nil
	case []string:
		return TypeArray, TypeString, nil
	case []uint64:
		return TypeArray, TypeUint64, nil
	case []int64:
		return TypeArray, TypeInt64, nil
	case []float64:
		return TypeArray, TypeFloat64, nil
	}
	return 0, 0, fmt.Errorf("unsupported value type %T", v)
}

func (e *encoder) value(v any) {
	t, et, _ := encodedType(v)
	e.u32(uint32(t))
	if t != TypeArray {
		e.scalar(v)
		return
	}
	e.u32(uint32(et))
	switch a := v.(type) {
	case []uint8:
		e.u64(uint64(len(a)))
		e.bytes(a)
	case []string:
		e.u64(uint64(len(a)))
		for _, s := range a {
			e.str(s)
		}
	default:
		each(e, a)
	}
}

func each(e *encoder, v any) {
	switch a := v.(type) {
	case []int8:
		eachOf(e, a)
	case []uint16:
		eachOf(e, a)
	case []int16:
		eachOf(e, a)
	case []uint32:
		eachOf(e, a)
	case []int32:
		eachOf(e, a)
	case []float32:
		eachOf(e, a)
	case []bool:
		eachOf(e, a)
	case []uint64:
		eachOf(e, a)
	case []int64:
		eachOf(e, a)
	case []float64:
		eachOf(e, a)
	}
}

func eachOf[T any](e *encoder, a []T) {
	e.u64(uint64(len(a)))
	for _, x := range a {
		e.scalar(x)
	}
}

func (e *encoder) scalar(v any) {
	le := binary.LittleEndian
	b := e.b[:]
	switch x := v.(type) {
	case uint8:
		b = b[:1]
		b[0] = x
	case int8:
		b = b[:1]
		b[0] = byte(x)
	case bool:
		b = b[:1]
		b[0] = 0
		if x {
			b[0] = 1
		}
	case uint16:
		b = b[:2]
		le.PutUint16(b, x)
	case int16:
		b = b[:2]
		le.PutUint16(b, uint16(x))
	case uint32:
		b = b[:4]
		le.PutUint32(b, x)
	case int32:
		b = b[:4]
		le.PutUint32(b, uint32(x))
	case float32:
		b = b[:4]
		le.PutUint32(b, math.Float32bits(x))
	case uint64:
		le.PutUint64(b, x)
	case int64:
		le.PutUint64(b, uint64(x))
	case float64:
		le.PutUint64(b, math.Float64bits(x))
	case string:
		e.str(x)
		return
	}
	e.bytes(b)
}
