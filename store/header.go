package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
)

// bbolt's file layout, as far as checkHeader reads it: two meta pages at
// the start, each a 16-byte page header and then the meta fields; the one
// with the higher transaction id and a good checksum is current.
const (
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	pageHeaderSize  = 16
	metaSize        = 64 // magic … checksum
	metaChecksumAt  = 56 // the checksum covers the bytes before it
	minBoltPageSize = 1024
	maxBoltPageSize = 1 << 20
)

// boltMeta is the part of a meta page checkHeader needs.
type boltMeta struct {
	pageSize uint32
	root     uint64 // page id of the root bucket
	freelist uint64 // page id of the freelist, or all ones when not synced
	pgid     uint64 // high water mark: pages below it are in use or free
	txid     uint64
}

// checkHeader reads the two meta pages of the bbolt file at path and
// checks them against the file's size, without mapping the file. It
// catches what would make bbolt fault while opening: both meta pages
// destroyed, or a file cut shorter than its pages (bbolt maps the missing
// tail and the first read of it kills the process). A missing or empty
// file is fine: bbolt creates one.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	size := fi.Size()
	if size == 0 {
		return nil
	}
	m, err := currentMeta(f)
	if err != nil {
		return damaged(path, err.Error())
	}
	need := int64(m.pgid) * int64(m.pageSize)
	if size < need {
		return damaged(path, fmt.Sprintf("the file is %d bytes but its pages reach %d: it was cut short", size, need))
	}
	for _, id := range []uint64{m.root, m.freelist} {
		if id != ^uint64(0) && (id < 2 || id >= m.pgid) {
			return damaged(path, fmt.Sprintf("the meta page points at page %d, outside the file's %d pages", id, m.pgid))
		}
	}
	return nil
}

// currentMeta returns the valid meta page with the higher transaction id.
// The second meta page sits one page size in; the first meta page gives
// that size, else the OS page size (what bbolt writes new files with) is
// tried.
func currentMeta(r io.ReaderAt) (boltMeta, error) {
	m0, err0 := readMeta(r, 0)
	pageSize := int64(os.Getpagesize())
	if err0 == nil {
		pageSize = int64(m0.pageSize)
	}
	m1, err1 := readMeta(r, pageSize)
	switch {
	case err0 != nil && err1 != nil:
		return boltMeta{}, fmt.Errorf("both meta pages are unreadable (%v; %v)", err0, err1)
	case err0 != nil:
		return m1, nil
	case err1 != nil || m0.txid >= m1.txid:
		return m0, nil
	default:
		return m1, nil
	}
}

// readMeta reads and validates the meta page at offset.
func readMeta(r io.ReaderAt, offset int64) (boltMeta, error) {
	b := make([]byte, pageHeaderSize+metaSize)
	if _, err := r.ReadAt(b, offset); err != nil {
		return boltMeta{}, fmt.Errorf("meta page at %d: %w", offset, err)
	}
	b = b[pageHeaderSize:]
	le := binary.LittleEndian
	if le.Uint32(b[0:]) != boltMagic {
		return boltMeta{}, fmt.Errorf("meta page at %d: not a bbolt meta page", offset)
	}
	if v := le.Uint32(b[4:]); v != boltVersion {
		return boltMeta{}, fmt.Errorf("meta page at %d: bbolt version %d", offset, v)
	}
	h := fnv.New64a()
	h.Write(b[:metaChecksumAt])
	if h.Sum64() != le.Uint64(b[metaChecksumAt:]) {
		return boltMeta{}, fmt.Errorf("meta page at %d: checksum mismatch", offset)
	}
	m := boltMeta{pageSize: le.Uint32(b[8:]), root: le.Uint64(b[16:]), freelist: le.Uint64(b[32:]),
		pgid: le.Uint64(b[40:]), txid: le.Uint64(b[48:])}
	if m.pageSize < minBoltPageSize || m.pageSize > maxBoltPageSize || m.pageSize&(m.pageSize-1) != 0 {
		return boltMeta{}, fmt.Errorf("meta page at %d: page size %d", offset, m.pageSize)
	}
	return m, nil
}
