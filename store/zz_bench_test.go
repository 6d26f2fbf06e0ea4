package store

import (
	"os"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

func zzTexts(b *testing.B) [][]byte {
	db, err := Open(os.Getenv("ZZ_DB"), Options{ReadOnly: true})
	if err != nil {
		b.Skip()
	}
	defer db.Close()
	var texts [][]byte
	db.View(func(tx *Tx) error {
		return tx.ForEachChunk(func(c *Chunk) error {
			texts = append(texts, []byte(c.Text))
			return nil
		})
	})
	return texts
}

func BenchmarkZZZstdDecode(b *testing.B) {
	texts := zzTexts(b)
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(true))
	var comp [][]byte
	for _, x := range texts {
		comp = append(comp, enc.EncodeAll(x, nil))
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		out, _ := dec.DecodeAll(comp[i%len(comp)], nil)
		_ = string(out)
		i++
	}
}

func BenchmarkZZS2Decode(b *testing.B) {
	texts := zzTexts(b)
	var comp [][]byte
	for _, x := range texts {
		comp = append(comp, s2.EncodeBetter(nil, x))
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		out, _ := s2.Decode(nil, comp[i%len(comp)])
		_ = string(out)
		i++
	}
}

func BenchmarkZZZstdEncode(b *testing.B) {
	texts := zzTexts(b)
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
	i := 0
	for b.Loop() {
		enc.EncodeAll(texts[i%len(texts)], nil)
		i++
	}
}
func BenchmarkZZS2Encode(b *testing.B) {
	texts := zzTexts(b)
	i := 0
	for b.Loop() {
		s2.EncodeBetter(nil, texts[i%len(texts)])
		i++
	}
}
