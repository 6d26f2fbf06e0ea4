package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

func sampleNote() Note {
	return Note{
		Path: "/v/notes/日本.md", Folder: "/v/notes", Size: 1234,
		ModTime: time.Unix(1700000000, 123456789), Hash: "ab12", Title: "Café",
		Tags: []string{"go", "db"}, Links: []string{"other"}, Aliases: []string{"Kaffee", "the café"}, Blocks: []string{"b0", "b1", "b2"},
		Summary: "A note.", Chunker: "model", IndexedAt: time.Unix(1800000000, 1),
		Chunks: []uint64{7, 8, 300, 2},
	}
}

func sampleChunk() Chunk {
	return Chunk{ID: 1 << 40, Path: "/v/a.md", Folder: "/v", Ordinal: 3, StartLine: 10, EndLine: 42,
		Heading: []string{"Top", "Sub"}, Title: "T", Text: "body\x00with a NUL and ✓", Summary: "s"}
}

func TestRecordsRoundTrip(t *testing.T) {
	for _, n := range []Note{sampleNote(), {Path: "/p"}} {
		var got Note
		if err := decodeNote(encodeNote(nil, &n), &got); err != nil {
			t.Fatal(err)
		}
		if !got.ModTime.Equal(n.ModTime) || !got.IndexedAt.Equal(n.IndexedAt) {
			t.Fatalf("times %v %v, want %v %v", got.ModTime, got.IndexedAt, n.ModTime, n.IndexedAt)
		}
		got.ModTime, got.IndexedAt, n.ModTime, n.IndexedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if len(n.Chunks) == 0 {
			n.Chunks = []uint64{}
		}
		if !reflect.DeepEqual(got, n) {
			t.Fatalf("note round trip:\n got %+v\nwant %+v", got, n)
		}
	}
	packed := sampleChunk()
	packed.Text = strings.Repeat("a chunk of text that says what it says again and again. ", 20)
	for _, c := range []Chunk{sampleChunk(), {}, packed} {
		var got Chunk
		rec := encodeChunk(nil, &c)
		if err := decodeChunk(rec, &got); err != nil {
			t.Fatal(err)
		}
		if compressed := rec[0] == recordChunkS2; compressed != (c.Text == packed.Text) {
			t.Errorf("chunk of %d bytes of text stored compressed: %v", len(c.Text), compressed)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("chunk round trip:\n got %+v\nwant %+v", got, c)
		}
	}
}

// A note written before aliases were stored still reads, with none.
func TestRecordsReadNoteWithoutAliases(t *testing.T) {
	n := sampleNote()
	rec := encodeNote(nil, &n)
	aliases := len(binary.AppendUvarint(nil, uint64(len(n.Aliases))))
	for _, a := range n.Aliases {
		aliases += len(binary.AppendUvarint(nil, uint64(len(a)))) + len(a)
	}
	old := append([]byte{recordBinary}, rec[1:len(rec)-aliases]...)
	var got Note
	if err := decodeNote(old, &got); err != nil || got.Path != n.Path || got.Aliases != nil ||
		!reflect.DeepEqual(got.Chunks, n.Chunks) {
		t.Fatalf("note of the first binary form: %+v, %v", got, err)
	}
	if err := decodeNote(append([]byte{recordBinary}, rec[1:]...), &got); !errors.Is(err, errDamaged) {
		t.Fatalf("aliases after a first-form lead byte: %v", err)
	}
}

// Schema 1 wrote JSON; those records must still read.
func TestRecordsReadJSON(t *testing.T) {
	n, c := sampleNote(), sampleChunk()
	nj, _ := json.Marshal(&n)
	cj, _ := json.Marshal(&c)
	var gn Note
	var gc Chunk
	if err := decodeNote(nj, &gn); err != nil || gn.Path != n.Path || !reflect.DeepEqual(gn.Chunks, n.Chunks) {
		t.Fatalf("JSON note: %+v, %v", gn, err)
	}
	if err := decodeChunk(cj, &gc); err != nil || !reflect.DeepEqual(gc, c) {
		t.Fatalf("JSON chunk: %+v, %v", gc, err)
	}
}

// Every cut of a record, and trailing garbage, is an error, never a panic
// or a silently short record.
func TestRecordsDamaged(t *testing.T) {
	n, c, packed := sampleNote(), sampleChunk(), sampleChunk()
	packed.Text = strings.Repeat("text to compress ", 40)
	for name, rec := range map[string][]byte{"note": encodeNote(nil, &n), "chunk": encodeChunk(nil, &c), "compressed chunk": encodeChunk(nil, &packed)} {
		decode := func(b []byte) error {
			if name == "note" {
				return decodeNote(b, new(Note))
			}
			return decodeChunk(b, new(Chunk))
		}
		for i := range rec {
			if err := decode(rec[:i]); err == nil {
				t.Fatalf("%s cut at %d of %d decoded", name, i, len(rec))
			}
		}
		if err := decode(append(rec[:len(rec):len(rec)], 0)); !errors.Is(err, errDamaged) {
			t.Fatalf("%s with a trailing byte: %v", name, err)
		}
		if err := decode([]byte{0x7f, 1, 2}); !errors.Is(err, errDamaged) {
			t.Fatalf("%s of an unknown form: %v", name, err)
		}
	}
}

// ChunkPath reads the path of either form of record; a record cut before
// the end of its path, or of no known form, is an error, never a panic.
func TestChunkPathRecords(t *testing.T) {
	c := sampleChunk()
	rec := encodeChunk(nil, &c)
	cj, _ := json.Marshal(&c)
	for name, v := range map[string][]byte{"binary": rec, "JSON": cj} {
		if p, err := decodeChunkPath(v); p != c.Path || err != nil {
			t.Errorf("%s record: path %q, %v; want %q", name, p, err, c.Path)
		}
	}
	pathEnd := len(binary.AppendUvarint(binary.AppendUvarint([]byte{recordBinary}, c.ID), uint64(len(c.Path)))) + len(c.Path)
	for i := range pathEnd {
		if p, err := decodeChunkPath(rec[:i]); !errors.Is(err, errDamaged) {
			t.Fatalf("cut at %d of the path's %d bytes: %q, %v", i, pathEnd, p, err)
		}
	}
	for i := pathEnd; i < len(rec); i++ { // the fields after the path are not read
		if p, err := decodeChunkPath(rec[:i]); p != c.Path || err != nil {
			t.Fatalf("cut at %d, past the path: %q, %v", i, p, err)
		}
	}
	if _, err := decodeChunkPath(cj[:len(cj)/2]); err == nil {
		t.Error("a cut JSON record decoded")
	}
	if _, err := decodeChunkPath([]byte{0x7f, 1, 2}); !errors.Is(err, errDamaged) {
		t.Errorf("a record of an unknown form: %v", err)
	}

	db := openTest(t)
	n := put(t, db, "/v/a.md", "aa", chunkOf("one"), chunkOf("two"))
	if err := db.current.Load().Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNames[bucketChunks])
		if err := b.Put(u64key(n.Chunks[0]), cj); err != nil {
			return err
		}
		return b.Put(u64key(n.Chunks[1]), rec[:pathEnd-1])
	}); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if p, err := tx.ChunkPath(n.Chunks[0]); p != c.Path || err != nil {
			t.Errorf("stored JSON chunk: %q, %v", p, err)
		}
		_, err := tx.ChunkPath(n.Chunks[1])
		if want := fmt.Sprintf("chunk %d: %v", n.Chunks[1], errDamaged); !errors.Is(err, errDamaged) || err.Error() != want {
			t.Errorf("damaged chunk: %v, want %s", err, want)
		}
		if _, err := tx.ChunkPath(n.Chunks[1] + 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing chunk: %v", err)
		}
		return nil
	})
}

// A schema 1 store (JSON records) opens as schema 2 with its notes intact.
func TestMigratesSchema1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := sampleNote()
	nj, _ := json.Marshal(&n)
	if err := db.current.Load().Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketNames[bucketNotes]).Put([]byte(n.Path), nj); err != nil {
			return err
		}
		return tx.Bucket(bucketNames[bucketMeta]).Put(keySchema, binary.BigEndian.AppendUint64(nil, 1))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(func(tx *Tx) error {
		got, err := tx.Note(n.Path)
		if err != nil || got.Title != n.Title {
			t.Errorf("schema 1 note after migration: %+v, %v", got, err)
		}
		if v := binary.BigEndian.Uint64(tx.tx.Bucket(bucketNames[bucketMeta]).Get(keySchema)); v != SchemaVersion {
			t.Errorf("schema after open = %d, want %d", v, SchemaVersion)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// Skipped is a counter kept by PutSkip and DeleteSkip (a replaced skip
// counts once, a missing one uncounts nothing), and a store written before
// the counter gets it counted when it opens.
func TestSkipCounter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	skipped := func() (n int) {
		db.View(func(tx *Tx) error { n = tx.Counts().Skipped; return nil })
		return n
	}
	step := func(fn func(tx *Tx) error) {
		t.Helper()
		if err := db.Update(fn); err != nil {
			t.Fatal(err)
		}
	}
	step(func(tx *Tx) error {
		for _, p := range []string{"/a/1.bin", "/a/2.bin", "/a/2.bin", "/b/3.bin"} {
			if err := tx.PutSkip(Skip{Path: p, Reason: "binary"}); err != nil {
				return err
			}
		}
		return tx.DeleteSkip("/nowhere")
	})
	if n := skipped(); n != 3 {
		t.Fatalf("Skipped = %d after three paths, want 3", n)
	}
	step(func(tx *Tx) error { return tx.DeleteSkipsUnder("/a/") })
	if n := skipped(); n != 1 {
		t.Fatalf("Skipped = %d after deleting /a/, want 1", n)
	}
	step(func(tx *Tx) error { return tx.tx.Bucket(bucketNames[bucketMeta]).Delete([]byte(counterSkips)) })
	db.Close()
	if db, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := skipped(); n != 1 {
		t.Fatalf("Skipped = %d after reopening a store without the counter, want 1", n)
	}
}

// peekNote reads a record's folder, hash and blocks as decodeNote does,
// from either form, and a record cut short of its blocks is an error.
func TestPeekNote(t *testing.T) {
	n := sampleNote()
	nj, _ := json.Marshal(&n)
	bare := Note{Path: "/p", Folder: "/"}
	for name, rec := range map[string][]byte{"binary": encodeNote(nil, &n), "JSON": nj, "no blocks": encodeNote(nil, &bare)} {
		var want Note
		if err := decodeNote(rec, &want); err != nil {
			t.Fatal(err)
		}
		folder, hash, blocks, ok := peekNote(rec, make([][]byte, 5))
		var got []string
		for _, b := range blocks {
			got = append(got, string(b))
		}
		if !ok || string(folder) != want.Folder || string(hash) != want.Hash || !slices.Equal(got, want.Blocks) {
			t.Errorf("%s record: folder %q hash %q blocks %q (%v), want %q %q %q", name, folder, hash, got, ok, want.Folder, want.Hash, want.Blocks)
		}
		if _, hash, blocks, ok := peekNote(rec, nil); !ok || string(hash) != want.Hash || blocks != nil {
			t.Errorf("%s record without its blocks: hash %q blocks %q (%v)", name, hash, blocks, ok)
		}
	}
	rec := encodeNote(nil, &n)
	cut := bytes.Index(rec, []byte("b2")) + 1 // inside the last block
	if _, _, _, ok := peekNote(rec[:cut], [][]byte{}); ok {
		t.Errorf("a record cut inside its blocks read as whole")
	}
}
