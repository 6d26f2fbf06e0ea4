package vector

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkHamming768(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n = 4096
	codes := make([]uint64, n*12)
	for i := range codes {
		codes[i] = r.Uint64()
	}
	q := codes[:12]
	b.ResetTimer()
	s := 0
	for i := 0; i < b.N; i++ {
		j := (i % n) * 12
		s += hamming(q, codes[j:j+12])
	}
	sink = s
}

var sink int
var sinkf float32

func BenchmarkDotInt8_768(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n = 1024
	x := make([]int8, n*768)
	for i := range x {
		x[i] = int8(r.IntN(255) - 127)
	}
	q := make([]float32, 768)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	b.ResetTimer()
	var s float32
	for i := 0; i < b.N; i++ {
		j := (i % n) * 768
		s += dotInt8(q, x[j:j+768])
	}
	sinkf = s
}
