package pipeline

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/memd-dev/memd/store"
)

// The write benchmarks time the store writes of the pipeline without the
// disk or the parser: outcomes are made up and committed as a batch would
// commit them, over a store that does not fsync. Time varies with the
// machine; allocs/op and B/op are the figures to compare between versions.
//
//	go test -run '^$' -bench 'Write|RemoveFolderOf|ForgetNote|Rename|Reindex' -benchmem ./pipeline/

// benchBatch is the number of notes committed in one transaction.
const benchBatch = 64

// benchWriter is an indexer (not running) over a fresh store with one
// registered folder.
func benchWriter(b *testing.B) (*Indexer, string) {
	b.Helper()
	root := b.TempDir()
	db := openStore(b, filepath.Join(b.TempDir(), "memd.db"))
	b.Cleanup(func() { db.Close() })
	ix := NewIndexer(db, testConfig())
	benchRegister(b, ix, root)
	return ix, root
}

func benchRegister(b *testing.B, ix *Indexer, root string) {
	b.Helper()
	if err := ix.db.Update(func(tx *store.Tx) error { return tx.PutFolder(store.Folder{Path: root}) }); err != nil {
		b.Fatal(err)
	}
	ix.folders.ensure(root)
}

// benchNote is a new note at path of a size typical of a notes folder:
// 24 blocks, 4 chunks of 40 terms.
func benchNote(root, path string, seed int) outcome {
	n := &store.Note{Path: path, Folder: root, Size: 4000, Hash: fmt.Sprintf("%064x", seed),
		Title: fmt.Sprintf("Note %d", seed), Tags: []string{"bench", "notes"}, Links: []string{"other"},
		Summary: "A made-up note for the write benchmarks.", Chunker: ChunkerHeuristic}
	for i := range 24 {
		n.Blocks = append(n.Blocks, fmt.Sprintf("b%06x", seed*24+i))
	}
	chunks := make([]store.NewChunk, 4)
	for i := range chunks {
		c := &chunks[i]
		c.StartLine, c.EndLine, c.Text = i*10+1, i*10+10, "Some text of the chunk, a few lines long."
		for w := range 40 {
			c.Terms = append(c.Terms, store.TermFreq{Term: fmt.Sprintf("w%d", (seed*7+i*40+w)%5000), Freq: 1})
		}
	}
	return outcome{job: store.Job{Path: path, Folder: root}, kind: outPut, note: n, chunks: chunks}
}

// benchPut commits new notes at paths, benchBatch to a transaction.
func benchPut(b *testing.B, ix *Indexer, root string, paths []string, seed int) {
	b.Helper()
	for len(paths) > 0 {
		k := min(len(paths), benchBatch)
		outs := make([]outcome, k)
		for i, p := range paths[:k] {
			outs[i] = benchNote(root, p, seed+i)
		}
		if _, err := ix.worker.commit(outs, false); err != nil {
			b.Fatal(err)
		}
		paths, seed = paths[k:], seed+k
	}
}

func benchPaths(root, name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = filepath.Join(root, fmt.Sprintf("%s%05d.md", name, i))
	}
	return out
}

// BenchmarkWriteNewNotes commits benchBatch notes at paths never stored:
// every lookup of the old note misses.
func BenchmarkWriteNewNotes(b *testing.B) {
	ix, root := benchWriter(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		outs := make([]outcome, benchBatch)
		for k := range outs {
			outs[k] = benchNote(root, filepath.Join(root, fmt.Sprintf("new%07d.md", i)), i)
			i++
		}
		b.StartTimer()
		if _, err := ix.worker.commit(outs, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRemoveFolderOf removes a folder of 500 notes.
func BenchmarkRemoveFolderOf(b *testing.B) {
	ix, root := benchWriter(b)
	paths := benchPaths(root, "n", 500)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		benchRegister(b, ix, root)
		benchPut(b, ix, root, paths, 0)
		b.StartTimer()
		if err := ix.RemoveFolder(bg, root); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkForgetNote forgets one stored note (whose file is gone) per op.
func BenchmarkForgetNote(b *testing.B) {
	ix, root := benchWriter(b)
	var paths []string
	b.ReportAllocs()
	for b.Loop() {
		if len(paths) == 0 {
			b.StopTimer()
			paths = benchPaths(root, "f", 256)
			benchPut(b, ix, root, paths, 0)
			b.StartTimer()
		}
		if err := ix.Forget(bg, paths[0]); err != nil {
			b.Fatal(err)
		}
		paths = paths[1:]
	}
}

// BenchmarkRenameNotes commits benchBatch renames, each note to the other
// of two paths, alternately.
func BenchmarkRenameNotes(b *testing.B) {
	ix, root := benchWriter(b)
	from, to := benchPaths(root, "a", benchBatch), benchPaths(root, "b", benchBatch)
	benchPut(b, ix, root, from, 0)
	notes := make([]outcome, benchBatch)
	for i, p := range from {
		notes[i] = benchNote(root, p, i)
	}
	b.ReportAllocs()
	for b.Loop() {
		outs := make([]outcome, benchBatch)
		for i := range outs {
			n := *notes[i].note
			n.Path = to[i]
			outs[i] = outcome{job: store.Job{Path: to[i], Folder: root}, kind: outMove, note: &n, from: from[i]}
		}
		if _, err := ix.worker.commit(outs, false); err != nil {
			b.Fatal(err)
		}
		for _, o := range outs {
			if o.retried {
				b.Fatalf("rename of %s to %s was not recognized", o.from, o.job.Path)
			}
		}
		from, to = to, from
	}
}

// BenchmarkReindexFolder marks the 500 notes of a folder for re-indexing
// and queues them; their files are not on disk, so the walk finds none.
func BenchmarkReindexFolder(b *testing.B) {
	ix, root := benchWriter(b)
	benchPut(b, ix, root, benchPaths(root, "r", 500), 0)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := ix.Reindex(bg, root); err != nil || n != 500 {
			b.Fatalf("Reindex = %d, %v; want 500", n, err)
		}
	}
}
