package vector

import "math/bits"

// hamming is the number of bits in which a and b differ; len(b) ≥ len(a).
func hamming(a, b []uint64) int {
	b = b[:len(a)]
	var d0, d1, d2, d3 int
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0 += bits.OnesCount64(a[i] ^ b[i])
		d1 += bits.OnesCount64(a[i+1] ^ b[i+1])
		d2 += bits.OnesCount64(a[i+2] ^ b[i+2])
		d3 += bits.OnesCount64(a[i+3] ^ b[i+3])
	}
	for ; i < len(a); i++ {
		d0 += bits.OnesCount64(a[i] ^ b[i])
	}
	return d0 + d1 + d2 + d3
}

// dotInt8 is Σ q[i]·x[i] over float32 q and int8 x; len(q) ≥ len(x).
// Eight independent accumulators keep the adds from waiting on each other.
func dotInt8(q []float32, x []int8) float32 {
	q = q[:len(x)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(x); i += 8 {
		xs := x[i : i+8 : i+8]
		qs := q[i : i+8 : i+8]
		s0 += qs[0] * float32(xs[0])
		s1 += qs[1] * float32(xs[1])
		s2 += qs[2] * float32(xs[2])
		s3 += qs[3] * float32(xs[3])
		s4 += qs[4] * float32(xs[4])
		s5 += qs[5] * float32(xs[5])
		s6 += qs[6] * float32(xs[6])
		s7 += qs[7] * float32(xs[7])
	}
	for ; i < len(x); i++ {
		s0 += q[i] * float32(x[i])
	}
	return (s0 + s1 + s2 + s3) + (s4 + s5 + s6 + s7)
}

// signCode sets bit i of code (word i/64, bit i%64) when v[i] > 0.
func signCode[T float32 | int8](code []uint64, v []T) {
	clear(code)
	for i, x := range v {
		if x > 0 {
			code[i>>6] |= 1 << (i & 63)
		}
	}
}
