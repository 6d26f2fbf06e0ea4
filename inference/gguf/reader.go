package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// DefaultAlignment is the tensor data alignment when general.alignment is
// absent.
const DefaultAlignment = 32

// File is the parsed header of a GGUF file: metadata and the tensor table.
// Metadata values are Go values: uint8, int8, uint16, int16, uint32, int32,
// float32, bool, string, uint64, int64, float64, or a slice of one of these.
type File struct {
	Version    uint32
	KV         []KV
	Tensors    []TensorInfo
	Alignment  int64
	DataOffset int64 // absolute offset of the tensor data section
	index      map[string]int
}

// KV is one metadata entry.
type KV struct {
	Key   string
	Value any
}

// TensorInfo describes one tensor; Offset is relative to File.DataOffset.
type TensorInfo struct {
	Name   string
	Shape  []uint64 // ggml order: Shape[0] is the fastest-moving dimension
	Type   TensorType
	Offset int64
	Size   int64 // bytes of data, from Type and Shape
}

// Get returns the value stored under key.
func (f *File) Get(key string) (any, bool) {
	i, ok := f.index[key]
	if !ok {
		return nil, false
	}
	return f.KV[i].Value, true
}

// String returns the string stored under key, or "" when it is absent or not
// a string.
func (f *File) String(key string) string {
	v, _ := f.Get(key)
	s, _ := v.(string)
	return s
}

// Uint returns an integer value stored under key (any integer type, negative
// values excluded).
func (f *File) Uint(key string) (uint64, bool) {
	v, ok := f.Get(key)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	case int8:
		return uint64(x), x >= 0
	case int16:
		return uint64(x), x >= 0
	case int32:
		return uint64(x), x >= 0
	case int64:
		return uint64(x), x >= 0
	}
	return 0, false
}

// Parse reads the header of a GGUF file of the given size. It never reads
// tensor data and never allocates more than the file could hold, so any byte
// string is safe to give it.
func Parse(r io.ReaderAt, size int64) (*File, error) {
	d := &decoder{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10), size: size}
	f, err := d.file()
	if err != nil {
		return nil, err
	}
	return f, nil
}

type decoder struct {
	r    *bufio.Reader
	pos  int64
	size int64
	buf  [8]byte
}

func (d *decoder) remaining() int64 { return d.size - d.pos }

func (d *decoder) read(n int) ([]byte, error) {
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		return nil, d.eof(err)
	}
	d.pos += int64(n)
	return b, nil
}

func (d *decoder) eof(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: header ends at byte %d of %d", ErrTruncated, d.pos, d.size)
	}
	return err
}

func (d *decoder) u32() (uint32, error) {
	b, err := d.read(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a u64 element count and rejects counts that could not fit in
// the rest of the file at minSize bytes each.
func (d *decoder) count(what string, minSize int64) (int, error) {
	n, err := d.u64()
	if err != nil {
		return 0, err
	}
	if minSize < 1 {
		minSize = 1
	}
	if n > uint64(d.remaining()/minSize) {
		if n > uint64(math.MaxInt32) {
			return 0, fmt.Errorf("%w: %s count %d at byte %d is impossible", ErrCorrupt, what, n, d.pos-8)
		}
		return 0, fmt.Errorf("%w: %d %s need more than the %d bytes left", ErrTruncated, n, what, d.remaining())
	}
	return int(n), nil
}

func (d *decoder) str() (string, error) {
	n, err := d.count("string bytes", 1)
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		return "", d.eof(err)
	}
	d.pos += int64(n)
	return string(b), nil
}

func (d *decoder) file() (*File, error) {
	b, err := d.read(4)
	if err != nil {
		return nil, err
	}
	if string(b) != Magic {
		return nil, fmt.Errorf("%w: starts with %q", ErrNotGGUF, b)
	}
	f := &File{Alignment: DefaultAlignment, index: map[string]int{}}
	if f.Version, err = d.u32(); err != nil {
		return nil, err
	}
	if f.Version != 2 && f.Version != 3 {
		return nil, fmt.Errorf("%w %d (this build reads versions 2 and 3)", ErrVersion, f.Version)
	}
	nTensors, err := d.count("tensors", 24)
	if err != nil {
		return nil, err
	}
	nKV, err := d.count("metadata entries", 13)
	if err != nil {
		return nil, err
	}
	f.KV = make([]KV, 0, nKV)
	for range nKV {
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		t, err := d.u32()
		if err != nil {
			return nil, err
		}
		v, err := d.value(ValueType(t), true)
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %w", key, err)
		}
		if _, dup := f.index[key]; dup {
			return nil, fmt.Errorf("%w: metadata key %q appears twice", ErrCorrupt, key)
		}
		f.index[key] = len(f.KV)
		f.KV = append(f.KV, KV{Key: key, Value: v})
	}
	if a, ok := f.Uint("general.alignment"); ok {
		if a == 0 || a&(a-1) != 0 || a > 1<<20 {
			return nil, fmt.Errorf("%w: general.alignment %d is not a power of two", ErrCorrupt, a)
		}
		f.Alignment = int64(a)
	}
	f.Tensors = make([]TensorInfo, 0, nTensors)
	for range nTensors {
		ti, err := d.tensorInfo()
		if err != nil {
			return nil, err
		}
		f.Tensors = append(f.Tensors, ti)
	}
	f.DataOffset = alignUp(d.pos, f.Alignment)
	return f, nil
}

func (d *decoder) tensorInfo() (TensorInfo, error) {
	var ti TensorInfo
	var err error
	if ti.Name, err = d.str(); err != nil {
		return ti, err
	}
	nDims, err := d.u32()
	if err != nil {
		return ti, err
	}
	if nDims > 4 {
		return ti, fmt.Errorf("%w: tensor %q has %d dimensions (at most 4)", ErrCorrupt, ti.Name, nDims)
	}
	ti.Shape = make([]uint64, nDims)
	for i := range ti.Shape {
		if ti.Shape[i], err = d.u64(); err != nil {
			return ti, err
		}
	}
	t, err := d.u32()
	if err != nil {
		return ti, err
	}
	ti.Type = TensorType(t)
	off, err := d.u64()
	if err != nil {
		return ti, err
	}
	if off > 1<<62 {
		return ti, fmt.Errorf("%w: tensor %q offset %d is impossible", ErrCorrupt, ti.Name, off)
	}
	ti.Offset = int64(off)
	if ti.Size, err = ti.Type.DataSize(ti.Shape); err != nil {
		return ti, fmt.Errorf("tensor %q: %w", ti.Name, err)
	}
	return ti, nil
}

func (d *decoder) value(t ValueType, top bool) (any, error) {
	switch t {
	case TypeString:
		return d.str()
	case TypeArray:
		if !top {
			return nil, fmt.Errorf("%w: nested arrays are not supported", ErrCorrupt)
		}
		return d.array()
	}
	n := t.scalarSize()
	if n == 0 || !t.valid() {
		return nil, fmt.Errorf("%w: value type %d", ErrCorrupt, uint32(t))
	}
	b, err := d.read(n)
	if err != nil {
		return nil, err
	}
	return decodeScalar(t, b), nil
}

func decodeScalar(t ValueType, b []byte) any {
	le := binary.LittleEndian
	switch t {
	case TypeUint8:
		return b[0]
	case TypeInt8:
		return int8(b[0])
	case TypeBool:
		return b[0] != 0
	case TypeUint16:
		return le.Uint16(b)
	case TypeInt16:
		return int16(le.Uint16(b))
	case TypeUint32:
		return le.Uint32(b)
	case TypeInt32:
		return int32(le.Uint32(b))
	case TypeFloat32:
		return math.Float32frombits(le.Uint32(b))
	case TypeUint64:
		return le.Uint64(b)
	case TypeInt64:
		return int64(le.Uint64(b))
	default:
		return math.Float64frombits(le.Uint64(b))
	}
}

func (d *decoder) array() (any, error) {
	et, err := d.u32()
	if err != nil {
		return nil, err
	}
	t := ValueType(et)
	if t == TypeArray {
		return nil, fmt.Errorf("%w: nested arrays are not supported", ErrCorrupt)
	}
	if t == TypeString {
		n, err := d.count("array strings", 8)
		if err != nil {
			return nil, err
		}
		out := make([]string, n)
		for i := range out {
			if out[i], err = d.str(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	size := t.scalarSize()
	if size == 0 || !t.valid() {
		return nil, fmt.Errorf("%w: array element type %d", ErrCorrupt, et)
	}
	n, err := d.count("array elements", int64(size))
	if err != nil {
		return nil, err
	}
	raw := make([]byte, n*size)
	if _, err := io.ReadFull(d.r, raw); err != nil {
		return nil, d.eof(err)
	}
	d.pos += int64(len(raw))
	return decodeArray(t, raw, n, size), nil
}

func decodeArray(t ValueType, raw []byte, n, size int) any {
	switch t {
	case TypeUint8:
		return raw
	case TypeInt8:
		return fill(n, func(i int) int8 { return int8(raw[i]) })
	case TypeBool:
		return fill(n, func(i int) bool { return raw[i] != 0 })
	}
	at := func(i int) []byte { return raw[i*size : (i+1)*size] }
	switch t {
	case TypeUint16:
		return fill(n, func(i int) uint16 { return decodeScalar(t, at(i)).(uint16) })
	case TypeInt16:
		return fill(n, func(i int) int16 { return decodeScalar(t, at(i)).(int16) })
	case TypeUint32:
		return fill(n, func(i int) uint32 { return binary.LittleEndian.Uint32(at(i)) })
	case TypeInt32:
		return fill(n, func(i int) int32 { return int32(binary.LittleEndian.Uint32(at(i))) })
	case TypeFloat32:
		return fill(n, func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(at(i))) })
	case TypeUint64:
		return fill(n, func(i int) uint64 { return binary.LittleEndian.Uint64(at(i)) })
	case TypeInt64:
		return fill(n, func(i int) int64 { return int64(binary.LittleEndian.Uint64(at(i))) })
	default:
		return fill(n, func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(at(i))) })
	}
}

func fill[T any](n int, f func(int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }
