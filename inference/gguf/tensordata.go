package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Floats returns TensorData that writes n values at(0)..at(n-1) as typ (F32,
// F16, BF16 or Q8_0), in chunks, so n can exceed memory.
func Floats(typ TensorType, n int64, at func(i int64) float32) TensorData {
	if typ == TensorQ8_0 {
		return q8_0(n, at)
	}
	return func(w io.Writer) error {
		var width int64
		switch typ {
		case TensorF32:
			width = 4
		case TensorF16, TensorBF16:
			width = 2
		default:
			return fmt.Errorf("Floats cannot write %s", typ)
		}
		const chunk = 32 << 10
		buf := make([]byte, chunk*width)
		for start := int64(0); start < n; start += chunk {
			m := min(chunk, n-start)
			for j := range m {
				v := at(start + j)
				switch typ {
				case TensorF32:
					binary.LittleEndian.PutUint32(buf[j*4:], math.Float32bits(v))
				case TensorF16:
					binary.LittleEndian.PutUint16(buf[j*2:], Float16(v))
				default:
					binary.LittleEndian.PutUint16(buf[j*2:], uint16(math.Float32bits(v)>>16))
				}
			}
			if _, err := w.Write(buf[:m*width]); err != nil {
				return err
			}
		}
		return nil
	}
}

// F32 returns TensorData that writes vals as F32.
func F32(vals []float32) TensorData {
	return Floats(TensorF32, int64(len(vals)), func(i int64) float32 { return vals[i] })
}

// Float16 converts f to IEEE half precision, rounding to nearest even.
func Float16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case b>>23&0xff == 0xff:
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		half := uint32(1) << (shift - 1)
		r := mant >> shift
		if rem := mant & (1<<shift - 1); rem > half || rem == half && r&1 == 1 {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++
	}
	return sign | uint16(r)
}

// Float16To32 converts an IEEE half to float32 exactly.
func Float16To32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h >> 10 & 0x1f)
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		for mant&0x400 == 0 {
			mant <<= 1
			exp--
		}
		exp++
		mant &= 0x3ff
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// q8Block is Q8_0's block: 32 values as one F16 scale and 32 int8s.
const q8Block = 32

// q8_0 quantizes as ggml's reference quantize_row_q8_0 does: per block of
// 32, the scale d = max|x| / 127 and each value round(x / d).
func q8_0(n int64, at func(i int64) float32) TensorData {
	return func(w io.Writer) error {
		if n%q8Block != 0 {
			return fmt.Errorf("Q8_0 needs a multiple of %d values, not %d", q8Block, n)
		}
		const blocks = 1024
		buf := make([]byte, 0, blocks*(2+q8Block))
		var x [q8Block]float32
		for start := int64(0); start < n; start += q8Block {
			amax := float32(0)
			for j := range x {
				x[j] = at(start + int64(j))
				amax = max(amax, float32(math.Abs(float64(x[j]))))
			}
			d := amax / 127
			id := float32(0)
			if d != 0 {
				id = 1 / d
			}
			buf = binary.LittleEndian.AppendUint16(buf, Float16(d))
			for _, v := range x {
				buf = append(buf, byte(int8(math.Round(float64(v*id)))))
			}
			if len(buf) == cap(buf) {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		_, err := w.Write(buf)
		return err
	}
}
