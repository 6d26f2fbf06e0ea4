package store

import (
	"os"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

func TestZZRatio(t *testing.T) {
	path := os.Getenv("ZZ_DB")
	if path == "" {
		t.Skip()
	}
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var texts [][]byte
	raw := 0
	db.View(func(tx *Tx) error {
		return tx.ForEachChunk(func(c *Chunk) error {
			texts = append(texts, []byte(c.Text))
			raw += len(c.Text)
			return nil
		})
	})
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	for _, lvl := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression} {
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
		var comp [][]byte
		n := 0
		t0 := time.Now()
		for _, x := range texts {
			c := enc.EncodeAll(x, nil)
			comp = append(comp, c)
			n += min(len(c), len(x))
		}
		et := time.Since(t0)
		t0 = time.Now()
		var buf []byte
		for _, c := range comp {
			buf, _ = dec.DecodeAll(c, buf[:0])
		}
		t.Logf("zstd %v: %d → %d (%.2f) enc %v dec %v (%.2f µs/chunk)", lvl, raw, n, float64(raw)/float64(n), et, time.Since(t0), float64(time.Since(t0).Microseconds())/float64(len(comp)))
	}
	n := 0
	t0 := time.Now()
	var comp [][]byte
	for _, x := range texts {
		c := s2.EncodeBetter(nil, x)
		comp = append(comp, c)
		n += min(len(c), len(x))
	}
	et := time.Since(t0)
	t0 = time.Now()
	var buf []byte
	for _, c := range comp {
		buf, _ = s2.Decode(buf[:cap(buf)], c)
	}
	t.Logf("s2 better: %d → %d (%.2f) enc %v dec %v", raw, n, float64(raw)/float64(n), et, time.Since(t0))
}
