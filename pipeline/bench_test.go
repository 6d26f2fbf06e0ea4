package pipeline

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memd-dev/memd/internal/gencorpus"
	"github.com/memd-dev/memd/store"
)

// The indexing benchmarks time a cold index of a folder: open a fresh
// store, AddFolder while Run runs, wait until idle. Each reports notes/s,
// MB/s, the process's CPU seconds per index (user+system, from getrusage,
// so the parse, chunk and commit goroutines all count) and the process's
// peak RSS. Sub-benchmarks vary BatchNotes, the group-commit size. Stores
// are fsynced as the daemon's are.
//
//	go test -run '^$' -bench IndexDendron -benchtime 3x ./pipeline/
//	MEMD_BENCH_NOTES=50000 go test -run '^$' -bench IndexGenerated -benchtime 1x ./pipeline/

func BenchmarkIndexDendron(b *testing.B) {
	dir := dendronVault(b)
	for _, batch := range []int{1, 64, 256, 0} {
		name := fmt.Sprintf("batch=%d", batch)
		if batch == 0 {
			name = "batch=default" // the daemon's: the vault in one batch
		}
		b.Run(name, func(b *testing.B) { benchIndex(b, dir, batch) })
	}
}

// BenchmarkIndexGenerated indexes a generated corpus (see generateCorpus)
// of MEMD_BENCH_NOTES notes, 50,000 unless set.
func BenchmarkIndexGenerated(b *testing.B) {
	n := 50000
	if v, err := strconv.Atoi(os.Getenv("MEMD_BENCH_NOTES")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	t0 := time.Now()
	if err := gencorpus.Write(dir, n, 1); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d notes in %v", n, time.Since(t0).Round(time.Millisecond))
	for _, batch := range []int{64, 256, 2048, 8192} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) { benchIndex(b, dir, batch) })
	}
	// The daemon's own sizes: batches that grow with the burst.
	b.Run("batch=default", func(b *testing.B) { benchIndex(b, dir, 0) })
}

// BenchmarkIndexDir indexes the folder MEMD_BENCH_DIR (SciFact's notes,
// say) in batches of the daemon's default size, or of MEMD_BENCH_BATCH
// notes; skipped when unset.
func BenchmarkIndexDir(b *testing.B) {
	dir := os.Getenv("MEMD_BENCH_DIR")
	if dir == "" {
		b.Skip("MEMD_BENCH_DIR is not set")
	}
	batch := defaultBatchNotes
	if v, err := strconv.Atoi(os.Getenv("MEMD_BENCH_BATCH")); err == nil && v > 0 {
		batch = v
	}
	benchIndex(b, dir, batch)
}

func benchIndex(b *testing.B, dir string, batch int) {
	files, size := corpusSize(b, dir)
	cfg := testConfig()
	cfg.BatchNotes = batch
	var wall, cpu time.Duration
	for range b.N {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "memd.db")
		db, err := openSynced(path)
		if err != nil {
			b.Fatal(err)
		}
		ix := NewIndexer(db, cfg)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		r0 := cpuTime()
		t0 := time.Now()
		b.StartTimer()

		go func() { done <- ix.Run(ctx) }()
		if _, err := ix.AddFolder(ctx, dir); err != nil {
			b.Fatal(err)
		}
		if err := ix.WaitIdle(ctx); err != nil {
			b.Fatal(err)
		}
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}

		b.StopTimer()
		wall += time.Since(t0)
		cpu += cpuTime() - r0
		var notes int
		_ = db.View(func(tx *storeTx) error { notes = tx.Counts().Notes; return nil })
		if notes != files {
			b.Fatalf("indexed %d notes of %d files", notes, files)
		}
		db.Close()
	}
	n := float64(b.N)
	b.ReportMetric(float64(files)*n/wall.Seconds(), "notes/s")
	b.ReportMetric(float64(size)*n/wall.Seconds()/1e6, "MB/s")
	b.ReportMetric(cpu.Seconds()/n, "cpu-s/op")
	b.ReportMetric(wall.Seconds()/n, "wall-s/op")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's peak resident set in bytes (Linux reports KiB).
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) << 10
}

func corpusSize(b *testing.B, dir string) (files int, size int64) {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isNoteName(p) || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			files++
			size += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return files, size
}

// BenchmarkPrepare times what a batch does before its transaction: read,
// hash, parse, chunk and count the terms of every note of a corpus, on one
// worker, against an empty store. It is indexing's own CPU with the store
// left out, in MB of notes per second of one core. Corpora: the Dendron
// vault, a generated one of MEMD_BENCH_NOTES notes (10,000 unless set) and
// MEMD_BENCH_DIR when set (SciFact's notes, say).
//
//	go test -run '^$' -bench Prepare -benchtime 5x ./pipeline/
func BenchmarkPrepare(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("MEMD_BENCH_NOTES")); err == nil && v > 0 {
		n = v
	}
	b.Run("dendron", func(b *testing.B) { benchPrepare(b, dendronVault(b)) })
	b.Run("generated", func(b *testing.B) {
		dir := b.TempDir()
		if err := gencorpus.Write(dir, n, 1); err != nil {
			b.Fatal(err)
		}
		benchPrepare(b, dir)
	})
	if dir := os.Getenv("MEMD_BENCH_DIR"); dir != "" {
		b.Run(filepath.Base(dir), func(b *testing.B) { benchPrepare(b, dir) })
	}
}

func benchPrepare(b *testing.B, dir string) {
	root, err := canonicalDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	files, size := corpusSize(b, root)
	db := openStore(b, filepath.Join(b.TempDir(), "memd.db"))
	defer db.Close()
	cfg := testConfig()
	cfg.Workers = 1
	ix := NewIndexer(db, cfg)
	ix.folders.ensure(root)
	rules, _ := ix.folders.rules(root)
	found, err := walkNotes(context.Background(), root, rules)
	if err != nil || len(found.files) != files {
		b.Fatalf("walk: %d of %d files, %v", len(found.files), files, err)
	}
	var jobs []store.Job
	for p := range found.files {
		jobs = append(jobs, store.Job{Path: p, Folder: root})
	}
	slices.SortFunc(jobs, func(x, y store.Job) int { return strings.Compare(x.Path, y.Path) })
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	r0 := cpuTime()
	for b.Loop() {
		for i := 0; i < len(jobs); i += defaultBatchNotes {
			outs := ix.worker.prepare(ctx, jobs[i:min(i+defaultBatchNotes, len(jobs))], nil, nil)
			for _, o := range outs {
				if o.kind != outPut {
					b.Fatalf("%s: outcome %d (%s), want a put", o.job.Path, o.kind, o.reason)
				}
			}
		}
	}
	cpu := (cpuTime() - r0).Seconds() / float64(b.N)
	b.ReportMetric(float64(size)/1e6/cpu, "MB/cpu-s")
	b.ReportMetric(cpu, "cpu-s/op")
}
