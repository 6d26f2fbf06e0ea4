package store

import (
	"bytes"
	"os"
	"testing"
)

// FuzzRecords feeds the note and chunk decoders bytes a damaged page can
// hold: they must answer an error or a record, never panic, and a record
// they accept must encode back to the bytes it came from.
func FuzzRecords(f *testing.F) {
	f.Add(encodeNote(nil, &Note{Path: "/n/a.md", Folder: "/n", Hash: "ab", Tags: []string{"t"}, Chunks: []uint64{3, 9}}))
	f.Add(encodeChunk(nil, &Chunk{ID: 3, Path: "/n/a.md", Text: "text", StartLine: 1, EndLine: 4}))
	f.Add([]byte(`{"path":"/n/a.md","chunks":[1]}`))
	f.Fuzz(func(t *testing.T, v []byte) {
		var n, n2 Note
		if decodeNote(v, &n) == nil {
			again := encodeNote(nil, &n)
			if err := decodeNote(again, &n2); err != nil || !bytes.Equal(encodeNote(nil, &n2), again) {
				t.Fatalf("a decoded note does not round-trip: %v", err)
			}
		}
		var c, c2 Chunk
		if decodeChunk(v, &c) == nil {
			again := encodeChunk(nil, &c)
			if err := decodeChunk(again, &c2); err != nil || !bytes.Equal(encodeChunk(nil, &c2), again) {
				t.Fatalf("a decoded chunk does not round-trip: %v", err)
			}
		}
		decodeChunkPath(v)
	})
}

// FuzzMetaPages feeds the header check the first pages of a file: it must
// never panic, and accept only a meta page whose checksum holds.
func FuzzMetaPages(f *testing.F) {
	good, err := os.ReadFile(filledHeader(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good[:2*os.Getpagesize()])
	f.Add(make([]byte, 2*os.Getpagesize()))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := currentMeta(bytes.NewReader(b))
		if err == nil && (m.pageSize < minBoltPageSize || m.pageSize&(m.pageSize-1) != 0) {
			t.Fatalf("accepted a meta page of page size %d", m.pageSize)
		}
	})
}

// filledHeader writes a small store and returns its path.
func filledHeader(f *testing.F) string {
	db, err := Open(f.TempDir()+"/memd.db", Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	db.Close()
	return db.Path()
}
