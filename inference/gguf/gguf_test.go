package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sampleWriter() *Writer {
	w := NewWriter()
	w.Set("general.architecture", "llama")
	w.Set("general.name", "sample")
	w.Set("llama.context_length", uint32(256))
	w.Set("llama.embedding_length", uint32(8))
	w.Set("llama.block_count", uint32(1))
	w.Set("tokenizer.chat_template", "{{ x }}")
	w.Set("u8", uint8(1))
	w.Set("i8", int8(-2))
	w.Set("u16", uint16(3))
	w.Set("i16", int16(-4))
	w.Set("i32", int32(-5))
	w.Set("f32", float32(1.5))
	w.Set("bool", true)
	w.Set("u64", uint64(1<<40))
	w.Set("i64", int64(-1<<40))
	w.Set("f64", 2.25)
	w.Set("strs", []string{"a", "", "ccc"})
	w.Set("ints", []int32{1, -2, 3})
	w.Set("floats", []float32{0.5, -1})
	w.Set("bytes", []uint8{9, 8})
	w.Set("bools", []bool{true, false})
	w.Set("u64s", []uint64{7})
	w.AddTensor("a", TensorF32, []uint64{3, 2}, F32([]float32{1, 2, 3, 4, 5, 6}))
	w.AddTensor("b", TensorF16, []uint64{5}, Floats(TensorF16, 5, func(i int64) float32 { return float32(i) }))
	return w
}

func writeSample(t *testing.T, w *Writer) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

func TestWriterRoundTrip(t *testing.T) {
	w := sampleWriter()
	_, data := writeSample(t, w)
	f, err := Parse(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || len(f.KV) != len(w.kv) || len(f.Tensors) != 2 {
		t.Fatalf("version %d, %d kv, %d tensors", f.Version, len(f.KV), len(f.Tensors))
	}
	for _, kv := range w.kv {
		got, ok := f.Get(kv.Key)
		if !ok || !reflect.DeepEqual(got, kv.Value) {
			t.Errorf("%s: got %#v, want %#v", kv.Key, got, kv.Value)
		}
	}
	if f.DataOffset%32 != 0 {
		t.Errorf("data offset %d not aligned", f.DataOffset)
	}
	a, b := f.Tensors[0], f.Tensors[1]
	if a.Offset != 0 || a.Size != 24 || b.Offset != 32 || b.Size != 10 || b.Type != TensorF16 {
		t.Errorf("tensor table %+v %+v", a, b)
	}
	raw := data[f.DataOffset+b.Offset:]
	for i := range 5 {
		if v := Float16To32(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8); v != float32(i) {
			t.Errorf("b[%d] = %v", i, v)
		}
	}
	if int64(len(data)) != f.DataOffset+64 {
		t.Errorf("file is %d bytes, want data offset + 64", len(data))
	}
}

func TestWriterRejects(t *testing.T) {
	cases := map[string]func(*Writer){
		"bad value type": func(w *Writer) { w.Set("x", struct{}{}) },
		"short data":     func(w *Writer) { w.AddTensor("t", TensorF32, []uint64{4}, F32([]float32{1})) },
		"duplicate tensor": func(w *Writer) {
			w.AddTensor("t", TensorF32, []uint64{1}, F32([]float32{1}))
			w.AddTensor("t", TensorF32, []uint64{1}, F32([]float32{1}))
		},
		"partial block": func(w *Writer) { w.AddTensor("t", TensorQ8_0, []uint64{31}, nil) },
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			w := NewWriter()
			build(w)
			if _, err := w.WriteTo(new(bytes.Buffer)); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestCheck(t *testing.T) {
	path, data := writeSample(t, sampleWriter())
	info, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Info{Path: path, Size: int64(len(data)), Version: 3, Architecture: "llama", Name: "sample",
		TensorCount: 2, ContextLength: 256, EmbeddingLen: 8, BlockCount: 1, ChatTemplate: "{{ x }}"}
	info.File = nil
	if *info != want {
		t.Errorf("got %+v\nwant %+v", *info, want)
	}
}

func TestCheckErrors(t *testing.T) {
	_, good := writeSample(t, sampleWriter())
	f, _ := Parse(bytes.NewReader(good), int64(len(good)))
	withArch := func(arch string) []byte {
		w := sampleWriter()
		if arch == "" {
			w.kv = w.kv[1:]
			delete(w.index, "general.architecture")
			for i, kv := range w.kv {
				w.index[kv.Key] = i
			}
		} else {
			w.Set("general.architecture", arch)
		}
		var b bytes.Buffer
		if _, err := w.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	patch := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return b
	}
	cases := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"empty", nil, ErrTruncated, "download it again"},
		{"bad magic", patch(0, 'G', 'G', 'M', 'L'), ErrNotGGUF, "not a GGUF file"},
		{"version 1", patch(4, 1), ErrVersion, "version 1"},
		{"version 9", patch(4, 9), ErrVersion, "convert it"},
		{"header cut", good[:100], ErrTruncated, "download it again"},
		{"data cut", good[:len(good)-30], ErrTruncated, fmt.Sprintf("truncated (%d of %d bytes)", len(good)-30, f.DataOffset+42)},
		{"no data", good[:f.DataOffset], ErrTruncated, "truncated"},
		{"huge kv count", patch(16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), ErrCorrupt, "damaged"},
		{"unknown arch", withArch("gpt-9"), ErrUnknownArchitecture, `"gpt-9"`},
		{"no arch", withArch(""), ErrNoArchitecture, "general.architecture"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.gguf")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Check(path)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), path) {
				t.Errorf("message %q lacks %q or the path", err, c.msg)
			}
		})
	}
	if _, err := Check(filepath.Join(t.TempDir(), "missing.gguf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fp := func(p string) string {
		s, err := Fingerprint(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := fp(write("a", big))
	if !strings.HasPrefix(base, "gguf-fp1:") || len(base) != len("gguf-fp1:")+64 {
		t.Fatalf("fingerprint %q", base)
	}
	if fp(write("copy", big)) != base {
		t.Error("equal files differ")
	}
	sampled := bytes.Clone(big)
	sampled[len(big)-1]++ // the last window covers the last byte
	if fp(write("b", sampled)) == base {
		t.Error("change in the last window not seen")
	}
	if fp(write("c", big[:len(big)-1])) == base {
		t.Error("size change not seen")
	}
	small := []byte("GGUF small file")
	s1 := fp(write("s", small))
	small[3] = 'X'
	if fp(write("s2", small)) == s1 {
		t.Error("small file change not seen")
	}
}

func TestFloat16(t *testing.T) {
	for h := range 1 << 16 {
		f := Float16To32(uint16(h))
		if math.IsNaN(float64(f)) {
			continue
		}
		if got := Float16(f); got != uint16(h) {
			t.Fatalf("half %#04x -> %v -> %#04x", h, f, got)
		}
	}
	for _, c := range []struct {
		in   float32
		want uint16
	}{{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1e6, 0x7c00}, {5.96e-8, 0x0001}, {1e-9, 0}, {0.1, 0x2e66}} {
		if got := Float16(c.in); got != c.want {
			t.Errorf("Float16(%v) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	var b bytes.Buffer
	if _, err := sampleWriter().WriteTo(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:60])
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if file.DataOffset > int64(len(data))+file.Alignment {
			t.Fatalf("data offset %d beyond file of %d", file.DataOffset, len(data))
		}
		for _, ti := range file.Tensors {
			if ti.Size < 0 {
				t.Fatalf("negative size %+v", ti)
			}
		}
	})
}

// Q8_0 blocks are an F16 scale of max|x|/127 and round(x/scale), as ggml's
// reference quantizer writes them; an all-zero block has scale 0.
func TestQ8_0(t *testing.T) {
	vals := make([]float32, 64)
	for j := range 32 {
		vals[j] = float32(j-16) / 16 // -1 … 0.9375
	}
	var buf bytes.Buffer
	if err := Floats(TensorQ8_0, 64, func(i int64) float32 { return vals[i] })(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if len(b) != 2*34 {
		t.Fatalf("%d bytes for two blocks, want 68", len(b))
	}
	if d := binary.LittleEndian.Uint16(b); d != Float16(1.0/127) {
		t.Errorf("scale %#x, want %#x", d, Float16(1.0/127))
	}
	for j, want := range map[int]int8{0: -127, 8: -64, 16: 0, 24: 64, 31: 119} {
		if got := int8(b[2+j]); got != want {
			t.Errorf("q[%d] = %d, want %d", j, got, want)
		}
	}
	if !bytes.Equal(b[34:], make([]byte, 34)) {
		t.Errorf("zero block % x", b[34:])
	}
	if err := Floats(TensorQ8_0, 31, func(int64) float32 { return 0 })(new(bytes.Buffer)); err == nil {
		t.Error("31 values: no error")
	}
}
