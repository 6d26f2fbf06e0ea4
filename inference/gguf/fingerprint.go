package gguf

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// Fingerprint sampling: the header region plus fingerprintWindows windows of
// fingerprintWindow bytes spread evenly over the file. Changing any of these
// changes every fingerprint, so the version prefix moves with them.
const (
	fingerprintPrefix  = "gguf-fp1:"
	fingerprintWindows = 16
	fingerprintWindow  = 64 << 10
	headerFallback     = 4 << 20
)

// Fingerprint names the content of a model file cheaply: it reads the header
// and 1 MiB of samples, not the whole file. The result is
// "gguf-fp1:<hex sha256>" over the file size (8 bytes little endian), the
// header region (bytes up to the tensor data offset; the first 4 MiB when
// the file does not parse) and 16 windows of 64 KiB starting at
// i*(size-64KiB)/15 for i = 0..15 (the whole file when it is smaller). Equal
// files give equal fingerprints on every platform; a changed header, size or
// sampled byte gives a different one. It is not a content hash: edits that
// keep the header and miss every window go unseen.
func Fingerprint(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	size := st.Size()
	head := int64(headerFallback)
	if f, err := Parse(fh, size); err == nil {
		head = f.DataOffset
	}
	head = min(head, size)

	h := sha256.New()
	var sz [8]byte
	binary.LittleEndian.PutUint64(sz[:], uint64(size))
	h.Write(sz[:])
	if _, err := io.Copy(h, io.NewSectionReader(fh, 0, head)); err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", path, err)
	}
	offs := windowOffsets(size)
	for _, off := range offs {
		n := min(int64(fingerprintWindow), size-off)
		if len(offs) == 1 {
			n = size
		}
		if _, err := io.Copy(h, io.NewSectionReader(fh, off, n)); err != nil {
			return "", fmt.Errorf("fingerprint %s: %w", path, err)
		}
	}
	return fingerprintPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

func windowOffsets(size int64) []int64 {
	if size <= fingerprintWindow*fingerprintWindows {
		return []int64{0}
	}
	span := size - fingerprintWindow
	offs := make([]int64, fingerprintWindows)
	for i := range offs {
		offs[i] = int64(i) * span / (fingerprintWindows - 1)
	}
	return offs
}
